"""Judges on the leaderboard: a judged benchmark (tests.support.judged_evaluator, registered in the
worker through LEADERBOARD_EXTRA_EVALUATORS) scored by the real Celery worker with the scripted
OpenAI-compatible server as its judge (configured through LEADERBOARD_JUDGES); the run records the
judge, every judge call and raw answer is stored with its item result and shown on the per-item
page, and the leaderboard page and API name the judge."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import asdict
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from evaluators.core.registry import register, register_all
from leaderboard import pagecache
from leaderboard.chains import execution
from leaderboard.modelhost import judging
from leaderboard.runs import services
from leaderboard.runs.models import EvaluationRun, FailureKind, ItemResult, RunStatus
from tests.conftest import wait_for
from tests.modelhost.conftest import api_for
from tests.support.judged_evaluator import DOTTED_PATH, JUDGED_KEY, JudgedEvaluator
from tests.support.openai_server import OpenAIServer, Reply

JUDGE = {"name": "scripted-judge", "revision": "2025-01-01", "prompt_version": "v1", "model": "test-model"}
LABEL = "scripted-judge@2025-01-01 (prompt v1)"
ANSWERS = {"q1": "It is Paris.", "q2": "5", "q3": "Tokyo"}  # q2 is wrong


def grade(request: dict[str, Any]) -> Reply:
    """The judge: 'yes' when the graded answer contains the reference, else 'no'."""
    prompt = request["messages"][-1]["content"]
    reference = re.search(r"Reference answer:\n(.*?)\n\n", prompt, re.S).group(1)
    answer = re.search(r"Answer to grade:\n(.*?)\n\n", prompt, re.S).group(1)
    return Reply(text="yes" if reference.lower() in answer.lower() else "no", usage=(40, 1))


@pytest.fixture
def judge_server() -> Iterator[OpenAIServer]:
    with OpenAIServer(grade) as server:
        yield server


@pytest.fixture
def judges_setting(judge_server: OpenAIServer) -> str:
    return json.dumps({"demo-judge": {**JUDGE, "base_url": judge_server.base_url}})


@pytest.fixture
def worker_env(worker_env: dict[str, str], judges_setting: str) -> dict[str, str]:
    return {
        **worker_env,
        "LEADERBOARD_JUDGES": judges_setting,
        "LEADERBOARD_EXTRA_EVALUATORS": json.dumps({JUDGED_KEY: DOTTED_PATH}),
    }


@pytest.fixture
def judged_benchmark(db, tmp_path):
    from leaderboard.catalog.models import Benchmark
    from leaderboard.chains.datasets import dataset_version_import

    register(JUDGED_KEY, DOTTED_PATH)  # what the site does at start-up from LEADERBOARD_EXTRA_EVALUATORS
    evaluator = JudgedEvaluator()
    benchmark = Benchmark.objects.create(
        slug=JUDGED_KEY,
        name="Judged answers",
        summary="Short answers graded by a judge.",
        evaluator_key=JUDGED_KEY,
        metric_columns=[asdict(c) for c in evaluator.metric_columns],
        slice_dimensions=[
            {"key": d.key, "label": d.label, "values": list(d.values)}
            for d in evaluator.presentation().slice_dimensions
        ],
    )
    dataset_version_import(benchmark=benchmark, release_path=evaluator.presentation().sample_dataset(), tag="v1")
    return benchmark


def predictions(answers: dict[str, str]) -> bytes:
    return "".join(json.dumps({"item_id": i, "output": o}) + "\n" for i, o in answers.items()).encode()


def submit(client, benchmark, model_name: str, answers: dict[str, str]) -> int:
    upload = SimpleUploadedFile("predictions.jsonl", predictions(answers), content_type="application/jsonl")
    response = client.post(
        "/api/submissions/",
        {"benchmark": benchmark.slug, "model_name": model_name, "predictions": upload},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return response.json()["runs"][0]["id"]


@pytest.mark.django_db(transaction=True)
def test_a_judged_benchmark_names_its_judge_and_keeps_every_raw_answer(
    judged_benchmark, user, judge_server, celery_worker, client
):
    api = api_for(user)
    run_a = submit(api, judged_benchmark, "model-a", ANSWERS)
    run_b = submit(api, judged_benchmark, "model-b", {"q1": "Lyon", "q2": "4", "q3": "Tokyo"})

    def finished() -> bool:
        return (
            not EvaluationRun.objects.filter(pk__in=[run_a, run_b])
            .exclude(status__in=[RunStatus.SUCCEEDED, RunStatus.FAILED])
            .exists()
        )

    wait_for(finished, timeout=120, what="both judged runs to finish")
    for run in EvaluationRun.objects.filter(pk__in=[run_a, run_b]):
        assert run.status == RunStatus.SUCCEEDED, run.failure_message
        assert run.environment["judge"] == {
            **{k: JUDGE[k] for k in ("name", "revision", "prompt_version")},
            "label": LABEL,
            "role": "demo-judge",
        }
    assert judge_server.request_count == 6  # one judge call per item and model, none repeated
    # what each run cost: the judge server's own count of calls (three per run) and its usage (40 + 1 tokens a call)
    costs = {run.pk: run.cost for run in EvaluationRun.objects.filter(pk__in=[run_a, run_b])}
    assert [(c["judge_calls"], c["judge_prompt_tokens"], c["judge_completion_tokens"]) for c in costs.values()] == [
        (3, 120, 3)
    ] * 2

    results = {r.item_id: r for r in ItemResult.objects.filter(run_id=run_a)}
    assert {i: r.scores["accuracy"] for i, r in results.items()} == {"q1": 1.0, "q2": 0.0, "q3": 1.0}
    batch = results["q2"].detail["judgements"][0]
    assert batch["judge"]["label"] == LABEL and (batch["prompt"], batch["prompt_version"]) == ("answer-match", "v1")
    assert batch["shared"] == {"question": "What is 2 + 2?", "reference": "4"}  # stored once for all the calls
    call = batch["calls"][0]
    assert (call["raw_answer"], call["parsed"], call["error_kind"], call["variables"]) == (
        "no",
        "no",
        "",
        {"answer": "5"},
    )
    assert "messages" not in call and "judge" not in call
    assert call["usage"] == {"prompt_tokens": 40, "completion_tokens": 1}

    items_page = client.get(f"/runs/{run_a}/items/").content.decode()
    assert f"Judge {LABEL} · prompt answer-match@v1" in items_page
    assert (
        "<pre>no</pre>" in items_page and "<pre>yes</pre>" in items_page and "<pre>What is 2 + 2?</pre>" in items_page
    )

    page = client.get(reverse("benchmark", args=[judged_benchmark.slug])).content.decode()
    assert f"Judge: <strong>{LABEL}</strong>" in page and "judged by" not in page
    board = client.get(f"/api/benchmarks/{judged_benchmark.slug}/leaderboard/").json()
    assert board["judges"] == [LABEL] and {r["model"]: r["judge"] for r in board["rows"]} == {
        "model-a": LABEL,
        "model-b": LABEL,
    }
    # A run scored by another judge version (as after a judge upgrade): the page says so per row.
    other = EvaluationRun.objects.get(pk=run_b)
    other.environment = {
        **other.environment,
        "judge": {**other.environment["judge"], "label": "scripted-judge@2025-06-01 (prompt v2)"},
    }
    other.save(update_fields=["environment"])
    # a direct write, so it tells the page cache itself, as the services that write runs do (no signal does)
    pagecache.boards_changed()
    page = client.get(reverse("benchmark", args=[judged_benchmark.slug])).content.decode()
    assert "Judges differ between rows" in page and "judged by scripted-judge@2025-06-01 (prompt v2)" in page
    assert f"judged by {LABEL}" in page
    board = client.get(f"/api/benchmarks/{judged_benchmark.slug}/leaderboard/").json()
    assert sorted(board["judges"]) == sorted([LABEL, "scripted-judge@2025-06-01 (prompt v2)"])


@pytest.mark.django_db(transaction=True)
def test_a_judge_missing_from_the_settings_fails_the_run_as_infrastructure(judged_benchmark, user):
    run = services.submission_create_from_predictions(
        owner=user, benchmark=judged_benchmark, model_name="m", data=predictions(ANSWERS)
    ).runs.get()
    with override_settings(JUDGES="{}"):
        assert execution.run_execute(run_id=run.pk) == "failed: judge not configured"
    run.refresh_from_db()
    assert run.failure_kind == FailureKind.INFRASTRUCTURE
    assert "needs the judge 'demo-judge'" in run.failure_message and "LEADERBOARD_JUDGES" in run.failure_message


@pytest.mark.parametrize(
    "setting, message",
    [
        ("{not json", "not valid JSON"),
        ('["x"]', "must be a JSON object"),
        (
            '{"j": {"name": "n", "revision": "r", "prompt_version": "v1", "base_url": "http://x/v1"}}',
            "LEADERBOARD_JUDGES['j'] lacks model",
        ),
        (
            '{"j": {"name": "n", "revision": "r", "prompt_version": "v1", "base_url": "http://x/v1", "model": "m", '
            '"api_key_env": "LB_TEST_UNSET_JUDGE_KEY"}}',
            "LB_TEST_UNSET_JUDGE_KEY holding its API key is not set",
        ),
    ],
)
def test_judge_settings_are_checked_with_a_message_naming_the_problem(setting, message):
    with override_settings(JUDGES=setting), pytest.raises(judging.JudgeNotConfigured, match=re.escape(message)):
        judging.judge_spec("j")


def test_a_configured_judge_reads_its_key_from_the_environment(monkeypatch):
    monkeypatch.setenv("LB_TEST_JUDGE_KEY", "sk-test")
    setting = json.dumps({"j": {**JUDGE, "base_url": "http://127.0.0.1:1/v1", "api_key_env": "LB_TEST_JUDGE_KEY"}})
    with override_settings(JUDGES=setting):
        spec = judging.judge_spec("j")
    assert (spec.label, spec.endpoint.api_key, spec.endpoint.model) == (LABEL, "sk-test", "test-model")
    assert "sk-test" not in json.dumps(judging.judge_record(spec, "j"))


@pytest.mark.parametrize("paths, message", [("{oops", "not valid JSON"), ('{"k": "no.colon"}', "entry 'k' must be")])
def test_extra_evaluators_setting_is_checked(paths, message):
    with pytest.raises(ValueError, match=message):
        register_all(paths)
