"""The released Search Arena dataset's schema: validation, JSONL and Parquet reading and writing.

A row is one conversation (spec "What is stored"): ``model_a``, ``model_b``, ``winner``
(``OUTCOMES`` or null), ``judge`` (voter hash), ``turn``, ``timestamp``, ``messages_a``/``messages_b``
(role/content lists), ``system_a_metadata``/``system_b_metadata`` (citation_format_standardized,
client_country, conv_id, formatted_messages, llm_config {name, params}, web_search_trace: per turn a
list of [citation marker, url]), ``primary_intent``, ``secondary_intent``, ``languages``.

Nothing is dropped: keys beyond the released schema (our own fields such as search queries, results,
latencies, errors, propensity and validity flags, wherever they sit: top level, in a metadata dict or
in a message) are kept verbatim in ``extra`` dicts and written back where they came from. Timestamps
given as numbers (epoch seconds) or datetimes are normalised to ISO 8601 strings; everything else is
kept as given, so JSONL -> rows -> Parquet -> rows -> JSONL gives the same rows.

Parquet layout (ours): typed columns for the released fields; free-form dicts (``llm_config``
and every ``extra``) are JSON text, since Parquet structs need one fixed set of keys. Reading also
accepts released Parquet files where those are nested structs.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evaluators.arena.ratings import OUTCOMES, BattleRecord
from evaluators.arena.style import features, paper_features
from evaluators.core.types import DatasetError

CONVERSATION_FIELDS: tuple[str, ...] = (
    "model_a",
    "model_b",
    "winner",
    "judge",
    "turn",
    "timestamp",
    "messages_a",
    "messages_b",
    "system_a_metadata",
    "system_b_metadata",
    "primary_intent",
    "secondary_intent",
    "languages",
)
METADATA_FIELDS: tuple[str, ...] = (
    "citation_format_standardized",
    "client_country",
    "conv_id",
    "formatted_messages",
    "llm_config",
    "web_search_trace",
)
_EXTRA_JSON = "_extra_json"  # Parquet column (top level, metadata and message level) holding extra keys


@dataclass
class Message:
    role: str
    content: str | None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"role": self.role, "content": self.content, **self.extra}


@dataclass
class SystemMetadata:
    citation_format_standardized: bool | None
    client_country: str | None
    conv_id: str | None
    formatted_messages: list[Message] | None
    llm_config: dict[str, Any] | None  # {"name": str, "params": dict}
    web_search_trace: list[list[list[str]]] | None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "citation_format_standardized": self.citation_format_standardized,
            "client_country": self.client_country,
            "conv_id": self.conv_id,
            "formatted_messages": None
            if self.formatted_messages is None
            else [m.to_dict() for m in self.formatted_messages],
            "llm_config": self.llm_config,
            "web_search_trace": self.web_search_trace,
            **self.extra,
        }

    def urls(self) -> list[str]:
        return [pair[1] for turn in self.web_search_trace or [] for pair in turn]


@dataclass
class ConversationRow:
    model_a: str
    model_b: str
    winner: str | None
    judge: str | None
    turn: int
    timestamp: str | None
    messages_a: list[Message]
    messages_b: list[Message]
    system_a_metadata: SystemMetadata
    system_b_metadata: SystemMetadata
    primary_intent: str | None
    secondary_intent: str | None
    languages: list[str] | None
    extra: dict[str, Any] = field(default_factory=dict)  # top-level keys beyond the released schema

    def to_dict(self) -> dict[str, Any]:
        return {
            "model_a": self.model_a,
            "model_b": self.model_b,
            "winner": self.winner,
            "judge": self.judge,
            "turn": self.turn,
            "timestamp": self.timestamp,
            "messages_a": [m.to_dict() for m in self.messages_a],
            "messages_b": [m.to_dict() for m in self.messages_b],
            "system_a_metadata": self.system_a_metadata.to_dict(),
            "system_b_metadata": self.system_b_metadata.to_dict(),
            "primary_intent": self.primary_intent,
            "secondary_intent": self.secondary_intent,
            "languages": self.languages,
            **self.extra,
        }


# ---------------------------------------------------------------- validation


class _Row:
    """Error helper: every problem names the row and the field path."""

    def __init__(self, line: int):
        self.line = line

    def fail(self, path: str, problem: str) -> DatasetError:
        return DatasetError(f"row {self.line}: field '{path}': {problem}")

    def text(self, value: Any, path: str, *, nullable: bool) -> str | None:
        if value is None and nullable:
            return None
        if not isinstance(value, str):
            raise self.fail(path, f"expected text{' or null' if nullable else ''}, got {_kind(value)}")
        return value

    def obj(self, value: Any, path: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(path, f"expected an object, got {_kind(value)}")
        return value

    def items(self, value: Any, path: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list, got {_kind(value)}")
        return value


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _messages(r: _Row, value: Any, path: str) -> list[Message]:
    out = []
    for i, item in enumerate(r.items(value, path)):
        msg = r.obj(item, f"{path}[{i}]")
        if "role" not in msg:
            raise r.fail(f"{path}[{i}].role", "missing")
        out.append(
            Message(
                role=r.text(msg["role"], f"{path}[{i}].role", nullable=False) or "",
                content=r.text(msg.get("content"), f"{path}[{i}].content", nullable=True),
                extra={k: v for k, v in msg.items() if k not in ("role", "content")},
            )
        )
    return out


def _metadata(r: _Row, value: Any, path: str) -> SystemMetadata:
    meta = r.obj(value, path)
    standardized = meta.get("citation_format_standardized")
    if standardized is not None and not isinstance(standardized, bool):
        raise r.fail(f"{path}.citation_format_standardized", f"expected true, false or null, got {_kind(standardized)}")
    config = meta.get("llm_config")
    if config is not None:
        config = r.obj(config, f"{path}.llm_config")
        r.text(config.get("name"), f"{path}.llm_config.name", nullable=True)
        if config.get("params") is not None:
            r.obj(config["params"], f"{path}.llm_config.params")
    trace = meta.get("web_search_trace")
    if trace is not None:
        for t, turn in enumerate(r.items(trace, f"{path}.web_search_trace")):
            for c, pair in enumerate(r.items(turn, f"{path}.web_search_trace[{t}]")):
                where = f"{path}.web_search_trace[{t}][{c}]"
                if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(x, str) for x in pair):
                    raise r.fail(where, f"expected [citation marker, url] as two texts, got {pair!r:.80}")
    formatted = meta.get("formatted_messages")
    return SystemMetadata(
        citation_format_standardized=standardized,
        client_country=r.text(meta.get("client_country"), f"{path}.client_country", nullable=True),
        conv_id=r.text(meta.get("conv_id"), f"{path}.conv_id", nullable=True),
        formatted_messages=None if formatted is None else _messages(r, formatted, f"{path}.formatted_messages"),
        llm_config=config,
        web_search_trace=trace,
        extra={k: v for k, v in meta.items() if k not in METADATA_FIELDS},
    )


def _timestamp(r: _Row, value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            return dt.datetime.fromtimestamp(float(value), tz=dt.UTC).isoformat()
        except (OverflowError, OSError, ValueError):
            raise r.fail("timestamp", f"{value!r} is not a valid epoch time") from None
    raise r.fail("timestamp", f"expected ISO 8601 text, epoch seconds or null, got {_kind(value)}")


def validate_row(row: dict[str, Any], line: int) -> ConversationRow:
    """A checked ConversationRow, or DatasetError naming the row (``line``) and the field."""
    r = _Row(line)
    if not isinstance(row, dict):
        raise DatasetError(f"row {line}: expected an object, got {_kind(row)}")
    for name in ("model_a", "model_b", "messages_a", "messages_b", "system_a_metadata", "system_b_metadata"):
        if name not in row:
            raise r.fail(name, "missing")
    model_a = r.text(row["model_a"], "model_a", nullable=False) or ""
    model_b = r.text(row["model_b"], "model_b", nullable=False) or ""
    if not model_a or not model_b:
        raise r.fail("model_a" if not model_a else "model_b", "empty")
    winner = row.get("winner")
    if winner is not None and winner not in OUTCOMES:
        raise r.fail("winner", f"{winner!r} is not one of {', '.join(OUTCOMES)} or null")
    turn = row.get("turn", 1)
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 0:
        raise r.fail("turn", f"expected a non-negative whole number, got {turn!r:.40}")
    languages = row.get("languages")
    if languages is not None:
        for i, lang in enumerate(r.items(languages, "languages")):
            r.text(lang, f"languages[{i}]", nullable=False)
    return ConversationRow(
        model_a=model_a,
        model_b=model_b,
        winner=winner,
        judge=r.text(row.get("judge"), "judge", nullable=True),
        turn=turn,
        timestamp=_timestamp(r, row.get("timestamp")),
        messages_a=_messages(r, row["messages_a"], "messages_a"),
        messages_b=_messages(r, row["messages_b"], "messages_b"),
        system_a_metadata=_metadata(r, row["system_a_metadata"], "system_a_metadata"),
        system_b_metadata=_metadata(r, row["system_b_metadata"], "system_b_metadata"),
        primary_intent=r.text(row.get("primary_intent"), "primary_intent", nullable=True),
        secondary_intent=r.text(row.get("secondary_intent"), "secondary_intent", nullable=True),
        languages=languages,
        extra={k: v for k, v in row.items() if k not in CONVERSATION_FIELDS},
    )


# ---------------------------------------------------------------- files


def _as_row(row: ConversationRow | dict[str, Any], line: int) -> ConversationRow:
    return row if isinstance(row, ConversationRow) else validate_row(row, line)


def read_rows(path: str | Path) -> Iterator[ConversationRow]:
    """Rows of a .jsonl (one object per line, blank lines skipped) or .parquet file, validated;
    rows are numbered from 1."""
    path = Path(path)
    if path.suffix == ".jsonl":
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    data = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DatasetError(
                        f"{path.name} row {number}: not valid JSON ({exc.msg} at column {exc.colno})"
                    ) from None
                yield validate_row(data, number)
    elif path.suffix == ".parquet":
        import pyarrow.parquet as pq

        number = 0
        for batch in pq.ParquetFile(path).iter_batches(batch_size=1024):
            for record in batch.to_pylist():
                number += 1
                yield validate_row(_from_parquet(record), number)
    else:
        raise DatasetError(f"{path.name}: unknown format; use .jsonl or .parquet")


def jsonl_line(row: ConversationRow | dict[str, Any], number: int) -> str:
    """One row (validated when given as a dict; ``number`` names it in an error) as its JSON line."""
    return json.dumps(_as_row(row, number).to_dict(), ensure_ascii=False) + "\n"


def write_jsonl(rows: Iterable[ConversationRow | dict[str, Any]], path: str | Path) -> int:
    """Write rows (validated when given as dicts) as JSON lines; returns the count."""
    count = 0
    with Path(path).open("w", encoding="utf-8") as handle:
        for count, row in enumerate(rows, start=1):
            handle.write(jsonl_line(row, count))
    return count


def _parquet_schema() -> Any:
    import pyarrow as pa

    message = pa.struct([("role", pa.string()), ("content", pa.string()), (_EXTRA_JSON, pa.string())])
    metadata = pa.struct(
        [
            ("citation_format_standardized", pa.bool_()),
            ("client_country", pa.string()),
            ("conv_id", pa.string()),
            ("formatted_messages", pa.list_(message)),
            ("llm_config", pa.string()),
            ("web_search_trace", pa.list_(pa.list_(pa.list_(pa.string())))),
            (_EXTRA_JSON, pa.string()),
        ]
    )
    return pa.schema(
        [
            ("model_a", pa.string()),
            ("model_b", pa.string()),
            ("winner", pa.string()),
            ("judge", pa.string()),
            ("turn", pa.int64()),
            ("timestamp", pa.string()),
            ("messages_a", pa.list_(message)),
            ("messages_b", pa.list_(message)),
            ("system_a_metadata", metadata),
            ("system_b_metadata", metadata),
            ("primary_intent", pa.string()),
            ("secondary_intent", pa.string()),
            ("languages", pa.list_(pa.string())),
            (_EXTRA_JSON, pa.string()),
        ]
    )


def _json_or_none(data: dict[str, Any] | None) -> str | None:
    return json.dumps(data, ensure_ascii=False, sort_keys=True) if data else None


def _to_parquet(row: ConversationRow) -> dict[str, Any]:
    def message(m: Message) -> dict[str, Any]:
        return {"role": m.role, "content": m.content, _EXTRA_JSON: _json_or_none(m.extra)}

    def metadata(meta: SystemMetadata) -> dict[str, Any]:
        return {
            "citation_format_standardized": meta.citation_format_standardized,
            "client_country": meta.client_country,
            "conv_id": meta.conv_id,
            "formatted_messages": None
            if meta.formatted_messages is None
            else [message(m) for m in meta.formatted_messages],
            "llm_config": None if meta.llm_config is None else json.dumps(meta.llm_config, ensure_ascii=False),
            "web_search_trace": meta.web_search_trace,
            _EXTRA_JSON: _json_or_none(meta.extra),
        }

    return {
        "model_a": row.model_a,
        "model_b": row.model_b,
        "winner": row.winner,
        "judge": row.judge,
        "turn": row.turn,
        "timestamp": row.timestamp,
        "messages_a": [message(m) for m in row.messages_a],
        "messages_b": [message(m) for m in row.messages_b],
        "system_a_metadata": metadata(row.system_a_metadata),
        "system_b_metadata": metadata(row.system_b_metadata),
        "primary_intent": row.primary_intent,
        "secondary_intent": row.secondary_intent,
        "languages": row.languages,
        _EXTRA_JSON: _json_or_none(row.extra),
    }


def _from_parquet(record: Any) -> Any:
    """Undo _to_parquet's JSON text: ``_extra_json`` keys are merged back into their dict and a
    text ``llm_config`` decoded; released files with nested structs pass through unchanged."""
    if isinstance(record, list):
        return [_from_parquet(x) for x in record]
    if not isinstance(record, dict):
        return record
    out = {k: _from_parquet(v) for k, v in record.items() if k != _EXTRA_JSON}
    if isinstance(out.get("llm_config"), str):
        out["llm_config"] = json.loads(out["llm_config"])
    if record.get(_EXTRA_JSON):
        out.update(json.loads(record[_EXTRA_JSON]))
    return out


#: rows a Parquet file's row group holds (the rows held at a time while writing one)
PARQUET_ROWS = 2048


def write_parquet(rows: Iterable[ConversationRow | dict[str, Any]], path: str | Path) -> int:
    """Write rows (validated when given as dicts) to Parquet in our layout (module doc), a row group of
    ``PARQUET_ROWS`` at a time: fewer rows are one row group, the file ``pq.write_table`` writes. A bad
    row raises DatasetError and leaves no file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _parquet_schema()
    count = 0
    try:
        with pq.ParquetWriter(path, schema) as writer:
            batch: list[dict[str, Any]] = []
            for count, row in enumerate(rows, start=1):
                batch.append(_to_parquet(_as_row(row, count)))
                if len(batch) == PARQUET_ROWS:
                    writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                    batch = []
            if batch or not count:  # no rows at all: one empty row group, as write_table writes
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
    except BaseException:
        Path(path).unlink(missing_ok=True)
        raise
    return count


