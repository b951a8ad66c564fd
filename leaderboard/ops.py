"""What an operator needs at a glance, for the staff-only status page (/ops/status/): the workers
seen on each queue, how many messages wait on each, the runs and generation jobs in progress, and
when the beat last ticked (the periodic re-queue task records it). Every part that cannot be read
(the broker is down, no worker answers) says so instead of failing the page."""

from __future__ import annotations

import datetime as dt
import logging
from dataclasses import dataclass, field

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from leaderboard import task_sends
from leaderboard.pagecache import quietly
from leaderboard.runs.models import EvaluationRun, GenerationJob, RunStatus

log = logging.getLogger(__name__)
BEAT_KEY = "ops:last-beat"


@dataclass
class QueueState:
    name: str
    waiting: int | None  # None: the broker could not be asked
    workers: list[str] = field(default_factory=list)


@dataclass
class OpsStatus:
    queues: list[QueueState]
    running_runs: list[EvaluationRun]
    running_jobs: list[GenerationJob]
    queued_runs: int
    queued_jobs: int
    last_beat: dt.datetime | None
    beat_late: bool
    problems: list[str]


def beat_ticked() -> None:
    """Called by the beat's periodic task: the time the status page shows as the last beat."""
    quietly(lambda: cache.set(BEAT_KEY, timezone.now().isoformat(), None))


def _workers_by_queue(timeout: float, problems: list[str]) -> dict[str, list[str]]:
    from workers.celery import app  # imported late: the site loads without a broker

    try:
        replies = app.control.inspect(timeout=timeout).active_queues() or {}
    except Exception as exc:  # noqa: BLE001 - the broker is down: the page says so
        problems.append(f"the broker did not answer ({type(exc).__name__}: {exc})")
        return {}
    seen: dict[str, list[str]] = {}
    for worker, consumed in replies.items():
        for queue in consumed or []:
            seen.setdefault(queue["name"], []).append(worker)
    return seen


def _waiting(names: list[str], problems: list[str]) -> dict[str, int | None]:
    from workers.celery import app

    counts: dict[str, int | None] = dict.fromkeys(names)
    try:
        with app.connection_for_read() as connection:
            connection.ensure_connection(max_retries=1)
            for name in names:
                channel = connection.channel()
                try:
                    counts[name] = channel.queue_declare(queue=name, passive=True).message_count
                except Exception:  # noqa: BLE001 - a queue nobody declared yet (Redis: no key while empty) holds nothing
                    counts[name] = 0
                finally:
                    channel.close()
    except Exception as exc:  # noqa: BLE001 - the page says the broker did not answer
        problems.append(f"queue lengths unknown: the broker did not answer ({type(exc).__name__})")
    return counts


def ops_status(*, timeout: float = 1.0) -> OpsStatus:
    problems: list[str] = []
    seen = _workers_by_queue(timeout, problems)
    names = sorted(
        {
            task_sends.CPU,
            task_sends.BASELINE,
            task_sends.INTERACTIVE,
            task_sends.ARENA,
            task_sends.gpu_queue(settings.GPU_KIND),
            *seen,
        }
    )
    waiting = _waiting(names, problems)
    for name in names:
        if not seen.get(name):
            problems.append(f"no worker answered on queue '{name}'")
    beat = quietly(lambda: cache.get(BEAT_KEY))
    last_beat = dt.datetime.fromisoformat(beat) if beat else None
    late_after = dt.timedelta(seconds=3 * settings.RUN_REAPER_SECONDS + 10)
    beat_late = last_beat is None or timezone.now() - last_beat > late_after
    if beat_late:
        problems.append("the beat has not ticked recently: start one worker with -B (or `celery beat`)")
    running = (
        EvaluationRun.objects.filter(status=RunStatus.RUNNING)
        .select_related("benchmark", "submission__model")
        .order_by("started_at")
    )
    jobs = (
        GenerationJob.objects.filter(status=RunStatus.RUNNING)
        .select_related("submission__model")
        .order_by("started_at")
    )
    return OpsStatus(
        queues=[QueueState(name, waiting.get(name), sorted(seen.get(name, []))) for name in names],
        running_runs=list(running[:50]),
        running_jobs=list(jobs[:50]),
        queued_runs=EvaluationRun.objects.filter(status=RunStatus.QUEUED).count(),
        queued_jobs=GenerationJob.objects.filter(status=RunStatus.QUEUED).count(),
        last_beat=last_beat,
        beat_late=beat_late,
        problems=problems,
    )
