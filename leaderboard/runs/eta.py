"""When a waiting run should start: its place on its worker queue, the work ahead of it (running and
waiting, each as "baseline" or "user" with its board; never a model's name) and an estimated start
from the recorded durations of similar finished work. Shown on the run's page and in the runs API.

How it is estimated (``METHOD``, printed with every estimate): each piece of work ahead is expected
to take what the last ``RECENT`` finished runs of its board on its dataset version took (from the
start of their last attempt to their end; a generation job: the last jobs on its queue), as the
median, and as the quickest and the slowest of them for the range. Work already running is expected
to need that minus the time it has run (never below zero). The queue's work is assumed to be taken
one at a time in order (the site's own generation jobs last: they are sent at the lowest priority);
more workers on the queue make the real wait shorter. When any work ahead has
no finished run to go by, there is no estimate ("no estimate yet"), and the page says which board
has none. The public queue page gives the same estimate for every piece of work on it (``queue_schedules``):
when waiting work should start and finish, when running work should finish, and the durations it went by.
Reads only."""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.utils import timezone

from evaluators.core import evaluator_for, judge_role
from leaderboard.runs.models import EvaluationRun, GenerationJob, RunPhase, RunStatus
from leaderboard.runs.work_kinds import BASELINE, is_site_work, work_kind
from leaderboard.setup_status import PhaseStatus, setup_notice, waits_for

#: recent finished runs whose durations make a board's estimate
RECENT = 20
#: what a run waits for, or what a piece of work ahead of it is (the API's ``work`` and ``waiting_for``)
WORK_KINDS = ["scoring", "generating"]

METHOD = (
    f"Each run ahead is expected to take what the last {RECENT} finished runs of its board on its dataset "
    "version took (the median; the range runs from the quickest to the slowest of them), less the time it "
    "has already run; the queue's worker is assumed to take them one at a time, in order."
)


@dataclass(frozen=True)
class Span:
    """A number of seconds with its range: as quick as the quickest, typical (median), as slow as the slowest."""

    low: float
    median: float
    high: float

    def __add__(self, other: Span) -> Span:
        return Span(self.low + other.low, self.median + other.median, self.high + other.high)

    def to_dict(self) -> dict[str, float]:
        return {"low": round(self.low, 1), "median": round(self.median, 1), "high": round(self.high, 1)}


ZERO = Span(0.0, 0.0, 0.0)


def moments(at: dt.datetime, span: Span | None) -> tuple[dt.datetime, dt.datetime, dt.datetime] | None:
    """``span`` seconds after ``at``: earliest, typical, latest (None for no span)."""
    if span is None:
        return None
    return (
        at + dt.timedelta(seconds=span.low),
        at + dt.timedelta(seconds=span.median),
        at + dt.timedelta(seconds=span.high),
    )


@dataclass(frozen=True)
class Typical:
    """The recorded durations (seconds) of similar finished work: how many, and their span."""

    n: int
    span: Span

    @staticmethod
    def of(durations: Sequence[float]) -> Typical | None:
        if not durations:
            return None
        return Typical(len(durations), Span(min(durations), statistics.median(durations), max(durations)))

    def left_after(self, elapsed: float) -> Span:
        """What is left of work like this that has run ``elapsed`` seconds (never below zero)."""
        return Span(*(max(0.0, s - elapsed) for s in (self.span.low, self.span.median, self.span.high)))

    def to_dict(self) -> dict[str, Any]:
        return {"runs": self.n, "seconds": self.span.to_dict()}


def run_durations(*, benchmark_id: int, dataset_version_id: int) -> list[float]:
    """Seconds the last ``RECENT`` succeeded runs of a board on a dataset version took (their last attempt)."""
    rows = (
        EvaluationRun.objects.filter(
            benchmark_id=benchmark_id,
            dataset_version_id=dataset_version_id,
            status=RunStatus.SUCCEEDED,
            progress_started_at__isnull=False,
            finished_at__isnull=False,
        )
        .order_by("-finished_at")
        .values_list("progress_started_at", "finished_at")[:RECENT]
    )
    return [(end - start).total_seconds() for start, end in rows if start is not None and end is not None]


