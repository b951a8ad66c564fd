"""The released Text Arena (Chatbot Arena) battles files: their schema, validation, reading and writing.

One row is one voted battle, as FastChat's ``clean_battle_data.py`` (``conv_release`` mode) writes it and
as the released files carry it (``lmsys/chatbot_arena_conversations``, ``lmarena-ai/arena-human-preference-*``,
the Search Arena paper's ``text_arena_battles.jsonl``):

- ``question_id`` (the conversation's id), ``model_a``, ``model_b``;
- ``winner``: ``model_a``, ``model_b``, ``tie`` or ``tie (bothbad)``;
- ``judge`` (``arena_user_<id>``; ``judge_hash`` in later releases);
- ``conversation_a`` / ``conversation_b``: OpenAI-style ``{"role", "content"}`` lists, user and assistant
  alternating, each message possibly with ``num_tokens``; later releases give a message's ``content`` as a
  list of parts (``{"type": "text", "text": ...}``) and some Parquet releases the whole list as JSON text;
- ``turn`` (user turns), ``anony`` (whether the names were hidden when the vote was cast: the leaderboard
  counts only anonymous votes), ``language`` (a language *name*, "English", or "unknown"), ``tstamp``
  (epoch seconds);
- optional tags, kept as they are: ``dedup_tag`` (``{"high_freq", "sampled"}``: a prompt asked very often
  keeps only a sample of its battles on the leaderboard), ``conv_metadata`` (token and markdown counts),
  ``category_tag``, ``is_code``, ``is_refusal``, ``openai_moderation``, ``toxic_chat_tag``, and the paper's
  ``intent``.

Files: a JSON array (FastChat writes ``clean_battle_conv_<date>.json`` that way), JSON lines, or Parquet
(where a column a row lacks reads as null: an optional field given as null counts as absent).
Nothing is dropped: :class:`TextArenaRow` keeps the row as given (``row``) next to its checked fields.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.arena.rating_types import OUTCOMES
from evaluators.core.types import DatasetError

#: the fields every released battle has
REQUIRED: tuple[str, ...] = ("model_a", "model_b", "winner", "conversation_a", "conversation_b")
#: the fields that name a battle, in the order they are looked for (``id`` in the 140k release)
ID_FIELDS: tuple[str, ...] = ("question_id", "id")
#: the latest time stamp a battle may have: 9999-12-31T23:59:59Z (NaN and infinities are no time either)
LATEST_TSTAMP = 253_402_300_799
#: how every Parquet file begins and ends (its footer, with the schema, is just before the end)
PARQUET_MAGIC = b"PAR1"


@dataclass(frozen=True)
class TextArenaRow:
    """One checked battle. ``conversation_*`` are (prompt, answer) pairs per turn, as plain text;
    ``row`` is the row exactly as given (its conversations as given too)."""

    question_id: str
    model_a: str
    model_b: str
    winner: str
    judge: str
    turns_a: tuple[tuple[str, str], ...]
    turns_b: tuple[tuple[str, str], ...]
    turn: int
    anony: bool
    language: str
    tstamp: float | None
    #: False when ``dedup_tag`` says this battle of a high-frequency prompt was not sampled
    dedup_sampled: bool
    intent: str
    row: dict[str, Any]


def _fail(line: int, path: str, problem: str) -> DatasetError:
    return DatasetError(f"row {line}: field '{path}': {problem}")


def _kind(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _content(value: Any, line: int, path: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # parts, as in the later releases: only the text parts are the message's text
        texts = []
        for i, part in enumerate(value):
            if not isinstance(part, dict):
                raise _fail(line, f"{path}[{i}]", f"expected a part object, got {_kind(part)}")
            if part.get("type", "text") == "text":
                if not isinstance(part.get("text"), str):
                    raise _fail(line, f"{path}[{i}].text", f"expected text, got {_kind(part.get('text'))}")
                texts.append(part["text"])
        return "\n".join(texts)
    raise _fail(line, path, f"expected text or a list of parts, got {_kind(value)}")


def conversation_turns(value: Any, line: int, path: str) -> tuple[tuple[str, str], ...]:
    """(prompt, answer) per turn from a released conversation (a list, or that list as JSON text)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise _fail(line, path, f"text that is not a JSON conversation ({exc.msg})") from None
    if not isinstance(value, list) or not value:
        raise _fail(
            line,
            path,
            f"expected a non-empty list of messages, got "
            f"{_kind(value) if not isinstance(value, list) else 'an empty list'}",
        )
    turns: list[tuple[str, str]] = []
    for i, message in enumerate(value):
        where = f"{path}[{i}]"
        if not isinstance(message, dict):
            raise _fail(line, where, f"expected a message object, got {_kind(message)}")
        role = message.get("role")
        expected = "user" if i % 2 == 0 else "assistant"
        if role != expected:
            raise _fail(
                line,
                f"{where}.role",
                f"expected {expected!r} (user and assistant alternate, the user first), got {role!r}",
            )
        text = _content(message.get("content"), line, f"{where}.content")
        if role == "user":
            turns.append((text, ""))
        else:
            turns[-1] = (turns[-1][0], text)
    return tuple(turns)


