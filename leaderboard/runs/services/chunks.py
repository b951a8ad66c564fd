"""Chunks: one run scored by several workers. A run's items are split into chunks when it is created;
each worker claims the next unfinished chunk under a lease of its own and writes its item results only
while it holds it, and the run's owner can ask other workers on its queue to help."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from evaluators.core import ItemScore
from leaderboard import task_sends
from leaderboard.runs import leases
from leaderboard.runs.models import EvaluationRun, ItemResult, RunChunk, RunStatus


@dataclass(frozen=True)
class ChunkClaim:
    run_id: int
    chunk_id: int
    token: uuid.UUID
    item_ids: tuple[str, ...]


def chunk_claim(*, run_id: int, worker: str) -> ChunkClaim | None:
    """Take the next unfinished chunk of a running run that nobody holds (or whose holder's claim
    expired). None when there is none left to take."""
    for _ in range(10):  # lost races with other workers: try the next candidate
        now = timezone.now()
        candidate = (
            RunChunk.objects.filter(run_id=run_id, run__status=RunStatus.RUNNING, done=False)
            .filter(Q(lease_token__isnull=True) | Q(lease_expires_at__lt=now))
            .order_by("index")
            .values_list("pk", "lease_token", "item_ids")
            .first()
        )
        if candidate is None:
            return None
        pk, old_token, item_ids = candidate
        token = uuid.uuid4()
        if RunChunk.objects.filter(pk=pk, done=False, lease_token=old_token).update(
            lease_token=token, worker=worker[:200], lease_expires_at=leases.lease_expiry(now)
        ):
            return ChunkClaim(run_id=run_id, chunk_id=pk, token=token, item_ids=tuple(item_ids))
    return None


def chunk_heartbeat(*, claim: ChunkClaim) -> bool:
    """Extend a chunk claim; False when the run stopped or the chunk was taken over."""
    return bool(
        RunChunk.objects.filter(
            pk=claim.chunk_id, lease_token=claim.token, done=False, run__status=RunStatus.RUNNING
        ).update(lease_expires_at=leases.lease_expiry())
    )


def item_result_row(
    *, run_id: int, score: ItemScore, primary_key: str | None, item_passed: Callable[[ItemScore], bool | None]
) -> ItemResult:
    """The row recorded for one item score: its primary score (for sorting) and whether it got full marks
    (the evaluator's ``item_passed``, for the failed-only filter; an item scored with an error did not)."""
    return ItemResult(
        run_id=run_id,
        item_id=score.item_id,
        slices=score.slices,
        scores=score.scores,
        detail=score.detail,
        error=score.error,
        primary_score=score.scores.get(primary_key) if primary_key else None,
        passed=False if score.error else item_passed(score),
    )


def chunk_record_items(
    *,
    claim: ChunkClaim,
    item_scores: Sequence[ItemScore],
    primary_key: str | None,
    item_passed: Callable[[ItemScore], bool | None],
) -> bool:
    """Write a batch of a chunk's item results (``item_result_row``) and the run's progress in one
    transaction, only while this worker holds the chunk and the run is running."""
    with transaction.atomic():
        held = (
            RunChunk.objects.select_for_update().filter(pk=claim.chunk_id, lease_token=claim.token, done=False).first()
        )
        if held is None or not EvaluationRun.objects.filter(pk=claim.run_id, status=RunStatus.RUNNING).exists():
            return False
        ItemResult.objects.bulk_create(
            [
                item_result_row(run_id=claim.run_id, score=s, primary_key=primary_key, item_passed=item_passed)
                for s in item_scores
            ],
            ignore_conflicts=True,
        )
        EvaluationRun.objects.filter(pk=claim.run_id).update(
            items_done=ItemResult.objects.filter(run_id=claim.run_id).count()
        )
    return True


def chunk_finish(*, claim: ChunkClaim) -> bool:
    return bool(
        RunChunk.objects.filter(pk=claim.chunk_id, lease_token=claim.token, done=False).update(
            done=True, lease_expires_at=None
        )
    )


def chunk_release(*, claim: ChunkClaim) -> None:
    """Give a chunk back at once (a helper that hit an error), so the run's owner takes it."""
    RunChunk.objects.filter(pk=claim.chunk_id, lease_token=claim.token, done=False).update(
        lease_token=None, lease_expires_at=None
    )


def chunks_unfinished(*, run_id: int) -> int:
    return RunChunk.objects.filter(run_id=run_id, done=False).count()


def run_request_helpers(*, run: EvaluationRun, count: int) -> int:
    """Ask up to ``count`` other workers on the run's queue to claim chunks of this run."""
    count = max(0, min(count, chunks_unfinished(run_id=run.pk) - 1))
    for _ in range(count):
        task_sends.help_run(run.pk, queue=run.queue)
    return count
