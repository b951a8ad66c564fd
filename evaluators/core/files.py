"""Reading and writing the two JSONL formats every benchmark shares.

- Items file: normalized ``Item``s, one a line, with the parts several items share written once
  (what a DatasetVersion stores; written and read by ``evaluators.core.itemstore``, re-exported here).
- Predictions file: one model output per line, ``{"item_id": ..., "output": ..., "sample_index": 0}``
  (``sample_index`` optional), with optional ``error_kind``/``error`` (why the output is not a plain
  answer) and ``transcript`` (every stage of a multi-turn item; see evaluators.core.turns).
  ``parse_predictions`` checks it completely against the items and reports every problem with its line
  and field, so nothing is queued from a bad file.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from evaluators.core.itemstore import CHUNK_BYTES, ItemsFile, file_sha256, open_items, read_items, write_items
from evaluators.core.turns import transcript_problems
from evaluators.core.types import OUTPUT_ERROR_KINDS, Prediction, PredictionsError, Stage

MAX_PREDICTIONS_BYTES = 64 * 1024 * 1024
MAX_PROBLEMS_REPORTED = 50
#: the largest sample index a predictions file may use (pass@k needs a few samples, never 10**30)
MAX_SAMPLE_INDEX = 1023
__all__ = [
    "CHUNK_BYTES",
    "MAX_PREDICTIONS_BYTES",
    "ItemsFile",
    "file_sha256",
    "iter_jsonl",
    "open_items",
    "parse_predictions",
    "read_items",
    "read_predictions_file",
    "storable_text",
    "write_items",
]
_ALLOWED_FIELDS = ("item_id", "output", "sample_index", "error_kind", "error", "transcript")
#: a problem found in a predictions file: its line (None: the whole file), its field and what is wrong
_Problem = tuple[int | None, str | None, str]


def storable_text(text: str) -> str:
    """``text`` with NUL characters replaced by U+FFFD: PostgreSQL's text and jsonb cannot hold NUL, and
    a model with random weights (or a hostile predictions file) does write it. Every model output is
    passed through here before it is stored or scored."""
    return text.replace("\x00", "\ufffd") if "\x00" in text else text


def parse_predictions(
    data: bytes, item_ids: Iterable[str], *, max_bytes: int = MAX_PREDICTIONS_BYTES, require_all: bool = True
) -> list[Prediction]:
    """Validate a whole predictions file and return its predictions, or raise PredictionsError
    listing every problem found (line numbers start at 1)."""
    text = _decoded(data, max_bytes)
    known = set(item_ids)
    problems: list[_Problem] = []
    predictions: list[Prediction] = []
    seen: dict[tuple[str, int], int] = {}
    # lines end at "\n" only: str.splitlines() would also split inside a JSON string holding a raw
    # U+2028, U+2029 or U+0085 (valid JSON), refusing a valid file and shifting line numbers
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if len(problems) >= MAX_PROBLEMS_REPORTED:
            break
        if not line.strip():
            continue
        prediction, found = _line_prediction(number, line, known)
        problems.extend(found)
        if prediction is None:
            continue
        key = (prediction.item_id, prediction.sample_index)
        if key in seen:
            problems.append(
                (
                    number,
                    "item_id",
                    f"duplicate of line {seen[key]} (item '{prediction.item_id[:80]}', "
                    f"sample {prediction.sample_index})",
                )
            )
            continue
        seen[key] = number
        predictions.append(prediction)
    if not problems and not predictions:
        problems.append((None, None, "the file holds no predictions"))
    if not problems and require_all:
        missing = sorted(known - {item for item, _ in seen})
        if missing:
            shown = ", ".join(missing[:10]) + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
            problems.append((None, "item_id", f"{len(missing)} item(s) have no prediction: {shown}"))
    if problems:
        raise PredictionsError(problems)
    return predictions


def _decoded(data: bytes, max_bytes: int) -> str:
    """The file's text, refused (PredictionsError) when it is over ``max_bytes`` or not UTF-8; a leading
    byte-order mark dropped."""
    if len(data) > max_bytes:
        raise PredictionsError([(None, None, f"the file is {len(data):,} bytes; the limit is {max_bytes:,} bytes")])
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad_line = data[: exc.start].count(b"\n") + 1
        raise PredictionsError(
            [(bad_line, None, f"not valid UTF-8 (byte {exc.start}); save the file as UTF-8")]
        ) from None
    return text[1:] if text.startswith("\ufeff") else text  # a byte-order mark some editors write


def _line_prediction(number: int, line: str, known: set[str]) -> tuple[Prediction | None, list[_Problem]]:
    """One non-blank line ``number`` checked on its own: its prediction (None when a problem stops the
    reading) and its problems, an unknown field among them without stopping it."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        return None, [(number, None, f"not valid JSON ({exc.msg} at column {exc.colno})")]
    except RecursionError:
        return None, [(number, None, "not valid JSON here (nested too deeply)")]
    if not isinstance(record, dict):
        return None, [(number, None, "each line must be one JSON object")]
    problems: list[_Problem] = [
        (number, extra, f"unknown field (allowed: {', '.join(_ALLOWED_FIELDS)})")
        for extra in sorted(set(record) - set(_ALLOWED_FIELDS))
    ]
    item_id = record.get("item_id")
    if not isinstance(item_id, str) or not item_id:
        return None, [*problems, (number, "item_id", "missing or not a non-empty string")]
    if item_id not in known:
        return None, [*problems, (number, "item_id", f"unknown item id '{item_id[:80]}' (not in this dataset version)")]
    output = record.get("output")
    if not isinstance(output, str):
        return None, [*problems, (number, "output", "missing or not a string")]
    sample_index = record.get("sample_index", 0)
    if isinstance(sample_index, bool) or not isinstance(sample_index, int) or not 0 <= sample_index <= MAX_SAMPLE_INDEX:
        return None, [*problems, (number, "sample_index", f"must be an integer from 0 to {MAX_SAMPLE_INDEX}")]
    error_kind, error = record.get("error_kind", ""), record.get("error", "")
    if error_kind not in ("", *OUTPUT_ERROR_KINDS):
        return None, [*problems, (number, "error_kind", f"must be empty or one of {', '.join(OUTPUT_ERROR_KINDS)}")]
    if not isinstance(error, str):
        return None, [*problems, (number, "error", "must be a string")]
    transcript: tuple[Stage, ...] = ()
    if "transcript" in record:
        found, transcript = transcript_problems(record["transcript"], output)
        if found:
            return None, [*problems, *((number, fld, message) for fld, message in found)]
    return Prediction(
        item_id=item_id,
        output=storable_text(output),
        sample_index=sample_index,
        error_kind=error_kind,
        error=storable_text(error),
        transcript=tuple(_storable_stage(stage) for stage in transcript),
    ), problems


def _storable_stage(stage: Stage) -> Stage:
    """A transcript stage with NUL characters out of every text it holds (see storable_text)."""
    return Stage.from_dict(_storable_json(stage.to_dict()))


def _storable_json(value: Any) -> Any:
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, list):
        return [_storable_json(v) for v in value]
    if isinstance(value, dict):
        return {storable_text(str(k)): _storable_json(v) for k, v in value.items()}
    return value


def read_predictions_file(path: Path, item_ids: Iterable[str]) -> list[Prediction]:
    return parse_predictions(path.read_bytes(), item_ids)


def iter_jsonl(handle: IO[str]) -> Iterator[dict[str, Any]]:
    for line in handle:
        if line.strip():
            yield json.loads(line)
