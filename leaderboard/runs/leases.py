"""The lease life cycle that evaluation runs and generation jobs share (``LeasedWork``), and the one
task body that runs either.

A worker *claims* queued work with a compare-and-set UPDATE (so a redelivered message does
nothing), keeps the lease alive with a *heartbeat* thread, *appends* to its log, and ends it by
completing it, *failing* it with a classified reason, or *releasing* it for a retry; the reaper
*re-queues* work whose lease expired, up to its ``max_attempts``. Runs and jobs add their own
columns and side effects (a run's quota, a job's waiting runs) in ``services``; the life cycle is
written once, here. Chunks of a run use the same columns (``lease_token``, ``lease_expires_at``).
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.db import DatabaseError, close_old_connections, transaction
from django.db.models import F, Q, Value
from django.db.models.expressions import Combinable
from django.db.models.functions import Coalesce, Concat
from django.utils import timezone

from evaluators.core import InfrastructureError
from leaderboard.runs.models import FailureKind, LeasedWork, RunStatus

log = logging.getLogger(__name__)
Work = TypeVar("Work", bound=LeasedWork)


class LeaseLost(RuntimeError):
    """The work was cancelled or handed to another worker while this one was working."""


@dataclass(frozen=True)
class Claim:
    """A worker's hold on one piece of work: its id, the lease token and the attempt it is."""

    work_id: int
    token: uuid.UUID
    attempt: int


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def lease_expiry(now: dt.datetime | None = None) -> dt.datetime:
    return (now or timezone.now()) + dt.timedelta(seconds=settings.RUN_LEASE_SECONDS)


def log_line(line: str) -> Combinable:
    """An expression appending one time-stamped line to a ``log`` column, for any UPDATE."""
    return Concat(F("log"), Value(f"[{timezone.now().strftime('%H:%M:%S')}] {line}\n"))


def claim(model: type[Work], *, pk: int, worker: str, exclude: Q | None = None, **updates: Any) -> Claim | None:
    """Take queued work for ``worker`` (plus ``updates`` in the same UPDATE). None when another
    worker has it, it is finished, or ``exclude`` matches it."""
    token = uuid.uuid4()
    now = timezone.now()
    queued = model._default_manager.filter(pk=pk, status=RunStatus.QUEUED)
    if exclude is not None:
        queued = queued.exclude(exclude)
    taken = queued.update(
        status=RunStatus.RUNNING,
        lease_token=token,
        lease_expires_at=lease_expiry(now),
        heartbeat_at=now,
        attempt=F("attempt") + 1,
        worker=worker[:200],
        started_at=Coalesce(F("started_at"), Value(now)),
        **updates,
    )
    if not taken:
        return None
    attempt = model._default_manager.values_list("attempt", flat=True).get(pk=pk)
    return Claim(work_id=pk, token=token, attempt=attempt)


def held(model: type[Work], held_claim: Claim) -> Any:
    """The work's row while this claim holds it (a QuerySet to update or test)."""
    return model._default_manager.filter(pk=held_claim.work_id, lease_token=held_claim.token, status=RunStatus.RUNNING)


def heartbeat(model: type[Work], held_claim: Claim) -> bool:
    """Extend the lease. False: the work was cancelled or taken over, and the worker must stop."""
    now = timezone.now()
    return bool(held(model, held_claim).update(heartbeat_at=now, lease_expires_at=lease_expiry(now)))


def append_log(model: type[Work], *, pk: int, line: str) -> None:
    model._default_manager.filter(pk=pk).update(log=log_line(line))


def release_for_retry(model: type[Work], held_claim: Claim) -> None:
    """Expire the lease now, so the reaper re-queues the work (after an infrastructure error)."""
    model._default_manager.filter(pk=held_claim.work_id, lease_token=held_claim.token).update(
        lease_expires_at=timezone.now()
    )


def mark_failed(
    model: type[Work], *, pk: int, kind: FailureKind | str, message: str, held_claim: Claim | None = None
) -> bool:
    """Fail queued or running work (only while ``held_claim`` holds it, when given) with its reason."""
    rows = model._default_manager.filter(pk=pk, status__in=[RunStatus.QUEUED, RunStatus.RUNNING])
    if held_claim is not None:
        rows = held(model, held_claim).filter(pk=pk)
    return bool(
        rows.update(
            status=RunStatus.FAILED,
            failure_kind=kind,
            failure_message=message[:10_000],
            finished_at=timezone.now(),
            lease_token=None,
            lease_expires_at=None,
        )
    )


def requeue_expired(
    model: type[Work],
    *,
    now: dt.datetime,
    reason: Callable[[Work], str],
    send: Callable[[Work], None],
    give_up: Callable[[Work, str], bool],
) -> tuple[int, int]:
    """Re-queue running work whose lease expired (its worker died) and ``send`` its message again, or,
    after its last attempt, ``give_up`` on it (which fails it). Returns (re-queued, given up)."""
    requeued = failed = 0
    for work in model._default_manager.filter(status=RunStatus.RUNNING, lease_expires_at__lt=now):
        why = reason(work)
        if work.attempt < work.max_attempts:
            with transaction.atomic():
                if model._default_manager.filter(
                    pk=work.pk, lease_token=work.lease_token, status=RunStatus.RUNNING
                ).update(
                    status=RunStatus.QUEUED,
                    lease_token=None,
                    lease_expires_at=None,
                    worker="",
                    queued_at=now,
                    log=log_line(f"{why}; re-queued (attempt {work.attempt} of {work.max_attempts} used)"),
                ):
                    send(work)
                    requeued += 1
        elif give_up(work, f"{why}; gave up after {work.attempt} attempts"):
            failed += 1
    return requeued, failed