def generation_durations(*, queue: str) -> list[float]:
    """Seconds the last ``RECENT`` succeeded generation jobs on a queue took."""
    rows = (
        GenerationJob.objects.filter(
            queue=queue, status=RunStatus.SUCCEEDED, started_at__isnull=False, finished_at__isnull=False
        )
        .order_by("-finished_at")
        .values_list("started_at", "finished_at")[:RECENT]
    )
    return [(end - start).total_seconds() for start, end in rows if start is not None and end is not None]


Work = EvaluationRun | GenerationJob


@dataclass(frozen=True)
class Ahead:
    """One piece of work ahead of a waiting run, as anyone may see it."""

    kind: str  # "baseline" (the site's own) or "user"
    work: str  # "scoring" or "generating"
    board: str  # the benchmark (a generation job: every benchmark of its submission)
    status: str  # "running" or "queued"
    seconds_left: Span | None  # None: nothing like it has finished yet

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "work": self.work,
            "board": self.board,
            "status": self.status,
            "seconds_left": self.seconds_left.to_dict() if self.seconds_left else None,
        }


@dataclass(frozen=True)
class Wait:
    """Where a waiting run stands: ``what`` it waits for (a worker to score it, or its model's generation
    job to be taken), its ``position`` among the waiting work of ``queue``, the work ``ahead``, and the
    seconds until it should start (``seconds``; None: no estimate yet, ``no_history`` names the boards
    with nothing to go by). ``own``: how long runs like it took once started. ``setup``: what `make run` is
    still setting up that it waits for (no worker yet, the toolchains, its judge), before any of that."""

    what: str
    queue: str
    position: int
    ahead: list[Ahead]
    seconds: Span | None
    no_history: tuple[str, ...]
    own: Typical | None
    estimated_at: dt.datetime
    setup: tuple[PhaseStatus, ...] = ()

    @property
    def method(self) -> str:
        return METHOD

    @property
    def running_ahead(self) -> list[Ahead]:
        return [a for a in self.ahead if a.status == RunStatus.RUNNING]

    @property
    def queued_ahead(self) -> list[Ahead]:
        return [a for a in self.ahead if a.status == RunStatus.QUEUED]

    @property
    def starts(self) -> tuple[dt.datetime, dt.datetime, dt.datetime] | None:
        """The estimated start: earliest, typical, latest."""
        return moments(self.estimated_at, self.seconds)

    def to_dict(self) -> dict[str, Any]:
        starts = self.starts
        return {
            "waiting_for": self.what,
            "queue": self.queue,
            "position": self.position,
            "ahead": [a.to_dict() for a in self.ahead],
            "estimate": None
            if self.seconds is None or starts is None
            else {
                "seconds": self.seconds.to_dict(),
                "start_earliest": starts[0].isoformat(),
                "start": starts[1].isoformat(),
                "start_latest": starts[2].isoformat(),
            },
            "no_estimate_because": (
                f"no run of {', '.join(self.no_history)} has finished yet" if self.no_history else None
            ),
            "own_duration": self.own.to_dict() if self.own else None,
            "method": METHOD,
            "estimated_at": self.estimated_at.isoformat(),
        }


class _History:
    """Each board's (and queue's) recorded durations, read once per estimate."""

    def __init__(self) -> None:
        self.runs: dict[tuple[int, int], Typical | None] = {}
        self.jobs: dict[str, Typical | None] = {}

    def of(self, work: Work) -> Typical | None:
        if isinstance(work, EvaluationRun):
            key = (work.benchmark_id, work.dataset_version_id)
            if key not in self.runs:
                self.runs[key] = Typical.of(run_durations(benchmark_id=key[0], dataset_version_id=key[1]))
            return self.runs[key]
        if work.queue not in self.jobs:
            self.jobs[work.queue] = Typical.of(generation_durations(queue=work.queue))
        return self.jobs[work.queue]

    @staticmethod
    def label(work: Work) -> str:
        """What the durations of work like this are the durations of, in words."""
        return f"{work.benchmark.name} runs" if isinstance(work, EvaluationRun) else f"generation jobs on {work.queue}"


