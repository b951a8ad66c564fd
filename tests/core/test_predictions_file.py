"""The predictions-file check: every problem is reported with its line and field."""

from __future__ import annotations

import json

import pytest

from evaluators.core import Prediction, PredictionsError
from evaluators.core.files import parse_predictions

IDS = ["p1/python", "p1/cpp", "p2/python"]


def lines(*records) -> bytes:
    return "\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records).encode()


def full(**extra) -> list[dict]:
    return [{"item_id": i, "output": "x", **extra} for i in IDS]


def test_valid_file_with_samples():
    data = lines(*full(), *full(sample_index=1))
    predictions = parse_predictions(data, IDS)
    assert len(predictions) == 6
    assert Prediction("p1/cpp", "x", 1) in predictions


def test_a_nul_character_in_an_output_is_replaced_so_postgres_can_store_it():
    """PostgreSQL's text and jsonb refuse NUL; random-weight models write it (vLLM's tiny model did)."""
    from evaluators.core.types import ModelRequest
    from evaluators.llm.types import ChatResult, Usage
    from leaderboard.runs.generation.sending import _outputs

    data = lines({"item_id": "p1/python", "output": "a\u0000b"}, *full()[1:])
    assert parse_predictions(data, IDS)[0].output == "a\ufffdb"
    answer = ChatResult(texts=["x\x00y"], finish_reason="stop", usage=Usage(3, 2), model="m", latency_s=0.1)
    [row] = _outputs(ModelRequest(item_id="p1/python", messages=[]), answer, [0, 0])
    assert row["output"] == "x\ufffdy"


@pytest.mark.parametrize(
    "data, line, field, words",
    [
        (lines({"item_id": "p1/python", "output": "x"}, "{not json", *full()[1:]), 2, None, "not valid JSON"),
        (lines(["a list"], *full()), 1, None, "one JSON object"),
        (lines({"item_id": "nope", "output": "x"}, *full()), 1, "item_id", "unknown item id 'nope'"),
        (lines({"output": "x"}, *full()), 1, "item_id", "missing"),
        (lines({"item_id": "p1/python", "output": 3}, *full()[1:]), 1, "output", "not a string"),
        (lines(*full(), {"item_id": "p1/python", "output": "y"}), 4, "item_id", "duplicate of line 1"),
        (
            lines({"item_id": "p1/python", "output": "x", "sample_index": -1}, *full()[1:]),
            1,
            "sample_index",
            "from 0 to 1023",
        ),
        (
            lines({"item_id": "p1/python", "output": "x", "sample_index": 10**30}, *full()[1:]),
            1,
            "sample_index",
            "from 0 to 1023",
        ),
        (lines("[" * 100_000, *full()), 1, None, "nested too deeply"),
        (
            lines({"item_id": "p1/python", "output": "x", "error_kind": "oops"}, *full()[1:]),
            1,
            "error_kind",
            "must be empty or one of",
        ),
        (
            lines(
                {"item_id": "p1/python", "output": "x", "transcript": [{"messages": [], "answer": "x"}]}, *full()[1:]
            ),
            1,
            "transcript[0].messages",
            "non-empty list",
        ),
        (
            lines(
                {
                    "item_id": "p1/python",
                    "output": "y",
                    "transcript": [{"messages": [{"role": "user", "content": "q"}], "answer": "x"}],
                },
                *full()[1:],
            ),
            1,
            "output",
            "must equal the transcript's last answer",
        ),
        (lines({"item_id": "p1/python", "output": "x", "score": 1}, *full()[1:]), 1, "score", "unknown field"),
        (lines(*full()[:2]), None, "item_id", "1 item(s) have no prediction: p2/python"),
        (b"", None, None, "no predictions"),
    ],
)
def test_problems_name_line_and_field(data, line, field, words):
    with pytest.raises(PredictionsError) as info:
        parse_predictions(data, IDS)
    assert any(p[0] == line and p[1] == field and words in p[2] for p in info.value.problems), info.value.problems


def test_separators_inside_json_strings_and_a_byte_order_mark_are_valid():
    """U+2028, U+2029 and U+0085 may appear raw inside a JSON string; a BOM may start the file. Lines
    end at newlines only, so neither refuses a valid file nor shifts the line numbers."""
    odd = "a\u2028b\u2029c\u0085d"
    data = "\ufeff".encode() + lines({"item_id": "p1/python", "output": odd}, *full()[1:]).replace(b"\n", b"\r\n")
    assert json.dumps(odd, ensure_ascii=False) in data.decode()  # written raw, not escaped
    predictions = parse_predictions(data, IDS)
    assert predictions[0].output == odd and len(predictions) == 3
    with pytest.raises(PredictionsError) as info:
        parse_predictions(lines({"item_id": "p1/python", "output": odd}, "{bad", *full()[1:]), IDS)
    assert info.value.problems[0][0] == 2  # the broken line is still line 2


def test_encoding_and_size_limits():
    with pytest.raises(PredictionsError, match="line 2: not valid UTF-8"):
        parse_predictions(b'{"item_id": "p1/python", "output": "x"}\n\xff\xfe', IDS)
    with pytest.raises(PredictionsError, match="limit is 10 bytes"):
        parse_predictions(lines(*full()), IDS, max_bytes=10)
