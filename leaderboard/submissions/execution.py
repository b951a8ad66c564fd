"""Executing one evaluation run in a worker: claim it, keep its lease alive, score the items that
are not yet scored in batches, aggregate and complete it, or fail it with a classified reason.

This is the service a Celery task calls; it also runs in-process (the pipeline benchmark does).
"""
from __future__ import annotations

import importlib.metadata
import logging
import platform
import socket
import threading
import time
from pathlib import Path

from django.conf import settings
from django.core.files.storage import default_storage
from django.db import DatabaseError, close_old_connections
from django.utils import timezone

from evaluators.core import InfrastructureError, ItemScore, PredictionsError, evaluator_version, get_evaluator
from evaluators.core.files import parse_predictions, read_items
from evaluators.core.runner import score_items
from leaderboard.catalog.services import dataset_items_path
from leaderboard.submissions import services
from leaderboard.submissions.models import EvaluationRun, FailureKind, ItemResult

log = logging.getLogger(__name__)
LIBRARIES = ("django", "celery", "numpy", "psycopg", "boto3")


class LeaseLost(RuntimeError):
    """The run was cancelled or handed to another worker while this one was working."""


class _Heartbeat(threading.Thread):
    """Extends the lease every few seconds; sets ``lost`` when the lease is gone."""

    def __init__(self, claim: services.Claim) -> None:
        super().__init__(daemon=True, name=f"heartbeat-{claim.run_id}")
        self.claim = claim
        self.lost = threading.Event()
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.wait(settings.RUN_HEARTBEAT_SECONDS):
            try:
                if not services.run_heartbeat(claim=self.claim):
                    self.lost.set()
                    return
            except DatabaseError:
                log.warning("heartbeat for run %s failed; retrying", self.claim.run_id, exc_info=True)
            finally:
                close_old_connections()

    def stop(self) -> None:
        self._halt.set()


def worker_name() -> str:
    return f"{socket.gethostname()}:{threading.get_native_id()}"


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
    heartbeat = _Heartbeat(claim)
    heartbeat.start()
    try:
        _score_run(claim, heartbeat)
        return "succeeded"
    except LeaseLost:
        return "stopped: lease lost (cancelled or taken over)"
    except PredictionsError as exc:
        services.run_fail(run_id=run_id, claim=claim, kind=FailureKind.INVALID_INPUT, message=str(exc))
        return "failed: invalid input"
    except (InfrastructureError, OSError, DatabaseError) as exc:
        message = f"{type(exc).__name__}: {exc}"
        if claim.attempt < _max_attempts(run_id):
            services.run_append_log(run_id=run_id, line=f"infrastructure error, will retry: {message}")
            _release_for_retry(claim)
            return "re-queued after an infrastructure error"
        services.run_fail(run_id=run_id, claim=claim, kind=FailureKind.INFRASTRUCTURE, message=message)
        return "failed: infrastructure"
    except Exception as exc:
        if type(exc).__name__ == "SoftTimeLimitExceeded":
            services.run_fail(run_id=run_id, claim=claim, kind=FailureKind.TIMEOUT,
                              message=f"the run exceeded its time limit of {settings.RUN_SOFT_TIME_LIMIT} s")
            return "failed: timeout"
        log.exception("evaluator error in run %s", run_id)
        services.run_fail(run_id=run_id, claim=claim, kind=FailureKind.EVALUATOR_ERROR, message=f"{type(exc).__name__}: {exc}")
        return "failed: evaluator error"
    finally:
        heartbeat.stop()


def _max_attempts(run_id: int) -> int:
    return EvaluationRun.objects.values_list("max_attempts", flat=True).get(pk=run_id)


def _release_for_retry(claim: services.Claim) -> None:
    """Let the reaper re-queue it: expire the lease now."""
    EvaluationRun.objects.filter(pk=claim.run_id, lease_token=claim.token).update(lease_expires_at=timezone.now())


def _score_run(claim: services.Claim, heartbeat: _Heartbeat) -> None:
    run = EvaluationRun.objects.select_related("submission", "dataset_version", "benchmark").get(pk=claim.run_id)
    evaluator = get_evaluator(run.evaluator_key)
    if run.evaluator_settings and hasattr(evaluator, "configured"):
        evaluator = evaluator.configured(run.evaluator_settings)
    services.run_set_provenance(claim=claim, evaluator_version=evaluator_version(run.evaluator_key),
                                environment=environment_versions(evaluator.environment()))
    started = time.monotonic()
    items = read_items(dataset_items_path(run.dataset_version, Path(settings.VAR_DIR) / "cache" / "datasets"))
    with default_storage.open(run.submission.predictions_key, "rb") as handle:
        predictions = parse_predictions(handle.read(), (item.id for item in items), max_bytes=settings.PREDICTIONS_MAX_BYTES)
    done = set(ItemResult.objects.filter(run_id=run.pk).values_list("item_id", flat=True))
    primary = next((c.key for c in evaluator.metric_columns if c.primary), None)
    services.run_append_log(run_id=run.pk, line=f"attempt {claim.attempt}: {len(items) - len(done)} of {len(items)} items to score "
                                                 f"(dataset and predictions loaded in {time.monotonic() - started:.1f} s)")
    started = time.monotonic()
    batch: list[ItemScore] = []
    last_flush = time.monotonic()
    for item_score in score_items(evaluator, items, predictions, concurrency=settings.RUN_CONCURRENCY, skip=done):
        batch.append(item_score)
        if len(batch) >= settings.RUN_BATCH_SIZE or time.monotonic() - last_flush > 2.0:
            _flush(claim, batch, primary, heartbeat)
            batch, last_flush = [], time.monotonic()
    if batch:
        _flush(claim, batch, primary, heartbeat)
    scored_in = time.monotonic() - started
    started = time.monotonic()
    all_scores = [ItemScore(item_id=item_id, slices=slices, scores=scores, detail=detail, error=error)
                  for item_id, slices, scores, detail, error in ItemResult.objects.filter(run_id=run.pk).values_list(
                      "item_id", "slices", "scores", "detail", "error")]
    metrics = evaluator.aggregate(all_scores, seed=run.pk)
    if heartbeat.lost.is_set() or not services.run_complete(claim=claim, metrics=metrics):
        raise LeaseLost()
    services.run_append_log(run_id=run.pk, line=f"succeeded: {len(all_scores)} items; scoring took {scored_in:.1f} s, "
                                                 f"aggregation {time.monotonic() - started:.1f} s")


def _flush(claim: services.Claim, batch: list[ItemScore], primary: str | None, heartbeat: _Heartbeat) -> None:
    if heartbeat.lost.is_set() or not services.run_record_items(claim=claim, item_scores=batch, primary_key=primary):
        raise LeaseLost()
