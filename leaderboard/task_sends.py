"""Every task the site sends, as a typed function: the one place that names tasks and their queues.

Each function sends once the current transaction commits (at once outside a transaction), so a
worker never looks for a row that is not there yet and a rolled-back request sends nothing. The
task and queue names are ``workers.routing``'s, which the workers register. Tests record
what would be sent with ``record_sends`` (the ``sent_tasks`` fixture) instead of a broker.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from django.db import transaction

# re-exported, so callers and tests need one import
from workers.routing import (  # noqa: F401
    ARENA,
    ARENA_COMPUTE_RATINGS,
    ARENA_GENERATE_TURN,
    ARENA_MAINTAIN,
    BASELINE,
    CPU,
    EVALUATE_RUN,
    GENERATE_SUBMISSION,
    HELP_RUN,
    INTERACTIVE,
    PREFLIGHT_MODEL,
    REQUEUE_EXPIRED,
    VALIDATE_JUDGE,
    gpu_queue,
)


@dataclass(frozen=True)
class Message:
    """One task to send: its registered name, its arguments (ids), its queue and an optional delay."""

    task: str
    args: tuple[int, ...]
    queue: str
    countdown: float | None = None
    priority: int | None = None  # the broker's (Redis: 0, the default, taken first; 9 last)


def _to_broker(message: Message) -> None:
    from workers.celery import app  # imported late: the site loads without a broker

    options: dict[str, float | int] = {"countdown": message.countdown} if message.countdown else {}
    if message.priority is not None:
        options["priority"] = message.priority
    app.send_task(message.task, args=list(message.args), queue=message.queue, **options)


_deliver: Callable[[Message], None] = _to_broker


def _send_on_commit(message: Message) -> None:
    # robust: a broker that is down (restarting) must not turn a request whose rows are committed into a
    # server error; the error is logged, and the periodic passes send unclaimed work again
    # (runs_resend_stale_queued, generation jobs, arena turns)
    transaction.on_commit(lambda: _deliver(message), robust=True)


@contextmanager
def record_sends() -> Iterator[list[Message]]:
    """Within the block, messages are appended to the yielded list instead of reaching a broker."""
    global _deliver
    sent: list[Message] = []
    previous, _deliver = _deliver, sent.append
    try:
        yield sent
    finally:
        _deliver = previous


def evaluate_run(run_id: int, *, queue: str) -> None:
    """Score a run (any worker on ``queue`` may claim it)."""
    _send_on_commit(Message(EVALUATE_RUN, (run_id,), queue))


def help_run(run_id: int, *, queue: str) -> None:
    """Ask another worker on ``queue`` to claim chunks of a running run."""
    _send_on_commit(Message(HELP_RUN, (run_id,), queue))


#: the broker priority of the site's own generation jobs (the demo model's baselines): with Redis, the lowest, so a
#: worker of the queue takes any person's job (sent at the default, the highest) before them; the GPU has one
#: worker, so a queue of their own would need a second model on it
SITE_WORK_PRIORITY = 9


def generate_submission(job_id: int, *, queue: str, site_work: bool = False) -> None:
    """Generate a submission's answers (``gpu-<kind>`` for weights, ``cpu`` for endpoints); the site's own
    (``site_work``) after every person's waiting on the same queue."""
    _send_on_commit(Message(GENERATE_SUBMISSION, (job_id,), queue, priority=SITE_WORK_PRIORITY if site_work else None))


def preflight_model(model_id: int, *, countdown: float | None = None) -> None:
    """Check a registered model on a CPU before any GPU time (now, or after ``countdown`` seconds); on the
    interactive queue, so the registrant never waits behind an evaluation run."""
    _send_on_commit(Message(PREFLIGHT_MODEL, (model_id,), INTERACTIVE, countdown))


def arena_generate_turn(turn_id: int) -> None:
    """Both answers of one arena turn."""
    _send_on_commit(Message(ARENA_GENERATE_TURN, (turn_id,), ARENA))


def arena_compute_ratings(*, countdown: float) -> None:
    """Recompute the arena's ratings after ``countdown`` seconds (votes arriving meanwhile share it), on the
    interactive queue: a vote reaches the board without waiting behind an evaluation run."""
    _send_on_commit(Message(ARENA_COMPUTE_RATINGS, (), INTERACTIVE, countdown))


def validate_judge(benchmark_id: int, *, limit: int = 0) -> None:
    """Validate a benchmark's configured judge against its current dataset's ground truth (0: every task)."""
    _send_on_commit(Message(VALIDATE_JUDGE, (benchmark_id, limit), CPU))
