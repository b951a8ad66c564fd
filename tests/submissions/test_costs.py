"""What a run cost: recorded when it succeeds, from what its outputs, judge calls and programs
recorded (the sums below are worked out by hand), shown on the submission's page, as optional board
columns and summed on the model's page."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from evaluators.core import MetricValue
from leaderboard.chains import board_rows
from leaderboard.runs import services
from leaderboard.runs.costs import run_cost, summed
from leaderboard.runs.models import EvaluationRun, GeneratedOutput, GenerationJob, ItemResult, RunStatus
from tests.conftest import PY_SUM, predictions_jsonl

pytestmark = pytest.mark.django_db


def _judged_detail(calls: list[tuple[int, int, int]]) -> dict:
    """An item's detail with one judge batch: each call (attempts, prompt tokens, answer tokens)."""
    return {
        "judgements": [
            {
                "judge": {},
                "prompt": "p",
                "prompt_version": "v",
                "shared": {},
                "calls": [{"attempts": a, "usage": {"prompt_tokens": p, "completion_tokens": c}} for a, p, c in calls],
            }
        ]
    }


def _submitted(benchmark, user) -> EvaluationRun:
    data = predictions_jsonl(benchmark.dataset_versions.get(is_current=True).item_ids, lambda lang: PY_SUM)
    return services.submission_create_from_predictions(
        owner=user, benchmark=benchmark, model_name="costly", data=data
    ).runs.get()


def test_a_runs_cost_adds_up_what_was_recorded(multi_lcb, user):
    run = _submitted(multi_lcb, user)
    start = timezone.now() - dt.timedelta(minutes=10)
    EvaluationRun.objects.filter(pk=run.pk).update(started_at=start)
    run.refresh_from_db()
    GenerationJob.objects.create(
        submission=run.submission, queue="gpu-h200", started_at=start, finished_at=start + dt.timedelta(seconds=90)
    )
    GeneratedOutput.objects.bulk_create(
        [
            GeneratedOutput(run=run, item_id="t1_a/python", prompt_tokens=100, completion_tokens=40),
            GeneratedOutput(run=run, item_id="t2_a/python", prompt_tokens=120, completion_tokens=60),
        ]
    )
    ItemResult.objects.bulk_create(
        [
            ItemResult(
                run=run, item_id="t1_a/python", slices={}, scores={}, detail=_judged_detail([(1, 500, 2), (3, 510, 9)])
            ),
            ItemResult(
                run=run,
                item_id="t2_a/python",
                slices={},
                scores={},
                detail={
                    "samples": [{"cpu_seconds": 0.25, "wall_seconds": 0.5}, {"cpu_seconds": 0.5, "wall_seconds": 1.0}]
                },
            ),
            ItemResult(run=run, item_id="t3_a/python", slices={}, scores={}, detail={}),
        ]
    )
    cost = run_cost(run, finished_at=start + dt.timedelta(minutes=4))
    assert (cost.prompt_tokens, cost.completion_tokens) == (220, 100)
    assert cost.generation_seconds == 90.0 and cost.gpu == "h200"
    assert (cost.judge_calls, cost.judge_prompt_tokens, cost.judge_completion_tokens) == (4, 1010, 11)  # 1 + 3 attempts
    assert (cost.sandbox_cpu_seconds, cost.sandbox_wall_seconds) == (0.75, 1.5)
    assert cost.wall_seconds == 240.0
    assert summed([{"judge_calls": 4, "gpu": "h200"}, {"judge_calls": 2, "wall_seconds": None}]) == {"judge_calls": 6}


def test_a_succeeded_run_records_its_cost_and_the_pages_show_it(client, multi_lcb, user):
    run = _submitted(multi_lcb, user)
    claim = services.run_claim(run_id=run.pk, worker="w")
    ItemResult.objects.create(
        run=run,
        item_id="t1_a/python",
        slices={"language": "python"},
        scores={"pass@1": 1.0},
        detail={"samples": [{"verdict": "passed", "cpu_seconds": 1.5, "wall_seconds": 2.0}]},
    )
    assert board_rows.run_complete_and_file(claim=claim, metrics=[MetricValue("pass@1", 1.0, 0.9, 1.0, 36)])
    run.refresh_from_db()
    assert run.status == RunStatus.SUCCEEDED
    assert (
        run.cost["sandbox_cpu_seconds"] == 1.5 and run.cost["judge_calls"] == 0 and run.cost["completion_tokens"] == 0
    )
    assert run.cost["wall_seconds"] is not None and run.cost["wall_seconds"] >= 0
    client.force_login(user)
    page = re.sub(r"\s+", " ", client.get(f"/submissions/{run.submission_id}/").content.decode())
    assert "Cost: no generation (a predictions file) · sandbox CPU 1.5 s (programs' wall 2.0 s)" in page
    board = client.get("/benchmarks/multi-lcb/?costs=1").content.decode()
    assert "Sandbox CPU (s)" in board and re.search(
        r'<td class="num cost">2</td>', board
    )  # 1.5 s shown as whole seconds
    assert "Sandbox CPU (s)" not in client.get("/benchmarks/multi-lcb/").content.decode()  # optional
    profile = client.get(f"/api/models/{run.submission.model.slug}/profile/").json()["cost"]
    assert profile["runs"] == 1 and profile["total"]["sandbox_cpu_seconds"] == 1.5
    assert client.get(f"/api/runs/{run.pk}/").json()["cost"]["sandbox_cpu_seconds"] == 1.5
