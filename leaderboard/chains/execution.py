"""Executing one evaluation run in a worker: claim it, keep its lease alive, score the items that
are not yet scored in batches, aggregate and complete it, or fail it with a classified reason.

This is the service a Celery task calls; it also runs in-process (the pipeline benchmark does).
"""

from __future__ import annotations

import importlib.metadata
import logging
import platform
import threading
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.core.files.storage import default_storage

from evaluators.core import (
    Evaluator,
    Item,
    ItemScore,
    Prediction,
    PredictionsError,
    evaluator_for,
    evaluator_version,
    judge_role,
)
from evaluators.core.files import ItemsFile, parse_predictions
from evaluators.core.runner import group_predictions, read_batch, score_batches
from leaderboard.catalog.services import dataset_items
from leaderboard.chains import board_rows
from leaderboard.modelhost import judging
from leaderboard.runs import leases, services
from leaderboard.runs.leases import LeaseLost
from leaderboard.runs.models import EvaluationRun, FailureKind, ItemResult, RunStatus
from leaderboard.setup_status import analysis_pending, judge_pending

log = logging.getLogger(__name__)
LIBRARIES = ("django", "celery", "numpy", "psycopg", "boto3")
#: item results read back at a time for a run's metrics
RESULTS_READ = 500


def run_waits_for(run_id: int) -> bool:
    """Whether a worker should put this run back for now: its board is judged and the judge is still being set
    up (a worker that took it would wait on the judge, holding back the judge-free boards' runs behind it), or its
    programs import the analysis libraries that `make run` is still installing (they would fail without them)."""
    judge, analysis = judge_pending(), analysis_pending()
    if not (judge or analysis):
        return False
    key = EvaluationRun.objects.filter(pk=run_id).values_list("evaluator_key", flat=True).first()
    if key is None:
        return False
    return (judge and bool(judge_role(key))) or (analysis and evaluator_for(key).generation().uses_analysis_libraries())


def environment_versions(evaluator_environment: dict[str, str]) -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            pass
    versions.update(evaluator_environment)
    return versions


def _refusal(exc: Exception) -> leases.Refusal | None:
    if isinstance(exc, PredictionsError):
        return leases.Refusal(FailureKind.INVALID_INPUT, str(exc), "failed: invalid input")
    if isinstance(exc, judging.JudgeNotConfigured):  # the site's configuration, not the submission, is at fault
        return leases.Refusal(FailureKind.INFRASTRUCTURE, str(exc), "failed: judge not configured")
    return None


def _score_run_body(claim: leases.Claim, heartbeat: leases.Heartbeat, worker: str) -> str:
    _score_run(claim, heartbeat, worker)
    return "succeeded"


RUN_TASK = leases.LeasedTask(
    model=EvaluationRun,
    what="run",
    claim=lambda pk, worker: services.run_claim(run_id=pk, worker=worker),
    beat=lambda claim: services.run_heartbeat(claim=claim),
    body=_score_run_body,
    refusal=_refusal,
    fail=lambda claim, kind, message: services.run_fail(
        run_id=claim.work_id, claim=claim, kind=FailureKind(kind), message=message
    ),
    lease_lost=lambda claim: "stopped: lease lost (cancelled or taken over)",
)


def run_execute(*, run_id: int, worker: str | None = None) -> str:
    """Run one evaluation to its end. Returns what happened, for the task's log line."""
    return leases.execute_leased(RUN_TASK, pk=run_id, worker=worker)


@dataclass
class _Work:
    """What scoring a run needs, loaded once per worker and run."""

    run: EvaluationRun
    evaluator: Evaluator
    items: ItemsFile  # read a chunk at a time, through the file's index
    predictions: list[Prediction]
    primary: str | None
    judge: dict[str, str] | None = None  # the judge's record for the run's environment, if it has one
    grouped: dict[str, list[Prediction]] = field(default_factory=dict)  # the predictions by item

    def __post_init__(self) -> None:
        self.grouped = group_predictions(self.predictions)


def _load(run_id: int) -> _Work:
    run = EvaluationRun.objects.select_related("submission", "dataset_version", "benchmark").get(pk=run_id)
    role = judge_role(run.evaluator_key)
    judge = judging.judge_for(role) if role else None
    evaluator = evaluator_for(run.evaluator_key, settings=run.evaluator_settings, judge=judge)
    items = dataset_items(run.dataset_version)
    with default_storage.open(run.predictions_key or run.submission.predictions_key, "rb") as handle:
        predictions = parse_predictions(handle.read(), items.ids(), max_bytes=settings.PREDICTIONS_MAX_BYTES)
    primary = next((c.key for c in evaluator.metric_columns if c.primary), None)
    record = judging.judge_record(judge.spec, role) if judge is not None else None
    return _Work(run, evaluator, items, predictions, primary, record)


