"""A newcomer's run never waits behind the site's baselines: real Redis and real Celery workers started
as scripts/run-embedded and scripts/serve start them (one worker on ``cpu``, one on ``baseline``). Three
slow baseline runs are queued first and the first is running; a person's file submitted then is scored
before the other two even start (with one shared queue it would be fourth)."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth import get_user_model

from leaderboard.runs.models import EvaluationRun, RunStatus
from leaderboard.runs.services import submission_create_from_predictions
from leaderboard.runs.work_kinds import BASELINE_OWNER
from tests.conftest import PY_SUM, Worker, predictions_jsonl, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.toolchains]

#: each Python test sleeps this long: a baseline run takes 3 items x 2 tests x 4 s / 2 at a time = 12 s at least
PY_SLOWER_SUM = "import time\ntime.sleep(4.0)\na, b = map(int, input().split())\nprint(a + b)\n"
BASELINES = 3


def _ready(worker: Worker) -> bool:
    return "ready." in worker.log_path.read_text(errors="replace")


def test_a_users_run_submitted_after_queued_baselines_starts_before_them(multi_lcb, user, worker_env, tmp_path):
    item_ids = multi_lcb.dataset_versions.get(is_current=True).item_ids
    owner = get_user_model().objects.create(username=BASELINE_OWNER, is_active=False, is_staff=True)
    slow = predictions_jsonl(item_ids, lambda lang: PY_SLOWER_SUM if lang == "python" else None)
    baselines = [
        submission_create_from_predictions(
            owner=owner, benchmark=multi_lcb, model_name=f"Slow {i} (baseline)", data=slow
        ).runs.get()
        for i in range(BASELINES)
    ]
    assert {run.queue for run in baselines} == {"baseline"}
    workers = [
        Worker(worker_env, tmp_path / "cpu.log", queues="cpu"),
        Worker(worker_env, tmp_path / "baseline.log", queues="baseline", beat=False),
    ]
    for worker in workers:
        worker.start()
    try:
        wait_for(lambda: all(_ready(w) for w in workers), timeout=120, what="both workers to be ready")
        wait_for(
            lambda: EvaluationRun.objects.filter(pk=baselines[0].pk, status=RunStatus.RUNNING).exists(),
            timeout=120,
            what="the first baseline to start",
        )
        waiting = set(
            EvaluationRun.objects.filter(pk__in=[r.pk for r in baselines], status=RunStatus.QUEUED).values_list(
                "pk", flat=True
            )
        )
        assert len(waiting) >= BASELINES - 1  # the others still wait: the person's file comes after them
        submitted_at = time.monotonic()
        mine = submission_create_from_predictions(
            owner=user,
            benchmark=multi_lcb,
            model_name="newcomer",
            data=predictions_jsonl(item_ids, lambda lang: PY_SUM if lang == "python" else None),
        ).runs.get()
        assert mine.queue == "cpu"
        wait_for(lambda: EvaluationRun.objects.get(pk=mine.pk).is_finished, timeout=180, what="the newcomer's run")
        print(f"the newcomer's run finished {time.monotonic() - submitted_at:.1f} s after it was submitted")
        mine.refresh_from_db()
        assert mine.status == RunStatus.SUCCEEDED, (mine.failure_kind, mine.failure_message)
        for run in EvaluationRun.objects.filter(pk__in=waiting):
            # each baseline that waited when the file came either still waits or started after the file's run
            assert run.started_at is None or run.started_at > mine.started_at, (run.pk, run.started_at, mine.started_at)
    finally:
        for worker in workers:
            worker.stop()
        for name in ("cpu.log", "baseline.log"):
            print(name, (tmp_path / name).read_text(errors="replace")[-3000:])