def validate_row(row: Any, line: int) -> TextArenaRow:
    """A checked row, or DatasetError naming the row (counted from 1) and the field."""
    if not isinstance(row, dict):
        raise DatasetError(f"row {line}: expected an object, got {_kind(row)}")
    for name in REQUIRED:
        if name not in row:
            raise _fail(line, name, "missing")
    key = next((k for k in ID_FIELDS if row.get(k) not in (None, "")), None)
    if key is None:
        raise _fail(line, "question_id", "missing; every battle needs its id (imports are idempotent by it)")
    names = []
    for side in ("model_a", "model_b"):
        if not isinstance(row[side], str) or not row[side].strip():
            raise _fail(line, side, f"expected a model name, got {row[side]!r:.40}")
        names.append(row[side])
    if names[0] == names[1]:
        raise _fail(line, "model_b", f"the same model as model_a ({names[0]!r}); a battle needs two")
    if row["winner"] not in OUTCOMES:
        raise _fail(line, "winner", f"{row['winner']!r:.40} is not one of {', '.join(OUTCOMES)}")
    turns_a = conversation_turns(row["conversation_a"], line, "conversation_a")
    turns_b = conversation_turns(row["conversation_b"], line, "conversation_b")
    if [p for p, _ in turns_a] != [p for p, _ in turns_b]:
        raise _fail(
            line, "conversation_b", "its prompts differ from conversation_a's; both sides answer the same prompts"
        )
    turn = _given(row, "turn", len(turns_a))
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
        raise _fail(line, "turn", f"expected a positive whole number, got {turn!r:.40}")
    anony = _given(row, "anony", True)
    if not isinstance(anony, bool):
        raise _fail(line, "anony", f"expected true or false, got {anony!r:.40}")
    tstamp = row.get("tstamp")
    if tstamp is not None and (
        isinstance(tstamp, bool)
        or not isinstance(tstamp, (int, float))
        or not math.isfinite(tstamp)
        or not 0 <= tstamp <= LATEST_TSTAMP
    ):
        raise _fail(
            line, "tstamp", f"expected epoch seconds (0 to {LATEST_TSTAMP}, the end of year 9999), got {tstamp!r:.40}"
        )
    judge = _given(row, "judge", row.get("judge_hash"))
    for name, value in (("judge", judge), ("language", row.get("language")), ("intent", row.get("intent"))):
        if value is not None and not isinstance(value, str):
            raise _fail(line, name, f"expected text, got {_kind(value)}")
    return TextArenaRow(
        question_id=str(row[key]),
        model_a=names[0],
        model_b=names[1],
        winner=row["winner"],
        judge=judge or "",
        turns_a=turns_a,
        turns_b=turns_b,
        turn=turn,
        anony=anony,
        language=row.get("language") or "",
        tstamp=float(tstamp) if tstamp is not None else None,
        dedup_sampled=_dedup_sampled(row.get("dedup_tag"), line),
        intent=row.get("intent") or "",
        row=dict(row),
    )


