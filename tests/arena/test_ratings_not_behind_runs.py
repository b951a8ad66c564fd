"""A vote's ratings never wait behind an evaluation run: with the workers as `make run` starts them (one
on ``cpu``, the arena's threads worker on ``arena`` and ``interactive``), a recomputation asked for while
a slow run holds the cpu worker is written before that run ends. Real Redis and Celery workers."""

from __future__ import annotations

import pytest

from leaderboard import task_sends
from leaderboard.arena.models import RatingSnapshot
from leaderboard.runs.models import EvaluationRun, RunStatus
from leaderboard.runs.services import submission_create_from_predictions
from tests.conftest import Worker, predictions_jsonl, wait_for
from tests.submissions.test_queue_order import PY_SLOWER_SUM

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.toolchains]


def test_ratings_are_recomputed_while_a_long_run_holds_the_cpu_worker(
    multi_lcb, user, seed_votes, worker_env, tmp_path
):
    seed_votes([(f"voter{i}", "Alpha", "Beta", "model_a" if i % 3 else "model_b", f"question {i}") for i in range(6)])
    env = {**worker_env, "LEADERBOARD_ARENA_MIN_VOTES": "1", "LEADERBOARD_ARENA_BOOTSTRAP_ROUNDS": "10"}
    workers = [
        Worker(env, tmp_path / "cpu.log", queues="cpu", beat=False),
        Worker(
            env,
            tmp_path / "arena.log",
            queues="arena,interactive",
            pool=("--pool", "threads", "--concurrency", "4"),
            beat=False,
        ),
    ]
    _purge(("cpu", "arena", "interactive"))
    for worker in workers:
        worker.start()
    try:
        wait_for(
            lambda: all("ready." in w.log_path.read_text(errors="replace") for w in workers),
            timeout=120,
            what="both workers",
        )
        item_ids = multi_lcb.dataset_versions.get(is_current=True).item_ids
        run = submission_create_from_predictions(
            owner=user,
            benchmark=multi_lcb,
            model_name="slow",
            data=predictions_jsonl(item_ids, lambda lang: PY_SLOWER_SUM if lang == "python" else None),
        ).runs.get()
        wait_for(
            lambda: EvaluationRun.objects.filter(pk=run.pk, status=RunStatus.RUNNING).exists(),
            timeout=120,
            what="the run to start",
        )
        assert not RatingSnapshot.objects.exists()
        task_sends.arena_compute_ratings(countdown=0.1)  # what a vote asks for (ratings_schedule)
        wait_for(lambda: RatingSnapshot.objects.exists(), timeout=120, what="the ratings")
        written = RatingSnapshot.objects.order_by("computed_at").first().computed_at
        run.refresh_from_db()
        # the run holds the only cpu worker for 12 s or more; the ratings did not wait for it
        assert run.status == RunStatus.RUNNING or (run.finished_at is not None and run.finished_at > written), (
            run.status,
            run.finished_at,
            written,
        )
    finally:
        for worker in workers:
            worker.stop()
        for name in ("cpu.log", "arena.log"):
            print(name, (tmp_path / name).read_text(errors="replace")[-3000:])


def _purge(queues: tuple[str, ...]) -> None:
    """Empty the queues these workers consume: an earlier test's beat may have left a periodic
    ``arena_maintain`` there (the broker outlives a test), which would compute the ratings before this test asks."""
    from workers.celery import app

    with app.connection_for_write() as connection:
        for name in queues:
            connection.default_channel.queue_purge(name)
