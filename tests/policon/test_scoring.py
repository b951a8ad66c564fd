"""PoliCon scored through a judge speaking the OpenAI protocol (the scripted server): one call per
party, all at once; votes into the rules; a bad answer retried then counted as a fallback; an outage
raised, never scored; prompts, seeds, baselines, the real-vote diagnostic and aggregation by task."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from evaluators.core import evaluator_for
from evaluators.core.types import Item, Prediction
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import FALLBACK_METRIC, Judge, JudgeUnavailable
from evaluators.llm.types import Endpoint, JudgeSpec
from evaluators.policon.evaluator import PoliConEvaluator
from evaluators.policon.prompts import EXAMPLE_RESOLUTION, OPENING
from evaluators.policon.release import Task
from tests.support.openai_server import OpenAIServer, Reply

EVALUATOR: PoliConEvaluator = evaluator_for("policon")  # type: ignore[assignment]
ITEMS = list(EVALUATOR.import_release(EVALUATOR.presentation().sample_dataset()))
BY_ID = {item.id: item for item in ITEMS}


def party_of(request: dict[str, Any]) -> str:
    """The party a judge request asks about (v2 names it "Party:", v1 "Your party:")."""
    return re.search(r"(?:Your party|\nParty): (.*)\n", request["messages"][-1]["content"]).group(1)


def judge_voting(
    votes: dict[str, str], server: OpenAIServer, *, concurrency: int = 8, settings: dict[str, str] | None = None
) -> PoliConEvaluator:
    client = ChatClient(Endpoint(server.base_url, "judge"), max_concurrency=concurrency, backoff_s=0.01, max_retries=1)
    evaluator = EVALUATOR.configured(settings or {})
    return evaluator.with_judge(Judge(JudgeSpec("judge", "r1", "v1"), client, concurrency=concurrency))


def scripted(votes: dict[str, str]):
    return lambda request: Reply(text=votes.get(party_of(request), "5"), usage=(100, 1))


def test_each_party_is_asked_once_and_its_digit_goes_through_the_rules():
    item = BY_ID["4/digital-privacy-data-markets/1/sm"]
    task = Task.from_payload(item.payload)
    votes = {p.name: str(d) for p, d in zip(task.parties, (9, 9, 0, 0))}
    with OpenAIServer(scripted(votes)) as server:
        score = judge_voting(votes, server).score_item(item, [Prediction(item.id, f"{OPENING} something.")])
    assert server.request_count == 4 and sorted(party_of(r) for r in server.requests) == sorted(votes)
    support10 = sum(p.seat_tenths * int(votes[p.name]) for p in task.parties)
    assert score.scores == {"sm_pass": 1.0 if support10 >= 50 else 0.0}
    batch = score.detail["judgements"][0]
    assert batch["shared"] == {"background": task.background, "resolution": f"{OPENING} something."}
    assert [c["variables"]["party"] for c in batch["calls"]] == [p.name for p in task.parties]
    assert [c["parsed"] for c in batch["calls"]] == [votes[p.name] for p in task.parties]
    assert score.detail["samples"][0]["verdict"] == ("pass" if support10 >= 50 else "fail")
    assert f"support {support10 / 10:g} of 9" in score.detail["samples"][0]["reason"]
    # the judge's sampling as released (EuroCon utils/call_gpt.py): temperature 0, top_p 0.95, seed 42 every call
    assert {(r["temperature"], r["top_p"], r["seed"]) for r in server.requests} == {(0.0, 0.95, 42)}


@pytest.mark.parametrize("objective, expected", [("rawls", 2.0), ("util", 5.5)])
def test_welfare_objectives_score_the_least_and_the_mean_vote(objective, expected):
    item = BY_ID[f"2/rail-roads-cycling/1/{objective}"]
    task = Task.from_payload(item.payload)
    votes = dict(zip((p.name for p in task.parties), ("2", "9")))
    with OpenAIServer(scripted(votes)) as server:
        score = judge_voting(votes, server).score_item(item, [Prediction(item.id, "text")])
    assert score.scores == {objective: expected} and score.detail["samples"][0]["verdict"] == "scored"


# the released policy (evals/eval_agent.py): up to 10 retries, then a vote of 4; v1: one retry, then 0
@pytest.mark.parametrize(
    "settings, attempts, util", [({}, 1 + 10, (4 + 8) / 2), ({"judge_prompt": "v1"}, 1 + 1, (0 + 8) / 2)]
)
def test_an_unusable_answer_is_retried_then_the_fallback_vote_and_counted(settings, attempts, util):
    item = BY_ID["2/rail-roads-cycling/1/util"]
    first, second = (p.name for p in Task.from_payload(item.payload).parties)
    with OpenAIServer(scripted({first: "very much", second: "8"})) as server:
        score = judge_voting({}, server, settings=settings).score_item(item, [Prediction(item.id, "text")])
    asked_first = [r for r in server.requests if party_of(r) == first]
    calls = score.detail["judgements"][0]["calls"]
    assert [c["error_kind"] for c in calls] == ["malformed", ""] and calls[0]["attempts"] == attempts
    assert len(calls[0]["rejected"]) == attempts and len({r["seed"] for r in asked_first}) == attempts
    assert score.scores == {"util": util}
    assert "1 fallback vote(s)" in score.detail["samples"][0]["reason"]
    metrics = {(m.key, tuple(m.slice.items())): m for m in EVALUATOR.aggregate([score])}
    assert metrics[(FALLBACK_METRIC, ())].value == 0.5 and metrics[(FALLBACK_METRIC, ())].n == 2


def test_a_judge_outage_raises_instead_of_scoring_fallbacks():
    item = BY_ID["6/rail-roads-cycling/1/sm"]
    with (
        OpenAIServer(lambda request: Reply(status=503, error="overloaded")) as server,
        pytest.raises(JudgeUnavailable, match="unavailable"),
    ):
        judge_voting({}, server).score_item(item, [Prediction(item.id, "text")])


def test_calls_of_one_item_run_at_once_within_the_judge_bound():
    item = BY_ID["6/rail-roads-cycling/1/sm"]
    with OpenAIServer(lambda request: Reply(text="7", delay_s=0.3)) as server:
        judge_voting({}, server, concurrency=4).score_item(item, [Prediction(item.id, "text")])
    assert server.request_count == 6 and server.max_in_flight == 4


def test_prompts_state_the_requirement_and_never_the_tasks_own_resolution():
    for item in ITEMS:
        task = Task.from_payload(item.payload)
        [request] = EVALUATOR.build_requests(item, {})
        text = request.messages[-1]["content"]
        assert task.resolution not in text and EXAMPLE_RESOLUTION in text and text.endswith("Now is your turn:")
        assert all(p.stance in text for p in task.parties) and task.title in text
        seats_named = all(f"{p.name} holds {p.seat_tenths * 10}% of the seats" in text for p in task.parties)
        assert seats_named == (item.payload["objective"] in ("sm", "two_thirds", "veto"))
        assert (request.temperature, request.top_p, request.max_tokens) == (0.7, 0.95, 512)
    assert all(Task.from_payload(i.payload).resolution != EXAMPLE_RESOLUTION for i in ITEMS)
    veto = BY_ID["2/rail-roads-cycling/1/veto"]
    assert f"{veto.payload['veto_party']} holds a veto" in EVALUATOR.build_requests(veto, {})[0].messages[-1]["content"]


# EuroCon runner/task_prompts.py, task_requirement_templates, written out by hand
RELEASED_REQUIREMENTS = {
    "rawls": "The resolution should be based on the Rawlsianism principle, which means maximizing the benefits for the "
    "political parties with the weakest positions to achieve the greatest possible fairness.",
    "util": "The resolution should be based on the Utilitarianism principle, which means maximizing the preferences of "
    "all political parties while ensuring their sum is maximized.",
}


@pytest.mark.parametrize("objective", ["rawls", "util"])
def test_the_welfare_requirements_are_sent_in_the_released_words(objective):
    item = BY_ID[f"2/rail-roads-cycling/1/{objective}"]
    text = EVALUATOR.build_requests(item, {})[0].messages[-1]["content"]
    assert f"Requirement: {RELEASED_REQUIREMENTS[objective]}\n\n" in text
    assert "least satisfied" not in text


def test_generation_settings_are_checked_and_seeds_are_per_item():
    a, b = ITEMS[0], ITEMS[1]
    seed_a = EVALUATOR.build_requests(a, {})[0].extra["seed"]
    assert (
        seed_a == EVALUATOR.build_requests(a, {})[0].extra["seed"] != EVALUATOR.build_requests(b, {})[0].extra["seed"]
    )
    assert EVALUATOR.build_requests(a, {"seed": 1})[0].extra["seed"] != seed_a
    assert EVALUATOR.build_requests(a, {"max_tokens": "64", "temperature": 0})[0].max_tokens == 64
    with pytest.raises(ValueError, match=re.escape("setting 'temperature': 3 is outside 0..2")):
        EVALUATOR.build_requests(a, {"temperature": 3})
    with pytest.raises(ValueError, match="unknown setting 'language'"):
        EVALUATOR.build_requests(a, {"language": "python"})


def test_baselines_are_a_random_and_the_largest_partys_stance():
    files = EVALUATOR.presentation().baseline_predictions(ITEMS)
    assert set(files) == {"Random", "Greedy"}
    greedy = {json.loads(line)["item_id"]: json.loads(line)["output"] for line in files["Greedy"].decode().splitlines()}
    random_rows = {
        json.loads(line)["item_id"]: json.loads(line)["output"] for line in files["Random"].decode().splitlines()
    }
    assert set(greedy) == set(random_rows) == set(BY_ID)
    for item_id, output in greedy.items():
        parties = Task.from_payload(BY_ID[item_id].payload).parties
        assert output == f"{OPENING} {max(parties, key=lambda p: p.seat_tenths).stance}"
        assert any(random_rows[item_id] == f"{OPENING} {p.stance}" for p in parties)
    assert files == EVALUATOR.presentation().baseline_predictions(ITEMS)  # deterministic


def test_the_real_vote_diagnostic_counts_real_resolutions_passing_our_rules():
    [note] = [
        n for n in EVALUATOR.presentation().dataset_notes(ITEMS) if n.heading.startswith("The rules on the real votes")
    ]
    passed = 0
    for item in (i for i in ITEMS if i.payload["objective"] == "sm"):
        parties = Task.from_payload(item.payload).parties
        passed += sum(p.seat_tenths * p.choice for p in parties) >= 50
    assert f"SM: {passed} of 12 real resolutions pass" in note.points[0] and len(note.points) == 3


def test_aggregate_reports_each_objective_per_party_count_and_topic_with_task_bootstrap():
    from evaluators.core.types import ItemScore

    scores = [
        ItemScore(
            i.id,
            dict(i.slices),
            {key: float(n % 2) if key.endswith("pass") else float(n % 10)},
            detail={"judgements": [{"calls": [{"error_kind": ""}] * 2}]},
        )
        for n, i in enumerate(ITEMS)
        for key in [
            {"sm": "sm_pass", "two_thirds": "two_thirds_pass", "veto": "veto_pass"}.get(
                i.slices["objective"], i.slices["objective"]
            )
        ]
    ]
    metrics = EVALUATOR.aggregate(scores, seed=3)
    table = {(m.key, tuple(m.slice.items())): m for m in metrics}
    sm = [s.scores["sm_pass"] for s in scores if "sm_pass" in s.scores]
    assert table[("sm_pass", ())].value == pytest.approx(sum(sm) / len(sm)) and table[("sm_pass", ())].n == 12
    assert table[("sm_pass", ())].ci_low <= table[("sm_pass", ())].value <= table[("sm_pass", ())].ci_high
    for parties in ("2", "4", "6"):
        assert table[("rawls", (("parties", parties),))].n == 4
    assert table[("util", (("topic", "Rail, roads & cycling"),))].n == 4
    assert table[(FALLBACK_METRIC, ())].value == 0.0 and table[(FALLBACK_METRIC, ())].n == 120
    assert EVALUATOR.aggregate(scores, seed=3) == metrics  # seeded


def _prediction_lines(items: list[Item]) -> str:
    return "".join(json.dumps({"item_id": i.id, "output": f"{OPENING} text for {i.id}."}) + "\n" for i in items)


def test_the_command_line_scores_with_a_judge_exactly_as_the_evaluator(tmp_path: Path):
    import subprocess
    import sys

    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text(_prediction_lines(ITEMS))
    votes = lambda request: Reply(text=str(len(party_of(request)) % 10))  # noqa: E731 - a fixed vote per party
    with OpenAIServer(votes) as server:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "evaluators",
                "score",
                "--benchmark",
                "policon",
                "--dataset",
                str(EVALUATOR.presentation().sample_dataset()),
                "--predictions",
                str(predictions),
                "--judge",
                f"{server.base_url},judge-model",
                "--out",
                str(tmp_path / "out.json"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        assert server.request_count == sum(len(i.payload["parties"]) for i in ITEMS)
        expected = judge_voting({}, server)
        result = json.loads((tmp_path / "out.json").read_text())
        by_cli = {s["item_id"]: s for s in result["item_scores"]}
        for item in ITEMS[:10]:
            direct = expected.score_item(item, [Prediction(item.id, f"{OPENING} text for {item.id}.")])
            assert by_cli[item.id]["scores"] == direct.scores
    assert result["environment"]["judge"] == "judge-model@unpinned (prompt v1)"
    assert "judged by judge-model@unpinned (prompt v1)" in done.stdout and "sm_pass" in done.stdout
    with OpenAIServer(votes) as server:
        bad = subprocess.run(
            [
                sys.executable,
                "-m",
                "evaluators",
                "score",
                "--benchmark",
                "policon",
                "--dataset",
                str(EVALUATOR.presentation().sample_dataset()),
                "--predictions",
                str(predictions),
                "--judge",
                "not-a-url",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert bad.returncode == 2 and "--judge" in bad.stderr
    missing = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluators",
            "score",
            "--benchmark",
            "policon",
            "--dataset",
            str(EVALUATOR.presentation().sample_dataset()),
            "--predictions",
            str(predictions),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert missing.returncode == 2 and "needs a judge" in missing.stderr and "--judge" in missing.stderr