def resend_stale_queued(rows: Any, *, now: dt.datetime, send: Callable[[Any], None]) -> int:
    """Send again the queued work in ``rows`` whose message went out more than RUN_QUEUED_RESEND_SECONDS
    ago (a broker restarted without persistence loses its messages). Harmless when the first message
    is alive: the claim is a compare-and-set, so only one worker ever runs the work."""
    stale = list(
        rows.filter(
            status=RunStatus.QUEUED, queued_at__lt=now - dt.timedelta(seconds=settings.RUN_QUEUED_RESEND_SECONDS)
        )
    )
    for work in stale:
        with transaction.atomic():
            if rows.model._default_manager.filter(pk=work.pk, status=RunStatus.QUEUED).update(queued_at=now):
                send(work)
    return len(stale)


class Heartbeat(threading.Thread):
    """Calls ``beat`` every few seconds; sets ``lost`` when it answers False (the lease is gone)."""

    def __init__(self, name: str, beat: Callable[[], bool]) -> None:
        super().__init__(daemon=True, name=name)
        self.beat = beat
        self.lost = threading.Event()
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.wait(settings.RUN_HEARTBEAT_SECONDS):
            try:
                if not self.beat():
                    self.lost.set()
                    return
            except DatabaseError:
                log.warning("%s failed; retrying", self.name, exc_info=True)
            finally:
                close_old_connections()

    def stop(self) -> None:
        self._halt.set()


def failure_outcome(exc: Exception, *, what: str, retry: Callable[[str], bool], fail: Callable[[str, str], Any]) -> str:
    """The last word on an exception that ended a run or a generation job, once the specific cases
    are handled: the machine's fault (InfrastructureError, OSError, a database error) is retried
    while ``retry(message)`` allows, then failed as infrastructure; Celery's soft time limit is a
    timeout; anything else is an evaluator error (logged with its traceback). ``fail(kind, message)``
    records the failure. Returns what happened, for the task's log line."""
    if isinstance(exc, (InfrastructureError, OSError, DatabaseError)):
        message = f"{type(exc).__name__}: {exc}"
        if retry(message):
            return "re-queued after an infrastructure error"
        fail(FailureKind.INFRASTRUCTURE, message)
        return "failed: infrastructure"
    if type(exc).__name__ == "SoftTimeLimitExceeded":
        fail(FailureKind.TIMEOUT, f"{what} exceeded its time limit of {settings.RUN_SOFT_TIME_LIMIT} s")
        return "failed: timeout"
    log.exception("evaluator error in %s", what)
    fail(FailureKind.EVALUATOR_ERROR, f"{type(exc).__name__}: {exc}")
    return "failed: evaluator error"


@dataclass(frozen=True)
class Refusal:
    """An exception a kind of work recognizes as its own failure, not the machine's: how to fail it."""

    kind: str
    message: str
    outcome: str  # for the task's log line, e.g. "failed: invalid input"


@dataclass(frozen=True)
class LeasedTask:
    """How one kind of leased work is run by ``execute_leased``."""

    model: type[LeasedWork]
    what: str  # "run" or "generation job", for messages
    claim: Callable[[int, str], Claim | None]
    beat: Callable[[Claim], bool]
    #: the work itself, given the claim, the running heartbeat and the worker's name; returns the outcome
    body: Callable[[Claim, Heartbeat, str], str]
    #: the work's own refusals: an exception -> how to fail, or None when it is not one of them
    refusal: Callable[[Exception], Refusal | None]
    fail: Callable[[Claim, str, str], Any]
    #: what to say (and do) when the lease is lost
    lease_lost: Callable[[Claim], str]


def execute_leased(task: LeasedTask, *, pk: int, worker: str | None = None) -> str:
    """The task body of every leased work: claim it, keep the heartbeat, run ``task.body``, and
    classify whatever ends it. Returns what happened, for the task's log line."""
    worker = worker or worker_name()
    held_claim = task.claim(pk, worker)
    if held_claim is None:
        return "skipped: not queued (already claimed, finished or cancelled)"
    beat = Heartbeat(f"heartbeat-{task.what.replace(' ', '-')}-{pk}", lambda: task.beat(held_claim))
    beat.start()
    try:
        return task.body(held_claim, beat, worker)
    except LeaseLost:
        return task.lease_lost(held_claim)
    except Exception as exc:  # noqa: BLE001 - every failure is classified: refused, retried or failed
        refused = task.refusal(exc)
        if refused is not None:
            task.fail(held_claim, refused.kind, refused.message)
            return refused.outcome

        def retry(message: str) -> bool:
            max_attempts = task.model._default_manager.values_list("max_attempts", flat=True).get(pk=pk)
            if held_claim.attempt >= max_attempts:
                return False
            append_log(task.model, pk=pk, line=f"infrastructure error, will retry: {message}")
            release_for_retry(task.model, held_claim)
            return True

        return failure_outcome(
            exc, what=f"{task.what} {pk}", retry=retry, fail=lambda kind, message: task.fail(held_claim, kind, message)
        )
    finally:
        beat.stop()
