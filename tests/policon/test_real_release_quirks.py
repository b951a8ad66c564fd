"""PoliCon's importer on a fixture with every quirk of the real release (tests/policon/quirks.py): every
task imports, the gaps are listed in the dataset notes beside the paper's counts, the prompts show an
empty stance as not given; the released protocol (judge prompt v2, 10 retries, fallback 4) and the
method card that states it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evaluators.core import evaluator_for
from evaluators.core.evaluator import SettingsRefused
from evaluators.core.types import Prediction
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from evaluators.policon.prompts import NO_STANCE
from evaluators.policon.release import iter_tasks
from tests.policon.quirks import RECORD_KEYS, STANCE_KEYS, files, write_release
from tests.support.openai_server import OpenAIServer, Reply

EVALUATOR = evaluator_for("policon")


def test_the_fixture_has_the_released_record_layout():
    for relative, records in files().items():
        assert relative.split("/")[0] in {"2", "4", "6"} and relative.endswith(".json")
        for number, record in enumerate(records):
            assert record["id"] == number  # ids count from 0 in each released file
            assert set(record) == set(RECORD_KEYS) and all(isinstance(record[k], t) for k, t in RECORD_KEYS.items())
            for stance in record["stances"]:
                assert set(stance) == set(STANCE_KEYS)


def test_every_task_of_the_quirky_release_imports(tmp_path: Path):
    root = write_release(tmp_path)
    tasks = {t.key: t for t in iter_tasks(root)}
    assert sorted(tasks) == [
        "2/environment-public-health/0",
        "2/environment-public-health/1",
        "2/environment-public-health/2",
        "2/environment-public-health/3",
        "4/foreign-security-policy/0",
        "6/civil-liberties-justice-home-affairs/0",
    ]
    first = tasks["2/environment-public-health/0"]
    assert first.parties[0].stance == "Cleaner rivers by 2030."  # spaces and a new line around it, stripped
    assert first.title == "Water quality:\xa0a recommendation" and first.terms == ("8th_datas",)
    assert tasks["2/environment-public-health/1"].parties[0].stance == ""  # empty, kept
    assert (
        tasks["2/environment-public-health/2"].resolution == ""
        and tasks["4/foreign-security-policy/0"].resolution == ""
    )
    assert tasks["4/foreign-security-policy/0"].parties[0].choice == 9  # score 1.0, choice 9
    assert tasks["4/foreign-security-policy/0"].parties[2].score == 0.55  # a score as a string
    assert len(list(EVALUATOR.import_release(root))) == 6 * 5


def test_the_dataset_notes_list_each_gap_and_count_tasks_beside_the_paper(tmp_path: Path):
    notes = {
        n.heading: n
        for n in EVALUATOR.presentation().dataset_notes(list(EVALUATOR.import_release(write_release(tmp_path))))
    }
    counts = notes["Tasks imported beside the paper's counts"]
    # the paper's counts: 2,172 / 2,022 / 1,530 tasks with 2 / 4 / 6 parties
    assert counts.points == (
        "2 parties: 4 tasks (20 items); the paper: 2,172",
        "4 parties: 1 tasks (5 items); the paper: 2,022",
        "6 parties: 1 tasks (5 items); the paper: 1,530",
    )
    gaps = notes["What the release leaves empty (imported, not refused)"].points
    assert gaps == (
        "No stance: 2/environment-public-health/1 (2/environment & public health.json): EPP",
        "No resolution: 2/environment-public-health/2 (2/environment & public health.json)",
        "No resolution: 4/foreign-security-policy/0 (4/foreign & security policy.json)",
    )


def test_an_empty_stance_is_shown_as_not_given_to_the_model_and_the_judge(tmp_path: Path):
    item = next(
        i for i in EVALUATOR.import_release(write_release(tmp_path)) if i.id == "2/environment-public-health/1/sm"
    )
    [request] = EVALUATOR.build_requests(item, {})
    assert f"- EPP: {NO_STANCE}\n" in request.messages[-1]["content"]
    with OpenAIServer(lambda request: Reply(text="5")) as server:
        judge = Judge(JudgeSpec("judge", "r", "v1"), ChatClient(Endpoint(server.base_url, "judge")), concurrency=2)
        EVALUATOR.with_judge(judge).score_item(item, [Prediction(item.id, "The European Parliament raised x.")])
    asked = [r["messages"][-1]["content"] for r in server.requests]
    assert any("Party: EPP\n" in text and NO_STANCE in text for text in asked)


def test_the_default_judge_prompt_is_the_released_rubric_and_a_neutral_judge():
    item = next(iter(EVALUATOR.import_release(EVALUATOR.presentation().sample_dataset())))
    with OpenAIServer(lambda request: Reply(text="7")) as server:
        judge = Judge(JudgeSpec("judge", "r", "v1"), ChatClient(Endpoint(server.base_url, "judge")), concurrency=2)
        score = EVALUATOR.with_judge(judge).score_item(item, [Prediction(item.id, "The European Parliament raised y.")])
    system, user = server.requests[0]["messages"][0]["content"], server.requests[0]["messages"][-1]["content"]
    assert "belong to no party" in system and "member" not in system
    for fact in (
        "0-3:",
        "4-6:",
        "7-9:",
        "supports or opposes",
        'open with "The European Parliament"',
        "only restates the stances",
        "not a resolution at all gets 0",
        "at least half",
    ):
        assert fact in user, fact
    assert score.detail["judgements"][0]["prompt_version"] == "v2"  # whatever the judge's configured version
    assert EVALUATOR.environment() == {
        "judge_prompt": "policon-support@v2",
        "judge_retries": "10",
        "fallback_vote": "4",
    }


def test_the_drafting_prompt_carries_the_released_guidance():
    item = next(
        i for i in EVALUATOR.import_release(EVALUATOR.presentation().sample_dataset()) if i.slices["objective"] == "sm"
    )
    [request] = EVALUATOR.build_requests(item, {})
    text = request.messages[-1]["content"]
    assert "not the parties' real seats" in text and "in proportion to its share" in text
    assert "Where a party opposes the matter" in text and "conditions and limits" in text
    assert request.messages[0]["role"] == "system"


def test_the_method_card_states_the_released_protocol_and_each_deviation():
    card = {row.element: row for row in EVALUATOR.presentation().method_card()}
    for element in (
        "Drafting prompt",
        "Generation settings",
        "Judge model",
        "Judge prompt",
        "Retries of an unusable answer",
        "Fallback vote",
        "Pass rules (SM, 2/3M, VP)",
        "Headline figures",
        "Tasks",
        "Judge validation",
        "Baselines",
    ):
        assert element in card, element
    assert card["Fallback vote"].here == "as released" and "counts as 4" in card["Fallback vote"].released
    assert "Up to 10 retries" in card["Retries of an unusable answer"].here
    assert card["Judge prompt"].here.startswith("policon-support@v2")
    assert "2,172 / 2,022 / 1,530" in card["Tasks"].released and not card["Tasks"].deviates
    assert "4.999999999999999" in card["Pass rules (SM, 2/3M, VP)"].why
    assert "gpt-4o-mini-2024-07-18" in card["Judge model"].released
    assert all(row.why for row in card.values() if row.deviates) and all(row.source for row in card.values())
    old = {row.element: row for row in EVALUATOR.configured({"judge_prompt": "v1"}).presentation().method_card()}
    assert (
        old["Judge prompt"].here.startswith("policon-support@v1")
        and old["Fallback vote"].here == "The vote counts as 0"
    )
    with pytest.raises(SettingsRefused, match="'judge_prompt': 'v3' is not one of v2, v1"):
        EVALUATOR.configured({"judge_prompt": "v3"})
    json.dumps([row.to_dict() for row in card.values()])  # the API serialises it
