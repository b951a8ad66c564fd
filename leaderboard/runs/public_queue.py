"""The public queue (``/queue/``, ``GET /api/queue/``): what is running (with progress), what waits
(in order, per worker queue) and what failed lately, with the failure's kind in words. Waiting work says
what is ahead of it and when it should start and finish, running work when it should finish, each with the
recorded durations the estimate went by (``eta.queue_schedules``; kinds and boards only). Public models
are named; any other work is "a private model" with nothing more, except to its own submitter, who
sees their work named, linked and placed in its queue. Staff see names too. Reads only."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from leaderboard.accounts import policy
from leaderboard.runs.eta import METHOD, Estimate, Slot, queue_schedules
from leaderboard.runs.models import PLATFORM_FAILURES, EvaluationRun, FailureKind, GenerationJob, RunPhase, RunStatus

#: failed work listed, and for how long
RECENT_FAILURES, FAILED_WITHIN = 20, dt.timedelta(days=2)
#: waiting work listed per section (the count says how many in all)
SHOWN = 100

#: a failure's kind in words a submitter reads: whose problem it was
FAILURE_WORDS: dict[str, str] = {
    **dict.fromkeys(PLATFORM_FAILURES, "platform fault (not charged to the submitter; retried or given back)"),
    FailureKind.INVALID_INPUT: "bad input (the predictions or settings were refused)",
    FailureKind.MODEL_LOAD: "the model did not load",
    FailureKind.OUT_OF_MEMORY: "the model ran out of memory",
    FailureKind.TIMEOUT: "the model took too long",
    FailureKind.ENDPOINT_ERROR: "the model's endpoint refused or failed",
}


@dataclass(frozen=True)
class QueueEntry:
    """One run or generation job as the queue shows it to one visitor."""

    kind: str  # "scoring" or "generating"
    what: str  # the benchmark(s)
    model: str  # the model's name, or "a private model"
    model_slug: str  # "" when not shown
    yours: bool
    link: str  # the submission's page for its submitter and staff, else ""
    queue: str
    status: str
    position: int | None  # 1-based place among the waiting work of its worker queue
    percent: float | None
    since: dt.datetime
    failure: str
    estimate: Estimate | None = None  # running and waiting work: what is ahead, when it should start and finish

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "what": self.what,
            "model": self.model,
            "model_slug": self.model_slug or None,
            "yours": self.yours,
            "queue": self.queue,
            "status": self.status,
            "position": self.position,
            "percent": self.percent,
            "since": self.since.isoformat(),
            "failure": self.failure or None,
            "estimate": self.estimate.to_dict() if self.estimate else None,
        }


@dataclass(frozen=True)
class QueueView:
    running: list[QueueEntry]
    waiting: list[QueueEntry]
    waiting_total: int
    failed: list[QueueEntry]
    yours_waiting: list[QueueEntry]
    estimated_at: dt.datetime

    @property
    def method(self) -> str:
        return METHOD

    def to_dict(self) -> dict[str, Any]:
        return {
            "running": [e.to_dict() for e in self.running],
            "waiting": [e.to_dict() for e in self.waiting],
            "waiting_total": self.waiting_total,
            "failed": [e.to_dict() for e in self.failed],
            "yours_waiting": [e.to_dict() for e in self.yours_waiting],
            "method": METHOD,
            "estimated_at": self.estimated_at.isoformat(),
        }


def _entry(
    work: EvaluationRun | GenerationJob, user: Any, position: int | None, estimate: Estimate | None = None
) -> QueueEntry:
    submission = work.submission
    model = submission.model
    uid = policy.user_id(user)
    yours = uid is not None and submission.owner_id == uid
    named = (model.is_public and submission.is_public) or yours or policy.is_staff(user)
    if isinstance(work, EvaluationRun):
        kind, what = "scoring", work.benchmark.name
        done, total = work.items_done, work.items_total
    else:
        kind = "generating"
        what = ", ".join(sorted(run.benchmark.name for run in submission.runs.all())) or "answers"
        done, total = work.requests_done, work.requests_total
    percent = round(100.0 * done / total, 1) if work.status == RunStatus.RUNNING and total else None
    since = (
        work.started_at
        if work.status == RunStatus.RUNNING and work.started_at
        else (work.finished_at if work.status == RunStatus.FAILED and work.finished_at else work.queued_at)
    )
    return QueueEntry(
        kind=kind,
        what=what,
        model=model.name if named else "a private model",
        model_slug=model.slug if named and model.is_public else "",
        yours=yours,
        link=f"/submissions/{submission.pk}/" if yours or policy.is_staff(user) else "",
        queue=work.queue,
        status=work.status,
        position=position,
        percent=percent,
        since=since,
        failure=FAILURE_WORDS.get(work.failure_kind, "failed") if work.status == RunStatus.FAILED else "",
        estimate=estimate,
    )


def _runs() -> QuerySet[EvaluationRun]:
    # a run whose model is still answering is shown as its generation job
    return EvaluationRun.objects.exclude(status=RunStatus.QUEUED, phase=RunPhase.GENERATING).select_related(
        "benchmark", "submission__model"
    )


def _jobs() -> QuerySet[GenerationJob]:
    return GenerationJob.objects.select_related("submission__model").prefetch_related("submission__runs__benchmark")


def public_queue(*, user: Any, now: dt.datetime | None = None) -> QueueView:
    """The queue as ``user`` may see it, estimated as of ``now``."""
    now = now or timezone.now()
    slots = [slot for schedule in queue_schedules(now=now).values() for slot in schedule]

    def entry(slot: Slot) -> QueueEntry:
        return _entry(slot.work, user, slot.position, slot.estimate)

    running = [
        entry(s)
        for s in sorted(
            (s for s in slots if s.position is None), key=lambda s: (s.work.started_at or s.work.queued_at, s.work.pk)
        )
    ]
    waiting = [entry(s) for s in slots if s.position is not None]
    since = now - FAILED_WITHIN
    recent: list[EvaluationRun | GenerationJob] = [
        *_runs().filter(status=RunStatus.FAILED, finished_at__gte=since).order_by("-finished_at")[:RECENT_FAILURES],
        *_jobs().filter(status=RunStatus.FAILED, finished_at__gte=since).order_by("-finished_at")[:RECENT_FAILURES],
    ]
    failed = sorted((_entry(w, user, None) for w in recent), key=lambda e: e.since, reverse=True)[:RECENT_FAILURES]
    return QueueView(
        running=running,
        waiting=waiting[:SHOWN],
        waiting_total=len(waiting),
        failed=failed,
        yours_waiting=[e for e in waiting if e.yours],
        estimated_at=now,
    )
