"""Leaderboard rows: a succeeded run becomes its model's row unless a newer run is there already, and
every row can be rebuilt from the succeeded runs."""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from leaderboard.submissions.keys import column_id
from leaderboard.submissions.models import EvaluationRun, LeaderboardEntry, RunStatus, Score


def leaderboard_entry_refresh(*, run: EvaluationRun) -> None:
    """Make this succeeded run the model's leaderboard row unless a newer run is there already."""
    submission = run.submission
    is_public = submission.is_public and submission.model.is_public
    values = {column_id(k, sk): [v, lo, hi, n]
              for k, sk, v, lo, hi, n in Score.objects.filter(run=run).values_list("key", "slice_key", "value", "ci_low", "ci_high", "n")}
    key = {"benchmark_id": run.benchmark_id, "dataset_version_id": run.dataset_version_id, "model_id": submission.model_id, "is_public": is_public}
    current = LeaderboardEntry.objects.select_for_update().filter(**key).first()
    finished_at = run.finished_at or timezone.now()  # set when the run succeeded, before it reaches a board
    if current is None:
        LeaderboardEntry.objects.create(**key, run=run, values=values, finished_at=finished_at)
    elif current.finished_at <= finished_at:
        current.run, current.values, current.finished_at = run, values, finished_at
        current.save(update_fields=["run", "values", "finished_at"])


def leaderboards_rebuild() -> int:
    """Recompute every leaderboard row from the succeeded runs (after an import or a data fix)."""
    with transaction.atomic():
        LeaderboardEntry.objects.all().delete()
        runs = EvaluationRun.objects.filter(status=RunStatus.SUCCEEDED).select_related("submission__model").order_by("finished_at")
        for run in runs:
            leaderboard_entry_refresh(run=run)
        return LeaderboardEntry.objects.count()
