"""Tests of the LCB release import: plain and compressed private tests, every field kept, clear
errors for malformed records, and refusal of pickles that name any global."""

from __future__ import annotations

import base64
import datetime
import json
import os
import pickle
import zlib
from pathlib import Path
from typing import Any

import pytest

from evaluators.core.types import DatasetError
from evaluators.multi_lcb.evaluator import MultiLCBEvaluator
from evaluators.multi_lcb.prompts import LANGUAGE_KEYS
from evaluators.multi_lcb.release import encode_compressed_tests, iter_problems, iter_release_items

PUBLIC = [{"input": "3 5\n", "output": "8\n", "testtype": "stdin"}]
PRIVATE = [
    {"input": "1 1\n", "output": "2\n", "testtype": "stdin"},
    {"input": "0 0\n", "output": "0\n", "testtype": "stdin"},
]


def record(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "question_title": "Sum",
        "question_content": "Print A+B.",
        "platform": "atcoder",
        "question_id": "abc001_a",
        "contest_id": "abc001",
        "contest_date": "2023-08-12T00:00:00",
        "starter_code": "",
        "difficulty": "easy",
        "public_test_cases": json.dumps(PUBLIC),
        "private_test_cases": json.dumps(PRIVATE),
        "metadata": "{}",
        "extra_field": [1, 2],
    }
    base.update(overrides)
    return base


def write(tmp_path: Path, *records: Any) -> Path:
    path = tmp_path / "release.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


def test_one_item_per_language_with_fields_kept(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        record(),
        record(question_id="3001", platform="leetcode", difficulty="hard", metadata=json.dumps({"func_name": "f"})),
    )
    items = list(MultiLCBEvaluator().import_release(path))
    assert len(items) == 2 * 12
    assert [i.id for i in items[:12]] == [f"abc001_a/{lang}" for lang in LANGUAGE_KEYS]
    first = items[1]
    assert first.slices == {
        "language": "cpp",
        "difficulty": "easy",
        "platform": "atcoder",
        "contest_date": "2023-08-12",
    }
    assert first.payload["public_test_cases"] == PUBLIC
    assert first.payload["private_test_cases"] == PRIVATE
    assert first.payload["extra_field"] == [1, 2] and first.payload["contest_id"] == "abc001"
    assert first.payload["question_title"] == "Sum" and first.payload["metadata"] == {}
    assert items[12].payload["metadata"] == {"func_name": "f"}
    json.dumps([i.to_dict() for i in items])  # plain JSON only


def test_language_subset(tmp_path: Path) -> None:
    items = list(MultiLCBEvaluator(languages=["rust", "python"]).import_release(write(tmp_path, record())))
    assert [i.id for i in items] == ["abc001_a/python", "abc001_a/rust"]


def test_compressed_private_tests_are_decoded(tmp_path: Path) -> None:
    encoded = base64.b64encode(zlib.compress(pickle.dumps(json.dumps(PRIVATE)))).decode()
    items = list(iter_release_items(write(tmp_path, record(private_test_cases=encoded)), ["python"]))
    assert items[0].payload["private_test_cases"] == PRIVATE
    json.dumps(items[0].payload)
    again = list(
        iter_release_items(write(tmp_path, record(private_test_cases=encode_compressed_tests(PRIVATE))), ["go"])
    )
    assert again[0].payload["private_test_cases"] == PRIVATE


def test_sample_release_imports() -> None:
    evaluator = MultiLCBEvaluator()
    problems = list(iter_problems(evaluator.presentation().sample_dataset()))
    assert len(problems) >= 20
    for problem in problems:
        assert problem["public_test_cases"] or problem["private_test_cases"]


class Evil:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (os.system, (f"touch {self.marker}",))


def test_malicious_pickle_is_refused_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    payload = pickle.dumps(Evil(marker))
    assert b"system" in payload
    encoded = base64.b64encode(zlib.compress(payload)).decode()
    path = write(tmp_path, record(private_test_cases=encoded))
    with pytest.raises(DatasetError) as caught:
        list(iter_problems(path))
    message = str(caught.value)
    assert "line 1" in message and "abc001_a" in message and "private_test_cases" in message
    assert "refused" in message and "system" in message
    assert not marker.exists()


def test_pickle_naming_a_harmless_global_is_refused_too(tmp_path: Path) -> None:
    encoded = base64.b64encode(zlib.compress(pickle.dumps([datetime.date(2024, 1, 1), "x"]))).decode()
    with pytest.raises(DatasetError, match="refused"):
        list(iter_problems(write(tmp_path, record(private_test_cases=encoded))))


def test_pickle_of_non_string_is_refused(tmp_path: Path) -> None:
    encoded = base64.b64encode(zlib.compress(pickle.dumps(12))).decode()
    with pytest.raises(DatasetError, match="expected the JSON string"):
        list(iter_problems(write(tmp_path, record(private_test_cases=encoded))))


@pytest.mark.parametrize(
    "overrides,expected",
    [
        ({"question_id": ""}, r"line 2, field 'question_id': missing"),
        ({"question_id": "a/b"}, r"field 'question_id': must not contain"),
        ({"platform": "topcoder"}, r"line 2 \(question_id 'bad'\), field 'platform': 'topcoder' is not one of"),
        ({"difficulty": "insane"}, r"field 'difficulty'"),
        ({"contest_date": "yesterday"}, r"field 'contest_date': 'yesterday' is not an ISO date"),
        ({"question_content": None}, r"field 'question_content': missing or not a string"),
        ({"public_test_cases": "[{"}, r"field 'public_test_cases': not valid JSON"),
        (
            {"public_test_cases": json.dumps([{"input": "1"}])},
            r"field 'public_test_cases': test 0 has no string 'output'",
        ),
        ({"public_test_cases": json.dumps([{"input": "1", "output": "2", "testtype": "magic"}])}, r"testtype 'magic'"),
        ({"public_test_cases": json.dumps({"input": "1"})}, r"expected a list of test cases"),
        ({"private_test_cases": "%%%not base64%%%"}, r"field 'private_test_cases': neither JSON nor LCB's compressed"),
        ({"private_test_cases": base64.b64encode(b"not zlib").decode()}, r"not zlib data"),
        ({"metadata": "{oops"}, r"field 'metadata': not valid JSON"),
        ({"metadata": "[1]"}, r"field 'metadata': expected a JSON object"),
        ({"public_test_cases": "[]", "private_test_cases": "[]"}, r"has no test cases"),
    ],
)
def test_malformed_records_name_line_question_and_field(
    tmp_path: Path, overrides: dict[str, Any], expected: str
) -> None:
    path = write(tmp_path, record(question_id="good"), record(question_id="bad") | overrides)
    with pytest.raises(DatasetError, match=expected):
        list(iter_problems(path))


def test_missing_field_and_bad_lines(tmp_path: Path) -> None:
    broken = record()
    del broken["private_test_cases"]
    with pytest.raises(DatasetError, match=r"line 1 \(question_id 'abc001_a'\), field 'private_test_cases': missing"):
        list(iter_problems(write(tmp_path, broken)))
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(record()) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"line 2: not valid JSON"):
        list(iter_problems(path))
    with pytest.raises(DatasetError, match=r"line 1: each line must be one JSON object"):
        list(iter_problems(write(tmp_path, [1, 2])))
    with pytest.raises(DatasetError, match=r"line 2 .*duplicate of line 1"):
        list(iter_problems(write(tmp_path, record(), record())))
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(DatasetError, match="no problems"):
        list(iter_problems(empty))