def _board(work: Work) -> str:
    if isinstance(work, EvaluationRun):
        return work.benchmark.name
    return ", ".join(sorted(run.benchmark.name for run in work.submission.runs.all())) or "answers"


def _work(status: str, queue: str | None = None) -> list[Work]:
    """The runs and generation jobs in ``status`` (on ``queue``, or on every queue) in the order their queues
    take them; a run whose model is still answering is left out (its generation job stands for it)."""
    runs = (
        EvaluationRun.objects.filter(status=status)
        .exclude(status=RunStatus.QUEUED, phase=RunPhase.GENERATING)
        .select_related("benchmark", "submission__owner", "submission__model")
    )
    jobs = (
        GenerationJob.objects.filter(status=status)
        .select_related("submission__owner", "submission__model")
        .prefetch_related("submission__runs__benchmark")
    )
    if queue is not None:
        runs, jobs = runs.filter(queue=queue), jobs.filter(queue=queue)
    # the site's own generation jobs are sent at the lowest priority: the queue takes everything else first
    return sorted(
        [*runs, *jobs], key=lambda w: (isinstance(w, GenerationJob) and is_site_work(w.submission), w.queued_at, w.pk)
    )


def _waited_on(run: EvaluationRun) -> Work | None:
    """What the run waits for a worker to take: itself, or its model's generation job; None when nothing waits."""
    if run.status != RunStatus.QUEUED:
        return None
    if run.phase != RunPhase.GENERATING:
        return run
    job = GenerationJob.objects.filter(submission_id=run.submission_id, status=RunStatus.QUEUED).first()
    return job


@dataclass(frozen=True)
class Estimate:
    """What is said of one piece of work on its queue, as anyone may see it (seconds from ``estimated_at``):
    the work ``ahead`` of it (none for running work), when it should ``start`` (running work: now) and
    ``finish`` (None: no estimate; ``no_history`` names the boards ahead with nothing to go by, ``own`` is
    None when work like it has never finished), and the recorded durations the figures come from
    (``basis``: what they are the durations of, and how many there were and how long they took)."""

    status: str
    ahead: tuple[Ahead, ...]
    start: Span | None
    finish: Span | None
    no_history: tuple[str, ...]
    own: Typical | None
    basis: tuple[tuple[str, Typical], ...]
    estimated_at: dt.datetime

    @property
    def method(self) -> str:
        return METHOD

    @property
    def running_ahead(self) -> int:
        return sum(1 for a in self.ahead if a.status == RunStatus.RUNNING)

    @property
    def queued_ahead(self) -> int:
        return sum(1 for a in self.ahead if a.status == RunStatus.QUEUED)

    @property
    def baseline_ahead(self) -> int:
        return sum(1 for a in self.ahead if a.kind == BASELINE)

    @property
    def starts(self) -> tuple[dt.datetime, dt.datetime, dt.datetime] | None:
        """The estimated start: earliest, typical, latest."""
        return moments(self.estimated_at, self.start)

    @property
    def finishes(self) -> tuple[dt.datetime, dt.datetime, dt.datetime] | None:
        """The estimated end: earliest, typical, latest."""
        return moments(self.estimated_at, self.finish)

    def to_dict(self) -> dict[str, Any]:
        def moment(span: Span | None) -> dict[str, Any] | None:
            at = moments(self.estimated_at, span)
            if span is None or at is None:
                return None
            return {
                "seconds": span.to_dict(),
                "earliest": at[0].isoformat(),
                "typical": at[1].isoformat(),
                "latest": at[2].isoformat(),
            }

        return {
            "ahead": {"running": self.running_ahead, "queued": self.queued_ahead, "baseline": self.baseline_ahead},
            "start": moment(self.start),
            "finish": moment(self.finish),
            "no_estimate_because": (
                f"no run of {', '.join(self.no_history)} has finished yet" if self.no_history else None
            ),
            "basis": [{"of": label, **typical.to_dict()} for label, typical in self.basis],
            "method": METHOD,
            "estimated_at": self.estimated_at.isoformat(),
        }


