"""Import of LiveCodeBench's released code-generation format into Multi-LCB items.

One JSON object per line (LCB's ``test*.jsonl``), accepted unchanged. Every field is kept in the item
payload; ``public_test_cases``, ``private_test_cases`` and ``metadata`` are decoded once here and
stored as plain JSON (lists of ``{input, output, testtype}`` and a dict). Private tests come either
as a JSON string or in the official compressed encoding ``base64 -> zlib -> pickle -> JSON string``;
the pickle is read with ``_NoGlobalsUnpickler``, whose ``find_class`` always raises, so a pickle can
only ever produce plain strings, numbers and containers and no code named by the file can run.

Each problem becomes one ``Item`` per language, id ``f"{question_id}/{language}"``; the problem's
fields are the items' shared part (``Item.shared_key`` is the question id), so an items file holds
each problem's tests once, not once per language.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickle
import zlib
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from evaluators.core.types import DatasetError, Item

PLATFORMS: tuple[str, ...] = ("leetcode", "codeforces", "atcoder")
DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard")
TEST_TYPES: tuple[str, ...] = ("stdin", "functional")
#: largest decompressed private-test blob accepted for one problem (a guard against zlib bombs)
MAX_DECOMPRESSED_BYTES = 1024 * 1024 * 1024
_REQUIRED_TEXT = ("question_title", "question_content")


class _NoGlobalsUnpickler(pickle.Unpickler):
    """An unpickler that refuses every global, so loading can build only str/bytes/numbers/containers."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"the pickle names the global {module}.{name}; refused")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("the pickle uses a persistent id; refused")


def _record_name(line: int, question_id: str | None) -> str:
    return f"line {line}" + (f" (question_id {question_id!r})" if question_id else "")


def decode_compressed_tests(text: str) -> str:
    """Decode LCB's ``base64(zlib(pickle(json_string)))`` into the JSON string. Raises ValueError."""
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=False)
    except (binascii.Error, UnicodeEncodeError, ValueError) as exc:
        raise ValueError(f"not base64 ({exc})") from None
    try:
        inflater = zlib.decompressobj()
        blob = inflater.decompress(raw, MAX_DECOMPRESSED_BYTES)
        if inflater.unconsumed_tail:
            raise ValueError(f"decompresses to more than {MAX_DECOMPRESSED_BYTES:,} bytes")
        blob += inflater.flush()
    except zlib.error as exc:
        raise ValueError(f"not zlib data ({exc})") from None
    try:
        value = _NoGlobalsUnpickler(io.BytesIO(blob)).load()
    except pickle.UnpicklingError as exc:
        raise ValueError(f"refused pickle: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - any malformed pickle is a data error
        raise ValueError(f"not a valid pickle ({type(exc).__name__}: {exc})") from None
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="strict")
    if not isinstance(value, str):
        raise ValueError(f"the pickle holds a {type(value).__name__}, expected the JSON string of the tests")
    return value


def _check_tests(tests: Any, where: str, fld: str) -> list[dict[str, Any]]:
    if not isinstance(tests, list):
        raise DatasetError(f"{where}, field '{fld}': expected a list of test cases, got {type(tests).__name__}")
    checked: list[dict[str, Any]] = []
    for index, test in enumerate(tests):
        if not isinstance(test, dict):
            raise DatasetError(f"{where}, field '{fld}': test {index} is not an object")
        for key in ("input", "output"):
            if not isinstance(test.get(key), str):
                raise DatasetError(f"{where}, field '{fld}': test {index} has no string '{key}'")
        testtype = test.get("testtype", "stdin")
        if testtype not in TEST_TYPES:
            raise DatasetError(
                f"{where}, field '{fld}': test {index} has testtype {testtype!r} (expected {' or '.join(TEST_TYPES)})"
            )
        checked.append({**test, "testtype": testtype})
    return checked


def decode_tests(value: Any, where: str, fld: str, *, allow_compressed: bool) -> list[dict[str, Any]]:
    """Decode a test-case field (JSON string, compressed string or already a list) into a list."""
    if isinstance(value, list):
        return _check_tests(value, where, fld)
    if value is None or (isinstance(value, str) and not value.strip()):
        return []
    if not isinstance(value, str):
        raise DatasetError(f"{where}, field '{fld}': expected a JSON string, got {type(value).__name__}")
    try:
        decoded = json.loads(value)
    except json.JSONDecodeError as plain_error:
        if not allow_compressed:
            raise DatasetError(f"{where}, field '{fld}': not valid JSON ({plain_error.msg})") from None
        try:
            decoded = json.loads(decode_compressed_tests(value.strip()))
        except ValueError as exc:
            raise DatasetError(f"{where}, field '{fld}': neither JSON nor LCB's compressed encoding ({exc})") from None
    return _check_tests(decoded, where, fld)


