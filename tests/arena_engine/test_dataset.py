"""The released dataset's schema: validation errors, lossless JSONL/Parquet round trip, battles."""

from __future__ import annotations

import copy
import json
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evaluators.arena.dataset import (
    CONVERSATION_FIELDS,
    battles_from_rows,
    read_rows,
    validate_row,
    write_jsonl,
    write_parquet,
)
from evaluators.core.types import DatasetError


def metadata(conv: str, name: str, trace: list, *, standardized: bool | None = True, extra: dict | None = None) -> dict:
    return {
        "citation_format_standardized": standardized,
        "client_country": None if standardized is None else "DE",
        "conv_id": conv,
        "formatted_messages": [{"role": "user", "content": "q"}, {"role": "assistant", "content": None}],
        "llm_config": {
            "name": name,
            "params": {"temperature": 0.7, "search": {"depth": "high", "domains": ["a", None]}},
        },
        "web_search_trace": trace,
        **(extra or {}),
    }


def sample_rows() -> list[dict]:
    first = {
        "model_a": "sonar-pro",
        "model_b": "gpt-4o-search",
        "winner": "model_a",
        "judge": "3f2a",
        "turn": 2,
        "timestamp": "2025-04-01T10:00:00+00:00",
        "messages_a": [
            {"role": "user", "content": "Who won?"},
            {"role": "assistant", "content": "## Result\n- **A** won [1]"},
            {"role": "user", "content": "Why?"},
            {"role": "assistant", "content": "Because [2]."},
        ],
        "messages_b": [
            {"role": "user", "content": "Who won?"},
            {"role": "assistant", "content": "B.", "citations": [1, 2]},
            {"role": "user", "content": "Why?"},
            {"role": "assistant", "content": None},
        ],
        "system_a_metadata": metadata(
            "c1",
            "sonar-pro",
            [[["[1]", "https://en.wikipedia.org/wiki/X"]], [["[2]", "https://www.youtube.com/watch?v=1"]]],
            extra={"answers": [{"queries": ["who won"], "latency_s": 1.5, "error": None}]},
        ),
        "system_b_metadata": metadata("c1", "gpt-4o-search", [[], []], standardized=False),
        "primary_intent": "Factual Lookup",
        "secondary_intent": None,
        "languages": ["en", "de"],
        "arena": {"propensity": 0.25, "valid": True, "exclusion_reasons": [], "statuses": [["complete", "complete"]]},
    }
    second = {
        **copy.deepcopy(first),
        "winner": None,
        "judge": None,
        "languages": None,
        "primary_intent": None,
        "arena": {"valid": None},
        "timestamp": None,
    }
    third = {**copy.deepcopy(first), "winner": "tie (bothbad)", "arena": {"propensity": 0.5, "valid": False}}
    return [first, second, third]


def test_round_trip_jsonl_parquet_jsonl_loses_nothing(tmp_path):
    rows = sample_rows()
    first = tmp_path / "in.jsonl"
    first.write_text("".join(json.dumps(r) + "\n" for r in rows))
    parsed = list(read_rows(first))
    assert [r.to_dict() for r in parsed] == rows  # exactly the released keys plus ours, nothing renamed
    assert write_parquet(parsed, tmp_path / "rows.parquet") == 3
    again = list(read_rows(tmp_path / "rows.parquet"))
    assert again == parsed
    write_jsonl(again, tmp_path / "out.jsonl")
    assert [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()] == rows
    assert list(rows[0])[: len(CONVERSATION_FIELDS)] == list(CONVERSATION_FIELDS)


def test_writers_accept_dicts_and_validate_them(tmp_path):
    rows = sample_rows()
    write_jsonl(rows, tmp_path / "a.jsonl")
    assert [r.to_dict() for r in read_rows(tmp_path / "a.jsonl")] == rows
    bad = copy.deepcopy(rows)
    bad[1]["turn"] = "two"
    with pytest.raises(DatasetError, match=r"row 2: field 'turn'"):
        write_parquet(bad, tmp_path / "b.parquet")


def test_released_parquet_with_nested_structs_is_read(tmp_path):
    row = sample_rows()[0]
    pq.write_table(pa.Table.from_pylist([row]), tmp_path / "released.parquet")  # arrow infers structs, as in a release
    [parsed] = read_rows(tmp_path / "released.parquet")
    assert parsed.system_a_metadata.llm_config["params"]["temperature"] == 0.7
    assert parsed.system_a_metadata.urls() == ["https://en.wikipedia.org/wiki/X", "https://www.youtube.com/watch?v=1"]


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda r: r.pop("model_a"), "row 7: field 'model_a': missing"),
        (lambda r: r.update(winner="model_c"), "row 7: field 'winner': 'model_c' is not one of"),
        (lambda r: r.update(turn=-1), "row 7: field 'turn'"),
        (lambda r: r["messages_a"][1].pop("role"), r"row 7: field 'messages_a\[1\].role': missing"),
        (
            lambda r: r["messages_b"].__setitem__(0, {"role": 3, "content": "x"}),
            r"row 7: field 'messages_b\[0\].role': expected text",
        ),
        (
            lambda r: r["system_a_metadata"]["web_search_trace"][0].append(["[3]"]),
            r"system_a_metadata.web_search_trace\[0\]\[1\]",
        ),
        (
            lambda r: r["system_b_metadata"].update(citation_format_standardized="yes"),
            "system_b_metadata.citation_format_standardized",
        ),
        (
            lambda r: r["system_b_metadata"]["llm_config"].update(params=[1]),
            "system_b_metadata.llm_config.params': expected an object",
        ),
        (lambda r: r.update(languages="en"), "row 7: field 'languages': expected a list"),
        (lambda r: r.update(timestamp=[2025]), "row 7: field 'timestamp'"),
    ],
)
def test_validation_errors_name_row_and_field(change, message):
    row = sample_rows()[0]
    change(row)
    with pytest.raises(DatasetError, match=message):
        validate_row(row, 7)


def test_bad_json_line_and_unknown_format(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(sample_rows()[0]) + "\n\n{not json\n")
    with pytest.raises(DatasetError, match=re.escape("bad.jsonl row 3: not valid JSON")):
        list(read_rows(path))
    with pytest.raises(DatasetError, match="unknown format"):
        list(read_rows(tmp_path / "rows.csv"))


def test_epoch_timestamps_become_iso_text():
    row = sample_rows()[0]
    row["timestamp"] = 0
    assert validate_row(row, 1).timestamp == "1970-01-01T00:00:00+00:00"


def test_battles_from_rows_computes_style_features_and_weights():
    rows = [validate_row(r, i) for i, r in enumerate(sample_rows(), start=1)]
    [battle] = battles_from_rows(rows)  # row 2 has no winner, row 3 is marked invalid
    assert (battle.model_a, battle.model_b, battle.winner, battle.weight) == (
        "sonar-pro",
        "gpt-4o-search",
        "model_a",
        4.0,
    )
    assert battle.intent == "Factual Lookup" and battle.language == "en"
    fa, fb = battle.features_a, battle.features_b
    assert fa["citation_count"] == 2 and fa["cites_wiki"] == 1 and fa["cites_youtube"] == 1 and fa["cites_us_news"] == 0
    assert fa["markdown_headers"] == 1 and fa["markdown_lists"] == 1 and fa["markdown_bold"] == 1
    assert fa["citation_style_standardized"] == 1 and fb["citation_style_standardized"] == 0
    assert fb["length"] == 1 and fb["citation_count"] == 0
