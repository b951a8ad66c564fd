"""Thin Celery tasks: load by id and call a leaderboard service."""
from __future__ import annotations

import logging

from django.conf import settings

from workers.celery import app

log = logging.getLogger(__name__)


@app.task(name="workers.tasks.evaluate_run", soft_time_limit=settings.RUN_SOFT_TIME_LIMIT, time_limit=settings.RUN_HARD_TIME_LIMIT)
def evaluate_run(run_id: int) -> str:
    from leaderboard.submissions.execution import run_execute

    outcome = run_execute(run_id=run_id)
    log.info("run %s: %s", run_id, outcome)
    return outcome


@app.task(name="workers.tasks.help_run", soft_time_limit=settings.RUN_SOFT_TIME_LIMIT, time_limit=settings.RUN_HARD_TIME_LIMIT)
def help_run(run_id: int) -> str:
    from leaderboard.submissions.execution import run_help

    outcome = run_help(run_id=run_id)
    log.info("helping run %s: %s", run_id, outcome)
    return outcome


@app.task(name="workers.tasks.requeue_expired_runs", soft_time_limit=60, time_limit=90)
def requeue_expired_runs() -> tuple[int, int, int]:
    from leaderboard.submissions.services import runs_requeue_expired, runs_resend_stale_queued

    requeued, failed = runs_requeue_expired()
    return requeued, failed, runs_resend_stale_queued()