def parse_problem(record: Any, line: int) -> dict[str, Any]:
    """Validate one release record and return the problem with decoded tests and metadata."""
    if not isinstance(record, dict):
        raise DatasetError(f"line {line}: each line must be one JSON object")
    raw_id = record.get("question_id")
    if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)) or not str(raw_id).strip():
        raise DatasetError(f"line {line}, field 'question_id': missing or not a non-empty string")
    question_id = str(raw_id).strip()
    if "/" in question_id or any(ch.isspace() for ch in question_id):
        raise DatasetError(f"{_record_name(line, question_id)}, field 'question_id': must not contain '/' or spaces")
    where = _record_name(line, question_id)
    for fld in _REQUIRED_TEXT:
        if not isinstance(record.get(fld), str):
            raise DatasetError(f"{where}, field '{fld}': missing or not a string")
    platform = record.get("platform")
    if platform not in PLATFORMS:
        raise DatasetError(f"{where}, field 'platform': {platform!r} is not one of {', '.join(PLATFORMS)}")
    difficulty = record.get("difficulty")
    if difficulty not in DIFFICULTIES:
        raise DatasetError(f"{where}, field 'difficulty': {difficulty!r} is not one of {', '.join(DIFFICULTIES)}")
    contest_date = record.get("contest_date")
    try:
        if not isinstance(contest_date, str):
            raise ValueError
        parsed_date = datetime.fromisoformat(contest_date.strip().replace("Z", "+00:00"))
    except ValueError:
        raise DatasetError(f"{where}, field 'contest_date': {contest_date!r} is not an ISO date") from None
    starter_code = record.get("starter_code", "")
    if starter_code is None:
        starter_code = ""
    if not isinstance(starter_code, str):
        raise DatasetError(f"{where}, field 'starter_code': not a string")
    metadata: Any = record.get("metadata", {})
    if metadata is None or metadata == "":
        metadata = {}
    if isinstance(metadata, str):
        try:
            metadata = json.loads(metadata)
        except json.JSONDecodeError as exc:
            raise DatasetError(f"{where}, field 'metadata': not valid JSON ({exc.msg})") from None
    if not isinstance(metadata, dict):
        raise DatasetError(f"{where}, field 'metadata': expected a JSON object")
    if "public_test_cases" not in record:
        raise DatasetError(f"{where}, field 'public_test_cases': missing")
    if "private_test_cases" not in record:
        raise DatasetError(f"{where}, field 'private_test_cases': missing")
    public = decode_tests(record["public_test_cases"], where, "public_test_cases", allow_compressed=False)
    private = decode_tests(record["private_test_cases"], where, "private_test_cases", allow_compressed=True)
    if not public and not private:
        raise DatasetError(f"{where}, field 'private_test_cases': the problem has no test cases")
    problem = dict(record)
    problem.update(
        {
            "question_id": question_id,
            "contest_date": contest_date,
            "starter_code": starter_code,
            "metadata": metadata,
            "public_test_cases": public,
            "private_test_cases": private,
            "contest_day": parsed_date.date().isoformat(),
        }
    )
    return problem


def iter_problems(path: Path) -> Iterator[dict[str, Any]]:
    """Every problem of a release file, validated, in file order."""
    seen: dict[str, int] = {}
    try:
        handle = path.open(encoding="utf-8")
    except OSError as exc:
        raise DatasetError(f"{path}: cannot be read ({exc.strerror})") from None
    with handle:
        try:
            for line_number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise DatasetError(
                        f"line {line_number}: not valid JSON ({exc.msg} at column {exc.colno})"
                    ) from None
                problem = parse_problem(record, line_number)
                qid = problem["question_id"]
                if qid in seen:
                    raise DatasetError(
                        f"{_record_name(line_number, qid)}, field 'question_id': duplicate of line {seen[qid]}"
                    )
                seen[qid] = line_number
                yield problem
        except UnicodeDecodeError as exc:
            raise DatasetError(f"{path.name}: not valid UTF-8 ({exc.reason})") from None
    if not seen:
        raise DatasetError(f"{path.name}: the release holds no problems")


def problem_items(problem: dict[str, Any], languages: Sequence[str]) -> Iterator[Item]:
    """One item per language for a decoded problem. The problem's fields (statement, tests) are the
    items' shared part, kept once in an items file under the question id; each item adds its language."""
    day = problem.get("contest_day") or str(problem["contest_date"])[:10]
    shared_fields = tuple(sorted(key for key in problem if key != "language"))
    for language in languages:
        yield Item(
            id=f"{problem['question_id']}/{language}",
            slices={
                "language": language,
                "difficulty": str(problem["difficulty"]),
                "platform": str(problem["platform"]),
                "contest_date": day,
            },
            payload={**problem, "language": language},
            shared_key=str(problem["question_id"]),
            shared_fields=shared_fields,
        )


def iter_release_items(path: Path, languages: Sequence[str]) -> Iterator[Item]:
    """Every (problem, language) item of an LCB release file."""
    for problem in iter_problems(path):
        yield from problem_items(problem, languages)


def encode_compressed_tests(tests: Iterable[dict[str, Any]]) -> str:
    """LCB's compressed encoding of a test list (used by tests and the sample-release builder)."""
    return base64.b64encode(zlib.compress(pickle.dumps(json.dumps(list(tests))))).decode("ascii")
