"""Executing one evaluation run in a worker: claim it, keep its lease alive, score the items that
are not yet scored in batches, aggregate and complete it, or fail it with a classified reason.

This is the service a Celery task calls; it also runs in-process (the pipeline benchmark does).
"""
from __future__ import annotations

import importlib.metadata
import logging
import os
import platform
import socket
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import DatabaseError, close_old_connections
from django.utils import timezone

from evaluators.core import (Evaluator, InfrastructureError, Item, ItemScore, Prediction, PredictionsError, evaluator_version,
                             get_evaluator)
from evaluators.core.files import parse_predictions, read_items
from evaluators.core.runner import group_predictions
from leaderboard.catalog.services import dataset_items_path
from leaderboard.modelhost import judging
from leaderboard.submissions import services
from leaderboard.submissions.models import EvaluationRun, FailureKind, ItemResult, RunStatus

log = logging.getLogger(__name__)
LIBRARIES = ("django", "celery", "numpy", "psycopg", "boto3")


class LeaseLost(RuntimeError):
    """The run was cancelled or handed to another worker while this one was working."""


class _Heartbeat(threading.Thread):
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


def worker_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def environment_versions(evaluator_environment: dict[str, str]) -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    versions.update(evaluator_environment)
    return versions


def run_execute(*, run_id: int, worker: str | None = None) -> str:
    """Run one evaluation to its end. Returns what happened, for the task's log line."""
    claim = services.run_claim(run_id=run_id, worker=worker or worker_name())
    if claim is None:
        return "skipped: not queued (already claimed, finished or cancelled)"
    heartbeat = _Heartbeat(f"heartbeat-run-{run_id}", lambda: services.run_heartbeat(claim=claim))
    heartbeat.start()
    try:
        _score_run(claim, heartbeat, worker or worker_name())
        return "succeeded"
    except LeaseLost:
        return "stopped: lease lost (cancelled or taken over)"
    except PredictionsError as exc:
        services.run_fail(run_id=run_id, claim=claim, kind=FailureKind.INVALID_INPUT, message=str(exc))
        return "failed: invalid input"
    except judging.JudgeNotConfigured as exc:  # the site's configuration, not the submission, is at fault
        services.run_fail(run_id=run_id, claim=claim, kind=FailureKind.INFRASTRUCTURE, message=str(exc))
        return "failed: judge not configured"
    except Exception as exc:
        def retry(message: str) -> bool:
            if claim.attempt >= _max_attempts(run_id):
                return False
            services.run_append_log(run_id=run_id, line=f"infrastructure error, will retry: {message}")
            _release_for_retry(claim)
            return True

        return failure_outcome(exc, what=f"run {run_id}", retry=retry,
                               fail=lambda kind, message: services.run_fail(run_id=run_id, claim=claim, kind=kind, message=message))
    finally:
        heartbeat.stop()


def failure_outcome(exc: Exception, *, what: str, retry: Callable[[str], bool], fail: Callable[[str, str], None]) -> str:
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


def _max_attempts(run_id: int) -> int:
    return EvaluationRun.objects.values_list("max_attempts", flat=True).get(pk=run_id)


def _release_for_retry(claim: services.Claim) -> None:
    """Let the reaper re-queue it: expire the lease now."""
    EvaluationRun.objects.filter(pk=claim.run_id, lease_token=claim.token).update(lease_expires_at=timezone.now())


@dataclass
class _Work:
    """What scoring a run needs, loaded once per worker and run."""

    run: EvaluationRun
    evaluator: Evaluator
    items: dict[str, Item]
    predictions: list[Prediction]
    primary: str | None
    judge: dict[str, str] | None = None  # the judge's record for the run's environment, if it has one


def _load(run_id: int) -> _Work:
    run = EvaluationRun.objects.select_related("submission", "dataset_version", "benchmark").get(pk=run_id)
    evaluator = get_evaluator(run.evaluator_key)
    if run.evaluator_settings and hasattr(evaluator, "configured"):
        evaluator = evaluator.configured(run.evaluator_settings)
    evaluator, judge = _with_judge(evaluator)
    items = read_items(dataset_items_path(run.dataset_version, Path(settings.VAR_DIR) / "cache" / "datasets"))
    with default_storage.open(run.predictions_key or run.submission.predictions_key, "rb") as handle:
        predictions = parse_predictions(handle.read(), (item.id for item in items), max_bytes=settings.PREDICTIONS_MAX_BYTES)
    primary = next((c.key for c in evaluator.metric_columns if c.primary), None)
    return _Work(run, evaluator, {item.id: item for item in items}, predictions, primary, judge)


def _with_judge(evaluator: Evaluator) -> tuple[Evaluator, dict[str, str] | None]:
    """An evaluator with a ``judge_role`` gets the judge configured under that key (see
    ``evaluators.core.protocol``); returns it with the record the run stores."""
    role = getattr(evaluator, "judge_role", "")
    if not role:
        return evaluator, None
    judge = judging.judge_for(role)
    return evaluator.with_judge(judge), judging.judge_record(judge.spec, role)  # type: ignore[attr-defined]


