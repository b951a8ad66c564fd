"""Thin Celery tasks: load by id and call a leaderboard service."""

from __future__ import annotations

import logging

from celery import Task
from django.conf import settings

from workers import routing
from workers.celery import app

log = logging.getLogger(__name__)


#: how long a judged run waits before a worker looks again while `make run` still sets the judge up
JUDGE_PENDING_RECHECK_SECONDS = 15


@app.task(
    bind=True,
    max_retries=None,
    name=routing.EVALUATE_RUN,
    soft_time_limit=settings.RUN_SOFT_TIME_LIMIT,
    time_limit=settings.RUN_HARD_TIME_LIMIT,
)
def evaluate_run(self: Task, run_id: int) -> str:
    from leaderboard.chains.execution import run_execute, run_waits_for

    if run_waits_for(
        run_id
    ):  # a judged board's run while the judge is still installing: the worker scores others first
        log.info(
            "run %s: its judge is still being set up; back to the queue for %s s", run_id, JUDGE_PENDING_RECHECK_SECONDS
        )
        raise self.retry(countdown=JUDGE_PENDING_RECHECK_SECONDS)  # no limit: the task's max_retries is None
    outcome = run_execute(run_id=run_id)
    log.info("run %s: %s", run_id, outcome)
    return outcome


@app.task(name=routing.HELP_RUN, soft_time_limit=settings.RUN_SOFT_TIME_LIMIT, time_limit=settings.RUN_HARD_TIME_LIMIT)
def help_run(run_id: int) -> str:
    from leaderboard.chains.execution import run_help

    outcome = run_help(run_id=run_id)
    log.info("helping run %s: %s", run_id, outcome)
    return outcome


@app.task(name=routing.REQUEUE_EXPIRED, soft_time_limit=60, time_limit=90)
def requeue_expired_runs() -> tuple[int, int, int]:
    from leaderboard.ops import beat_ticked
    from leaderboard.runs.generation.jobs import generation_jobs_requeue_expired
    from leaderboard.runs.services import runs_requeue_expired, runs_resend_stale_queued

    beat_ticked()
    requeued, failed = runs_requeue_expired()
    generation_jobs_requeue_expired()
    return requeued, failed, runs_resend_stale_queued()


@app.task(
    name=routing.GENERATE_SUBMISSION,
    soft_time_limit=settings.RUN_SOFT_TIME_LIMIT,
    time_limit=settings.RUN_HARD_TIME_LIMIT,
)
def generate_submission(job_id: int) -> str:
    """On ``gpu-<kind>`` (self-hosted weights) or ``cpu`` (endpoints): one model load per submission."""
    from leaderboard.runs.generation.worker import generation_execute

    outcome = generation_execute(job_id=job_id)
    log.info("generation job %s: %s", job_id, outcome)
    return outcome


@app.task(name=routing.PREFLIGHT_MODEL, soft_time_limit=900, time_limit=960)
def preflight_model(model_id: int) -> str:
    """On ``interactive``: check a registered model before any GPU time (never behind an evaluation run)."""
    from leaderboard.chains.demo import model_preflight_run

    status = model_preflight_run(model_id=model_id)
    log.info("pre-flight of model %s: %s", model_id, status)
    return status


@app.task(
    name=routing.VALIDATE_JUDGE, soft_time_limit=settings.RUN_SOFT_TIME_LIMIT, time_limit=settings.RUN_HARD_TIME_LIMIT
)
def validate_judge(benchmark_id: int, limit: int = 0) -> dict[str, object]:
    """On ``cpu``: an operator's judge validation (``manage.py validate_judge --queue``)."""
    from leaderboard.modelhost.validation import judge_validation_run

    return judge_validation_run(benchmark_id=benchmark_id, limit=limit or None)


@app.task(name=routing.SNAPSHOT_BOARDS, soft_time_limit=600, time_limit=660)
def snapshot_boards(slugs: list[str]) -> list[int]:
    """On ``cpu``, from the beat (``settings.SNAPSHOT_SCHEDULE_BOARDS``): freeze each named board."""
    from leaderboard.history.services import snapshots_freeze_scheduled

    return [snapshot.pk for snapshot in snapshots_freeze_scheduled(slugs=slugs)]


# --- Search Arena ---------------------------------------------------------------------------------


@app.task(
    name=routing.ARENA_GENERATE_TURN,
    queue=routing.ARENA,
    soft_time_limit=settings.ARENA_GENERATION_TIME_LIMIT,
    time_limit=settings.ARENA_GENERATION_TIME_LIMIT + 30,
)
def arena_generate_turn(turn_id: int) -> str:
    """Both answers of one turn. The arena worker's threads pool ignores these time limits: the turn's
    claim time is the guard (a redelivery takes over a stale claim; ``arena_maintain`` fails it)."""
    from leaderboard.arena.services import turn_generate

    return turn_generate(turn_id=turn_id)


@app.task(name=routing.ARENA_COMPUTE_RATINGS, soft_time_limit=1800, time_limit=1900)
def arena_compute_ratings() -> int:
    """The ratings, then (when they changed) the figures published with them (``arena.published``)."""
    from leaderboard.arena.published import published_warm
    from leaderboard.arena.services import ratings_compute

    written = ratings_compute()
    if written:
        published_warm()
    return written


@app.task(name=routing.ARENA_COMPUTE_TOPICS, soft_time_limit=1800, time_limit=1900)
def arena_compute_topics() -> int:
    """On ``interactive``, from the beat (the ratings' period): the topic explorer's snapshot, when the
    public votes changed (``services.topics_compute``); returns its id, 0 when nothing changed."""
    from leaderboard.arena.services import topics_compute

    snapshot = topics_compute()
    return snapshot.pk if snapshot is not None else 0


@app.task(name=routing.ARENA_MAINTAIN, soft_time_limit=1800, time_limit=1900)
def arena_maintain() -> dict[str, int]:
    """The arena's periodic pass, then the figures published with its ratings (``arena.published``)."""
    from leaderboard.arena.published import published_warm
    from leaderboard.arena.services import arena_maintain as maintain

    return {**maintain(), "published": published_warm()}
