"""The Celery app. Queues are ``workers.routing``'s: ``cpu`` (people's runs), ``baseline`` (the site's
own runs), ``interactive`` (ratings, pre-flights, the reaper), ``arena`` and ``gpu-<kind>``. Late acks and prefetch 1,
so a worker killed mid-task leaves its message to be redelivered and takes one task at a time."""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

from celery import Celery
from celery.schedules import crontab
from celery.signals import worker_init, worker_process_init, worker_shutting_down
from kombu import Exchange, Queue

# imported here, never in the shutdown handler below: a signal that arrives while the main thread is importing
# this module would have the handler import it again, half-initialized ("cannot import name 'live_servers' from
# partially initialized module"), and the handler would fail (no server stopped, the worker left in warm shutdown)
from evaluators.llm.server import live_servers, stop_live_servers
from workers import routing

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")

app = Celery("leaderboard")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_default_queue=routing.CPU,
    # Each queue but the default has its own exchange and key: bound to the default ("cpu", "cpu") it would
    # get a copy of every cpu task.
    task_queues=[
        Queue(routing.CPU),
        *(
            Queue(name, Exchange(name, type="direct"), routing_key=name)
            for name in (routing.BASELINE, routing.INTERACTIVE, routing.ARENA)
        ),
    ],
    task_serializer="json",
    accept_content=["json"],
    task_ignore_result=True,
    broker_connection_retry_on_startup=True,
    worker_hijack_root_logger=False,
)
app.autodiscover_tasks(["workers"], related_name="tasks", force=True)


@app.on_after_configure.connect
def _schedule(sender: Celery, **_: object) -> None:
    from django.conf import settings

    sender.add_periodic_task(
        settings.RUN_REAPER_SECONDS,
        sender.signature(routing.REQUEUE_EXPIRED, queue=routing.INTERACTIVE, expires=settings.RUN_REAPER_SECONDS),
        name="re-queue runs whose worker died",
    )
    sender.add_periodic_task(
        settings.ARENA_RATINGS_BEAT_SECONDS,
        sender.signature(routing.ARENA_MAINTAIN, queue=routing.INTERACTIVE),
        name="arena: fail answers streaming past the time limit, flag anomalous voters and floods, recompute ratings",
    )
    sender.add_periodic_task(
        settings.ARENA_RATINGS_BEAT_SECONDS,
        sender.signature(
            routing.ARENA_COMPUTE_TOPICS, queue=routing.INTERACTIVE, expires=settings.ARENA_RATINGS_BEAT_SECONDS
        ),
        name="arena: the topic explorer and the prompt-conditioned ranking's neighbours, when the public votes changed",
    )
    if settings.SNAPSHOT_SCHEDULE_BOARDS:
        minute, hour, day, month, weekday = settings.SNAPSHOT_SCHEDULE_CRONTAB.split()
        sender.add_periodic_task(
            crontab(minute=minute, hour=hour, day_of_month=day, month_of_year=month, day_of_week=weekday),
            sender.signature(routing.SNAPSHOT_BOARDS, args=(settings.SNAPSHOT_SCHEDULE_BOARDS,), queue=routing.CPU),
            name="freeze the scheduled boards' snapshots",
        )


@worker_init.connect
def _refuse_concurrent_gpu_worker(sender: Any = None, **_: object) -> None:
    """A GPU worker must run one task at a time (one model load per GPU): refuse to start otherwise."""
    consumed = getattr(getattr(sender.app.amqp, "queues", None), "consume_from", None) or {}
    gpu = sorted(name for name in consumed if name.startswith("gpu-"))
    if gpu and int(sender.concurrency or 0) != 1:
        raise SystemExit(
            f"refusing to start: GPU queue(s) {', '.join(gpu)} need one task at a time "
            f"(--pool solo --concurrency 1); got concurrency {sender.concurrency}"
        )
    pool = getattr(sender.pool_cls, "__module__", str(sender.pool_cls))
    if gpu and "solo" not in pool:
        raise SystemExit(
            f"refusing to start: GPU queue(s) {', '.join(gpu)} need the solo pool (--pool solo), so the model "
            f"server belongs to the worker process itself; got pool {pool}"
        )


@worker_shutting_down.connect
def _stop_model_servers(**_: object) -> None:
    """A worker told to stop (SIGTERM, SIGINT, SIGQUIT) while a generation job has its model server up
    (``transformers serve``, ``vllm serve``, in their own process group, so no signal to the worker's
    group reaches them) stops the server now, killed and reaped, and exits at once, as a crash would: a
    warm shutdown would otherwise wait for the whole generation, and a worker killed meanwhile leaves the
    server running. The task is not acknowledged, and the job's lease lapses; the reaper queues it again,
    and it resumes from its stored answers. A worker without a server shuts down as usual. Nothing is
    imported here: a signal handler that imports can meet its module half-imported."""
    if not live_servers():
        return
    # in a thread: this handler interrupts the main thread, which may hold a server's lock (stopping it itself)
    stopping = threading.Thread(target=stop_live_servers, name="stop model servers", daemon=True)
    stopping.start()
    stopping.join(timeout=60)
    logging.getLogger(__name__).warning(
        "worker stopping: model server(s) stopped (%s left); the generation job will be queued again",
        len(live_servers()),
    )
    logging.shutdown()
    os._exit(1)


@worker_process_init.connect
def _warm_evaluators(**_: object) -> None:
    """Probe toolchain versions once per worker process, so no run pays for it."""
    from evaluators.core import evaluator_for, registered_keys

    for key in registered_keys():
        try:
            evaluator_for(key).environment()
        except Exception:  # a missing toolchain is reported by the run that needs it
            logging.getLogger(__name__).warning("could not warm evaluator %s", key, exc_info=True)