def _score_run(claim: services.Claim, heartbeat: _Heartbeat, worker: str) -> None:
    started = time.monotonic()
    work = _load(claim.run_id)
    run = work.run
    generation = {"generation": run.environment["generation"]} if "generation" in (run.environment or {}) else {}
    judge = {"judge": work.judge} if work.judge else {}
    services.run_set_provenance(claim=claim, evaluator_version=evaluator_version(run.evaluator_key),
                                environment={**environment_versions(work.evaluator.environment()), **generation, **judge})
    remaining = services.chunks_unfinished(run_id=run.pk)
    helpers = services.run_request_helpers(run=run, count=settings.RUN_HELPERS)
    services.run_append_log(run_id=run.pk, line=f"attempt {claim.attempt}: {remaining} chunk(s) to score, {helpers} helper(s) asked "
                                                 f"(dataset and predictions loaded in {time.monotonic() - started:.1f} s)")
    started = time.monotonic()
    while True:
        _score_chunks(work, worker, stop=heartbeat.lost)
        if heartbeat.lost.is_set():
            raise LeaseLost()
        if services.chunks_unfinished(run_id=run.pk) == 0:
            break
        time.sleep(1.0)  # chunks held by helpers: wait for them, or take them over when their claims expire
    scored_in = time.monotonic() - started
    started = time.monotonic()
    all_scores = [ItemScore(item_id=item_id, slices=slices, scores=scores, detail=detail, error=error)
                  for item_id, slices, scores, detail, error in ItemResult.objects.filter(run_id=run.pk).values_list(
                      "item_id", "slices", "scores", "detail", "error")]
    metrics = work.evaluator.aggregate(all_scores, seed=run.pk)
    if heartbeat.lost.is_set() or not services.run_complete(claim=claim, metrics=metrics):
        raise LeaseLost()
    services.run_append_log(run_id=run.pk, line=f"succeeded: {len(all_scores)} items; scoring took {scored_in:.1f} s, "
                                                 f"aggregation {time.monotonic() - started:.1f} s")


@dataclass
class _OpenChunk:
    """A claimed chunk being scored: its lease heartbeat, items left, and results not yet written."""

    claim: services.ChunkClaim
    beat: _Heartbeat
    remaining: int
    batch: list[ItemScore] = field(default_factory=list)
    last_flush: float = field(default_factory=time.monotonic)

    def flush(self, primary: str | None) -> None:
        if self.batch:
            if self.beat.lost.is_set() or not services.chunk_record_items(claim=self.claim, item_scores=self.batch, primary_key=primary):
                raise LeaseLost()
            self.batch, self.last_flush = [], time.monotonic()


def _open_chunk(work: _Work, worker: str) -> tuple[_OpenChunk, list[Item]] | None:
    claim = services.chunk_claim(run_id=work.run.pk, worker=worker)
    if claim is None:
        return None
    done = set(ItemResult.objects.filter(run_id=claim.run_id, item_id__in=claim.item_ids).values_list("item_id", flat=True))
    todo = [work.items[i] for i in claim.item_ids if i in work.items and i not in done]
    beat = _Heartbeat(f"heartbeat-chunk-{claim.chunk_id}", lambda: services.chunk_heartbeat(claim=claim))
    beat.start()
    return _OpenChunk(claim, beat, len(todo)), todo


def _score_chunks(work: _Work, worker: str, *, stop: threading.Event) -> int:
    """Claim chunks of the run and score their items on one pool of ``RUN_CONCURRENCY`` threads
    until none is left to take. The next chunk is claimed as soon as the current one has no item
    left to start, so the pool never idles at a chunk's tail. Returns the chunks finished."""
    concurrency = max(1, settings.RUN_CONCURRENCY)
    grouped = group_predictions(work.predictions)
    waiting: deque[tuple[_OpenChunk, Item]] = deque()
    in_flight: dict[Future[ItemScore], _OpenChunk] = {}
    open_chunks: list[_OpenChunk] = []
    finished, exhausted = 0, False
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="score") as pool:
        try:
            while True:
                while len(in_flight) < concurrency and not stop.is_set():
                    if not waiting:
                        opened = None if exhausted else _open_chunk(work, worker)
                        if opened is None:
                            exhausted = True
                            break
                        chunk, todo = opened
                        open_chunks.append(chunk)
                        waiting.extend((chunk, item) for item in todo)
                        continue
                    chunk, item = waiting.popleft()
                    in_flight[pool.submit(work.evaluator.score_item, item, grouped.get(item.id, []))] = chunk
                for chunk in [c for c in open_chunks if c.remaining == 0]:
                    chunk.flush(work.primary)
                    if not services.chunk_finish(claim=chunk.claim):
                        raise LeaseLost()
                    chunk.beat.stop()
                    open_chunks.remove(chunk)
                    finished += 1
                if not in_flight:
                    if stop.is_set() or (exhausted and not waiting):
                        return finished
                    continue
                done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    chunk = in_flight.pop(future)
                    chunk.batch.append(future.result())
                    chunk.remaining -= 1
                    if len(chunk.batch) >= settings.RUN_BATCH_SIZE or time.monotonic() - chunk.last_flush > 2.0:
                        chunk.flush(work.primary)
        except BaseException:
            for future in in_flight:
                future.cancel()
            raise
        finally:
            for chunk in open_chunks:  # interrupted: give unfinished chunks back at once
                chunk.beat.stop()
                services.chunk_release(claim=chunk.claim)


def run_help(*, run_id: int, worker: str | None = None) -> str:
    """Score chunks of a run another worker owns. A helper never fails the run: on any error it
    gives its chunk back and the owner scores it (and classifies the error if it repeats)."""
    if not EvaluationRun.objects.filter(pk=run_id, status=RunStatus.RUNNING).exists():
        return "nothing to help with: the run is not running"
    try:
        work = _load(run_id)
        scored = _score_chunks(work, worker or worker_name(), stop=threading.Event())
    except LeaseLost:
        return "stopped: the run ended or the chunk was taken over"
    except Exception:
        log.warning("helper for run %s gave its chunk back after an error", run_id, exc_info=True)
        return "gave up after an error; the owner will score the chunk"
    return f"helped with {scored} chunk(s)"