# ---------------------------------------------------------------- ratings input


def _side_text(messages: list[Message]) -> str:
    return "\n\n".join(m.content or "" for m in messages if m.role == "assistant")


def _ours(row: ConversationRow) -> dict[str, Any]:
    """The fields this platform adds to a released row (under ``arena``, or at the top level)."""
    nested = row.extra.get("arena")
    return nested if isinstance(nested, dict) else row.extra


def _propensity(row: ConversationRow) -> float | None:
    value = _ours(row).get("propensity")
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None


def battles_from_rows(rows: Iterable[ConversationRow]) -> list[BattleRecord]:
    """The voted rows as BattleRecords with style features (ours and the paper's) from each side's
    assistant messages and web_search_trace URLs. Rows without a winner, or marked invalid by us (``arena.valid``
    false), are skipped; ``weight`` is 1 / propensity when the row records one."""
    records = []
    for row in rows:
        if row.winner is None or _ours(row).get("valid") is False:
            continue
        side_features = []
        for messages, meta in ((row.messages_a, row.system_a_metadata), (row.messages_b, row.system_b_metadata)):
            style = "standardized" if meta.citation_format_standardized else "original"
            side_features.append(
                {
                    **features(_side_text(messages), meta.urls(), style),
                    **paper_features(
                        [m.content or "" for m in messages if m.role == "assistant"],
                        [[pair[1] for pair in turn] for turn in meta.web_search_trace or []],
                    ),
                }
            )
        propensity = _propensity(row)
        records.append(
            BattleRecord(
                model_a=row.model_a,
                model_b=row.model_b,
                winner=row.winner,
                features_a=side_features[0],
                features_b=side_features[1],
                weight=1.0 / propensity if propensity else 1.0,
                intent=row.primary_intent or "",
                language=(row.languages or [""])[0],
            )
        )
    return records


__all__ = [
    "CONVERSATION_FIELDS",
    "METADATA_FIELDS",
    "ConversationRow",
    "Message",
    "SystemMetadata",
    "battles_from_rows",
    "jsonl_line",
    "read_rows",
    "validate_row",
    "write_jsonl",
    "write_parquet",
]