@dataclass(frozen=True)
class Slot:
    """One piece of work on a worker queue, its place among the queue's waiting work (None: running) and
    its estimate."""

    work: Work
    position: int | None
    estimate: Estimate


def _schedule(running: Sequence[Work], queued: Sequence[Work], history: _History, now: dt.datetime) -> list[Slot]:
    """Every piece of work on one queue with its estimate: running work needs what is left of work like it;
    waiting work starts once everything ahead of it (all the running work, then the waiting work before it,
    taken one at a time) is done, and needs what work like it takes."""
    slots: list[Slot] = []
    ahead: list[Ahead] = []
    total: Span | None = ZERO
    missing: list[str] = []
    basis: dict[str, Typical] = {}

    def add(work: Work, left: Span | None) -> None:
        nonlocal total
        ahead.append(
            Ahead(
                kind=work_kind(work.submission),
                work="scoring" if isinstance(work, EvaluationRun) else "generating",
                board=_board(work),
                status=work.status,
                seconds_left=left,
            )
        )
        if left is None:
            missing.append(_board(work))
            total = None
        elif total is not None:
            total = total + left

    for work in running:
        typical = history.of(work)
        began = (work.progress_started_at if isinstance(work, EvaluationRun) else None) or work.started_at or now
        left = typical.left_after(max(0.0, (now - began).total_seconds())) if typical else None
        own = {history.label(work): typical} if typical else {}
        slots.append(
            Slot(
                work,
                None,
                Estimate(
                    status=work.status,
                    ahead=(),
                    start=ZERO,
                    finish=left,
                    no_history=(),
                    own=typical,
                    basis=tuple(own.items()),
                    estimated_at=now,
                ),
            )
        )
        add(work, left)
        basis.update(own)
    for place, work in enumerate(queued, start=1):
        typical = history.of(work)
        used = {**basis, **({history.label(work): typical} if typical else {})}
        finish = total + typical.span if total is not None and typical else None
        slots.append(
            Slot(
                work,
                place,
                Estimate(
                    status=work.status,
                    ahead=tuple(ahead),
                    start=total,
                    finish=finish,
                    no_history=tuple(dict.fromkeys(missing)),
                    own=typical,
                    basis=tuple(used.items()),
                    estimated_at=now,
                ),
            )
        )
        add(work, typical.span if typical else None)
        if typical:
            basis[history.label(work)] = typical
    return slots


def queue_schedules(*, now: dt.datetime | None = None) -> dict[str, list[Slot]]:
    """Every worker queue's running and waiting work with its estimate (running work first, then the waiting
    work in the order the queue takes it), for the public queue page."""
    now = now or timezone.now()
    history = _History()
    running, queued = _work(RunStatus.RUNNING), _work(RunStatus.QUEUED)
    names = sorted({w.queue for w in [*running, *queued]})
    return {
        name: _schedule([w for w in running if w.queue == name], [w for w in queued if w.queue == name], history, now)
        for name in names
    }


def run_wait(*, run: EvaluationRun, now: dt.datetime | None = None) -> Wait | None:
    """Where a queued run stands and when it should start; None unless it waits for a worker."""
    waiting = _waited_on(run)
    if waiting is None:
        return None
    now = now or timezone.now()
    history = _History()
    queued = _work(RunStatus.QUEUED, waiting.queue)
    place = next((i for i, w in enumerate(queued) if type(w) is type(waiting) and w.pk == waiting.pk), len(queued))
    slot = _schedule(_work(RunStatus.RUNNING, waiting.queue), [*queued[:place], waiting], history, now)[-1]
    found = slot.estimate
    setup = (
        tuple(
            waits_for(
                judged=bool(judge_role(run.evaluator_key)),
                analysis=evaluator_for(run.evaluator_key).generation().uses_analysis_libraries(),
            )
        )
        if setup_notice()
        else ()
    )
    return Wait(
        what="scoring" if isinstance(waiting, EvaluationRun) else "generating",
        queue=waiting.queue,
        position=place + 1,
        ahead=list(found.ahead),
        seconds=found.start,
        no_history=found.no_history,
        own=history.of(run),
        estimated_at=now,
        setup=setup,
    )