def _given(row: dict[str, Any], name: str, default: Any) -> Any:
    """A field's value, or ``default`` when the row lacks it or gives it as null (a Parquet file has every
    column in every row: a row of the 140k release without ``judge`` or ``anony`` reads as null there)."""
    value = row.get(name)
    return default if value is None else value


def _dedup_sampled(tag: Any, line: int) -> bool:
    if tag is None:
        return True
    if isinstance(tag, str):  # the 100k release stores its tags as JSON text
        try:
            tag = json.loads(tag)
        except json.JSONDecodeError:
            raise _fail(line, "dedup_tag", "text that is not JSON") from None
    if not isinstance(tag, dict) or not isinstance(tag.get("sampled", True), bool):
        raise _fail(line, "dedup_tag", f'expected {{"high_freq": bool, "sampled": bool}}, got {tag!r:.60}')
    return bool(tag.get("sampled", True))


def _records(path: Path) -> Iterator[tuple[int, Any]]:
    if path.suffix == ".jsonl":
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if line.strip():
                    try:
                        yield number, json.loads(line)
                    except json.JSONDecodeError as exc:
                        raise DatasetError(
                            f"{path.name} row {number}: not valid JSON ({exc.msg} at column {exc.colno})"
                        ) from None
    elif path.suffix == ".json":
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{path.name}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
        if not isinstance(data, list):
            raise DatasetError(f"{path.name}: expected a JSON array of battles, got {_kind(data)}")
        yield from enumerate(data, start=1)
    elif path.suffix == ".parquet":
        yield from _parquet_records(path)
    else:
        raise DatasetError(f"{path.name}: unknown format; use .json (an array), .jsonl or .parquet")


def _parquet_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a Parquet file, from its size and its first and last bytes (None: it may be one)."""
    size = path.stat().st_size
    if size == 0:
        return "the file is empty (0 bytes); expected a Parquet file of battles"
    with path.open("rb") as handle:
        head = handle.read(len(PARQUET_MAGIC))
        handle.seek(max(0, size - len(PARQUET_MAGIC)))
        tail = handle.read()
    if head != PARQUET_MAGIC:
        return f"not a Parquet file (a Parquet file begins with {PARQUET_MAGIC.decode()}; this one with {head!r})"
    if tail != PARQUET_MAGIC or size < 3 * len(PARQUET_MAGIC):
        return (
            f"the Parquet file is cut short ({size} bytes, its end with the footer missing); copy or download it again"
        )
    return None


def _parquet_records(path: Path) -> Iterator[tuple[int, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if problem := _parquet_problem(path):
        raise DatasetError(f"{path.name}: {problem}")
    number = 0
    try:
        for batch in pq.ParquetFile(path).iter_batches(batch_size=1024):
            for record in batch.to_pylist():
                number += 1
                yield number, record
    except (pa.ArrowException, OSError) as exc:  # a damaged footer or page; the message is pyarrow's first line
        where = f"after row {number}" if number else "before its first row"
        raise DatasetError(
            f"{path.name}: the Parquet file is damaged {where} ({str(exc).splitlines()[0][:200]})"
        ) from None


def read_rows(path: str | Path) -> list[TextArenaRow]:
    """Every battle of a released file, checked: a DatasetError names the file, the problem and, for a bad
    row, the row (counted from 1) and the field."""
    path = Path(path)
    rows = []
    try:
        for number, record in _records(path):
            try:
                rows.append(validate_row(record, number))
            except DatasetError as exc:
                raise DatasetError(f"{path.name} {exc}") from None
    except UnicodeDecodeError as exc:
        raise DatasetError(
            f"{path.name}: not UTF-8 text (byte {exc.object[exc.start : exc.start + 1]!r} cannot be read)"
        ) from None
    return rows


def write_jsonl(rows: Iterable[dict[str, Any]], path: str | Path) -> int:
    """Write rows (checked first) as JSON lines; returns the count."""
    checked = [validate_row(row, number).row for number, row in enumerate(rows, start=1)]
    with Path(path).open("w", encoding="utf-8") as handle:
        for row in checked:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(checked)


__all__ = ["ID_FIELDS", "REQUIRED", "TextArenaRow", "conversation_turns", "read_rows", "validate_row", "write_jsonl"]