def _score_run(claim: leases.Claim, heartbeat: leases.Heartbeat, worker: str) -> None:
    started = time.monotonic()
    work = _load(claim.work_id)
    run = work.run
    generation = {"generation": run.environment["generation"]} if "generation" in (run.environment or {}) else {}
    judge = {"judge": work.judge} if work.judge else {}
    services.run_set_provenance(
        claim=claim,
        evaluator_version=evaluator_version(run.evaluator_key),
        environment={**environment_versions(work.evaluator.environment()), **generation, **judge},
    )
    remaining = services.chunks_unfinished(run_id=run.pk)
    helpers = services.run_request_helpers(run=run, count=settings.RUN_HELPERS)
    services.run_append_log(
        run_id=run.pk,
        line=f"attempt {claim.attempt}: {remaining} chunk(s) to score, {helpers} helper(s) asked "
        f"(dataset and predictions loaded in {time.monotonic() - started:.1f} s)",
    )
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
    # the results are read back a few hundred rows at a time into the evaluator's aggregation: a run's
    # results are never all in memory where its metrics keep a few numbers per item (Multi-LCB)
    aggregation = work.evaluator.aggregation(seed=run.pk)
    count = 0
    for item_id, slices, scores, detail, error in (
        ItemResult.objects.filter(run_id=run.pk)
        .values_list("item_id", "slices", "scores", "detail", "error")
        .iterator(chunk_size=RESULTS_READ)
    ):
        aggregation.add(ItemScore(item_id=item_id, slices=slices, scores=scores, detail=detail, error=error))
        count += 1
    metrics = aggregation.metrics()
    if heartbeat.lost.is_set() or not board_rows.run_complete_and_file(claim=claim, metrics=metrics):
        raise LeaseLost()
    services.run_append_log(
        run_id=run.pk,
        line=f"succeeded: {count} items; scoring took {scored_in:.1f} s, "
        f"aggregation {time.monotonic() - started:.1f} s",
    )


@dataclass
class _OpenChunk:
    """A claimed chunk being scored: its lease heartbeat and results not yet written."""

    claim: services.ChunkClaim
    beat: leases.Heartbeat
    batch: list[ItemScore] = field(default_factory=list)
    last_flush: float = field(default_factory=time.monotonic)

    def flush(self, work: _Work) -> None:
        if self.batch:
            if self.beat.lost.is_set() or not services.chunk_record_items(
                claim=self.claim,
                item_scores=self.batch,
                primary_key=work.primary,
                item_passed=work.evaluator.presentation().item_passed,
            ):
                raise LeaseLost()
            self.batch, self.last_flush = [], time.monotonic()


def _open_chunk(work: _Work, worker: str) -> tuple[_OpenChunk, list[Item]] | None:
    claim = services.chunk_claim(run_id=work.run.pk, worker=worker)
    if claim is None:
        return None
    done = set(
        ItemResult.objects.filter(run_id=claim.run_id, item_id__in=claim.item_ids).values_list("item_id", flat=True)
    )
    todo = read_batch(
        work.evaluator, work.items, [i for i in claim.item_ids if work.items.has(i) and i not in done], work.grouped
    )
    beat = leases.Heartbeat(f"heartbeat-chunk-{claim.chunk_id}", lambda: services.chunk_heartbeat(claim=claim))
    beat.start()
    return _OpenChunk(claim, beat), todo


def _score_chunks(work: _Work, worker: str, *, stop: threading.Event) -> int:
    """Claim chunks of the run and score their items with the engine's one scoring loop
    (``evaluators.core.runner.score_batches``) on ``RUN_CONCURRENCY`` threads until none is left to
    take, writing results in batches. Returns the chunks finished."""
    open_chunks: list[_OpenChunk] = []

    def next_chunk() -> tuple[_OpenChunk, list[Item]] | None:
        opened = _open_chunk(work, worker)
        if opened is not None:
            open_chunks.append(opened[0])
        return opened

    finished = 0
    try:
        for event in score_batches(
            work.evaluator, work.grouped, next_chunk, concurrency=settings.RUN_CONCURRENCY, stop=stop
        ):
            chunk = event.batch
            if event.score is not None:
                chunk.batch.append(event.score)
                if len(chunk.batch) >= settings.RUN_BATCH_SIZE or time.monotonic() - chunk.last_flush > 2.0:
                    chunk.flush(work)
            if event.batch_done:
                chunk.flush(work)
                if not services.chunk_finish(claim=chunk.claim):
                    raise LeaseLost()
                chunk.beat.stop()
                open_chunks.remove(chunk)
                finished += 1
    finally:
        for chunk in open_chunks:  # interrupted: give unfinished chunks back at once
            chunk.beat.stop()
            services.chunk_release(claim=chunk.claim)
    return finished


def run_help(*, run_id: int, worker: str | None = None) -> str:
    """Score chunks of a run another worker owns. A helper never fails the run: on any error it
    gives its chunk back and the owner scores it (and classifies the error if it repeats)."""
    if not EvaluationRun.objects.filter(pk=run_id, status=RunStatus.RUNNING).exists():
        return "nothing to help with: the run is not running"
    try:
        work = _load(run_id)
        scored = _score_chunks(work, worker or leases.worker_name(), stop=threading.Event())
    except LeaseLost:
        return "stopped: the run ended or the chunk was taken over"
    except Exception:
        log.warning("helper for run %s gave its chunk back after an error", run_id, exc_info=True)
        return "gave up after an error; the owner will score the chunk"
    return f"helped with {scored} chunk(s)"
