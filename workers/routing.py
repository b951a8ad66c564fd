"""The names the site and the workers must agree on: each task's registered name and the queues.

Queues are named by the resource a task needs: ``cpu`` (predictions files, code execution, endpoints,
pre-flight, ratings), ``arena`` (the arena's answers) and ``gpu-<kind>`` (self-hosted models). Plain
constants, imported by the Celery app, its tasks and ``leaderboard.queues`` alike.
"""
from __future__ import annotations

EVALUATE_RUN = "workers.tasks.evaluate_run"
HELP_RUN = "workers.tasks.help_run"
REQUEUE_EXPIRED = "workers.tasks.requeue_expired_runs"
GENERATE_SUBMISSION = "workers.tasks.generate_submission"
PREFLIGHT_MODEL = "workers.tasks.preflight_model"
ARENA_GENERATE_TURN = "workers.tasks.arena_generate_turn"
ARENA_COMPUTE_RATINGS = "workers.tasks.arena_compute_ratings"
ARENA_MAINTAIN = "workers.tasks.arena_maintain"
VALIDATE_JUDGE = "workers.tasks.validate_judge"
SNAPSHOT_BOARDS = "workers.tasks.snapshot_boards"

#: everything that needs no GPU
CPU = "cpu"
#: the arena's answers (its own workers, threads pool)
ARENA = "arena"


def gpu_queue(kind: str) -> str:
    """The queue of workers with a GPU of ``kind`` (self-hosted models)."""
    return f"gpu-{kind}"
