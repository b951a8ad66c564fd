"""Takedowns in frozen snapshots: the records (``SnapshotWithholding``) that keep a row whose work is no
longer public off a snapshot's page, API and downloads, written when that happens.

- ``snapshot_withholdings_sync``: a model's rows filed again after its or a submission's visibility
  changed (called by ``leaderboard_entries_resync``): each frozen row of the model's runs whose model or
  submission is private now is withheld ("made private"), and one made private earlier whose work is
  public again is shown again.
- ``snapshot_withholdings_run_deleted``: a run deleted (with its submission or model): its frozen rows
  are withheld.

Public reasons are written here from the cause, never from who asked. This module imports models only,
so the services of other apps can call it without an import cycle."""

from __future__ import annotations

from django.utils import timezone

from leaderboard import pagecache
from leaderboard.catalog.models import Model
from leaderboard.history.models import Snapshot, SnapshotWithholding, WithholdingCause
from leaderboard.runs.models import EvaluationRun

#: the public reasons written for a visibility change or a deletion
REASON_MODEL_PRIVATE = "the model was made private"
REASON_SUBMISSION_PRIVATE = "the submission was made private"
REASON_DELETED = "the run was deleted"


def _frozen_rows_of(run_ids: set[int], benchmark_ids: set[int]) -> list[tuple[int, int]]:
    """(snapshot id, run id) of every frozen row of these runs (a Python scan: JSON containment is not
    portable to SQLite)."""
    snapshots = Snapshot.objects.filter(benchmark_id__in=benchmark_ids).only("pk", "rows")
    return [(snapshot.pk, row["run"]) for snapshot in snapshots for row in snapshot.rows if row["run"] in run_ids]


def snapshot_withholdings_sync(*, model: Model) -> None:
    """Withhold the model's frozen rows whose work is private now; show again those made private earlier
    whose work is public again (a moderated row stays withheld). Three queries and a write per change."""
    runs = {
        pk: (model.is_public and submission_public, benchmark_id)
        for pk, submission_public, benchmark_id in EvaluationRun.objects.filter(submission__model=model).values_list(
            "pk", "submission__is_public", "benchmark_id"
        )
    }
    if not runs:
        return
    frozen = _frozen_rows_of(set(runs), {benchmark_id for _, benchmark_id in runs.values()})
    existing = {
        (w.snapshot_id, w.run_id): w
        for w in SnapshotWithholding.objects.filter(
            snapshot_id__in={snapshot_id for snapshot_id, _ in frozen}, run_id__in=set(runs)
        )
    }
    reason = REASON_SUBMISSION_PRIVATE if model.is_public else REASON_MODEL_PRIVATE
    now = timezone.now()
    new, lifted = [], []
    for snapshot_id, run_id in frozen:
        public, _ = runs[run_id]
        found = existing.get((snapshot_id, run_id))
        if not public and found is None:
            new.append(
                SnapshotWithholding(
                    snapshot_id=snapshot_id, run_id=run_id, cause=WithholdingCause.MADE_PRIVATE, reason=reason, at=now
                )
            )
        elif public and found is not None and found.cause == WithholdingCause.MADE_PRIVATE:
            lifted.append(found.pk)
    if new:
        SnapshotWithholding.objects.bulk_create(new, ignore_conflicts=True)
    if lifted:
        SnapshotWithholding.objects.filter(pk__in=lifted).delete()
    if new or lifted:
        pagecache.boards_changed()


def snapshot_withholdings_run_deleted(*, run_id: int, benchmark_id: int) -> None:
    """Withhold the frozen rows of a deleted run (a row withheld already keeps its first reason)."""
    now = timezone.now()
    SnapshotWithholding.objects.bulk_create(
        [
            SnapshotWithholding(
                snapshot_id=snapshot_id, run_id=run_id, cause=WithholdingCause.DELETED, reason=REASON_DELETED, at=now
            )
            for snapshot_id, _ in _frozen_rows_of({run_id}, {benchmark_id})
        ],
        ignore_conflicts=True,
    )
