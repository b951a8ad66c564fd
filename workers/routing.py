"""The names the site and the workers must agree on: each task's registered name and the queues.

Queues are named by the work and the resource it needs: ``cpu`` (people's runs: predictions files,
code execution, endpoints), ``baseline`` (the site's own runs: the evaluators' baselines and the
embedded demo model's, so a person's run never waits behind them), ``interactive`` (short work a
person waits for: arena ratings, pre-flights, the run reaper, never behind a long evaluation run),
``arena`` (the arena's answers) and ``gpu-<kind>`` (self-hosted models). Each is consumed by its own
worker in the launch scripts (scripts/serve, scripts/run-embedded; the tests' default worker takes all
but the arena's): ``LONG_QUEUES`` says which may not share one. Plain constants, imported by the Celery app, its tasks
and ``leaderboard.task_sends`` alike.
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
ARENA_COMPUTE_TOPICS = "workers.tasks.arena_compute_topics"
VALIDATE_JUDGE = "workers.tasks.validate_judge"
SNAPSHOT_BOARDS = "workers.tasks.snapshot_boards"

#: people's runs and everything else that needs no GPU
CPU = "cpu"
#: the site's own runs (baselines, the demo model's): their own worker, so they never hold a person's run
BASELINE = "baseline"
#: short work a person waits for (arena ratings, pre-flights, the reaper): never behind an evaluation run
INTERACTIVE = "interactive"
#: the arena's answers (its own workers, threads pool)
ARENA = "arena"

#: queues whose tasks run long (evaluation runs): a worker consuming one of these must not consume another
#: of them, nor ``INTERACTIVE`` (checked against the launch scripts by tests/architecture/test_worker_layout.py)
LONG_QUEUES = (CPU, BASELINE)


def gpu_queue(kind: str) -> str:
    """The queue of workers with a GPU of ``kind`` (self-hosted models)."""
    return f"gpu-{kind}"
