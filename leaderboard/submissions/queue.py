"""The public queue (``/queue/``, ``GET /api/queue/``): what is running (with progress), what waits
(in order, per worker queue) and what failed lately, with the failure's kind in words. Public models
are named; any other work is "a private model" with nothing more, except to its own submitter, who
sees their work named, linked and placed in its queue. Staff see names too. Reads only."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone

from leaderboard.accounts import policy
from leaderboard.submissions.models import PLATFORM_FAILURES, EvaluationRun, FailureKind, GenerationJob, RunPhase, RunStatus

#: failed work listed, and for how long
RECENT_FAILURES, FAILED_WITHIN = 20, dt.timedelta(days=2)
#: waiting work listed per section (the count says how many in all)
SHOWN = 100

#: a failure's kind in words a submitter reads: whose problem it was
FAILURE_WORDS: dict[str, str] = {
    **{kind: "platform fault (not charged to the submitter; retried or given back)" for kind in PLATFORM_FAILURES},
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

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "what": self.what, "model": self.model, "model_slug": self.model_slug or None,
                "yours": self.yours, "queue": self.queue, "status": self.status, "position": self.position,
                "percent": self.percent, "since": self.since.isoformat(), "failure": self.failure or None}


@dataclass(frozen=True)
class QueueView:
    running: list[QueueEntry]
    waiting: list[QueueEntry]
    waiting_total: int
    failed: list[QueueEntry]
    yours_waiting: list[QueueEntry]

    def to_dict(self) -> dict[str, Any]:
        return {"running": [e.to_dict() for e in self.running], "waiting": [e.to_dict() for e in self.waiting],
                "waiting_total": self.waiting_total, "failed": [e.to_dict() for e in self.failed],
                "yours_waiting": [e.to_dict() for e in self.yours_waiting]}


def _entry(work: EvaluationRun | GenerationJob, user: Any, position: int | None) -> QueueEntry:
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
    since = work.started_at if work.status == RunStatus.RUNNING and work.started_at else (
        work.finished_at if work.status == RunStatus.FAILED and work.finished_at else work.queued_at)
    return QueueEntry(kind=kind, what=what, model=model.name if named else "a private model",
                      model_slug=model.slug if named and model.is_public else "", yours=yours,
                      link=f"/submissions/{submission.pk}/" if yours or policy.is_staff(user) else "", queue=work.queue,
                      status=work.status, position=position, percent=percent, since=since,
                      failure=FAILURE_WORDS.get(work.failure_kind, "failed") if work.status == RunStatus.FAILED else "")


def _runs() -> QuerySet[EvaluationRun]:
    # a run whose model is still answering is shown as its generation job
    return (EvaluationRun.objects.exclude(status=RunStatus.QUEUED, phase=RunPhase.GENERATING)
            .select_related("benchmark", "submission__model"))


def _jobs() -> QuerySet[GenerationJob]:
    return GenerationJob.objects.select_related("submission__model").prefetch_related("submission__runs__benchmark")


def _both(status: str) -> list[EvaluationRun | GenerationJob]:
    return [*_runs().filter(status=status), *_jobs().filter(status=status)]


def public_queue(*, user: Any) -> QueueView:
    """The queue as ``user`` may see it."""
    running = [_entry(w, user, None) for w in sorted(_both(RunStatus.RUNNING), key=lambda w: (w.started_at or w.queued_at, w.pk))]
    places: dict[str, int] = {}
    waiting = []
    for work in sorted(_both(RunStatus.QUEUED), key=lambda w: (w.queue, w.queued_at, w.pk)):
        places[work.queue] = places.get(work.queue, 0) + 1
        waiting.append(_entry(work, user, places[work.queue]))
    since = timezone.now() - FAILED_WITHIN
    recent: list[EvaluationRun | GenerationJob] = [
        *_runs().filter(status=RunStatus.FAILED, finished_at__gte=since).order_by("-finished_at")[:RECENT_FAILURES],
        *_jobs().filter(status=RunStatus.FAILED, finished_at__gte=since).order_by("-finished_at")[:RECENT_FAILURES]]
    failed = sorted((_entry(w, user, None) for w in recent), key=lambda e: e.since, reverse=True)[:RECENT_FAILURES]
    return QueueView(running=running, waiting=waiting[:SHOWN], waiting_total=len(waiting), failed=failed,
                     yours_waiting=[e for e in waiting if e.yours])
