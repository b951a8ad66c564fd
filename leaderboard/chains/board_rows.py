"""Run completion -> board row -> changelog: a succeeded run becomes its row unless a newer run is there
already (``run_complete_and_file``, in the transaction that marks it succeeded; the board's changelog
first), and every row can be rebuilt from the succeeded runs.

A model has one public row (its latest run from a public submission of a public model) and one private
row per submitter (their latest run that is not public), so one user's private run never replaces
another's or the public row. A row's slot follows its model and submission: whenever either is saved
(admin, API or a service), ``leaderboard_entries_resync`` files the model's rows again from the runs
(and the boards' changelogs and the snapshots' withholdings with them)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import transaction
from django.utils import timezone

from evaluators.core import MetricValue
from leaderboard import pagecache
from leaderboard.catalog.models import Model
from leaderboard.history.changelog import changelog_row_filed, changelog_rows_refiled
from leaderboard.history.withholding import snapshot_withholdings_sync
from leaderboard.runs import services
from leaderboard.runs.leases import Claim
from leaderboard.runs.models import EvaluationRun, LeaderboardEntry, RunStatus, Score, Submission
from leaderboard.runs.score_keys import column_id

#: (benchmark id, dataset version id, is public, submitter id for a private row else None)
Slot = tuple[int, int, bool, int | None]


def _slot(run: EvaluationRun, submission: Submission, model: Model) -> Slot:
    public = submission.is_public and model.is_public
    return run.benchmark_id, run.dataset_version_id, public, None if public else submission.owner_id


def _values(run_ids: list[int]) -> dict[int, dict[str, list[float | int | None]]]:
    found: dict[int, dict[str, list[float | int | None]]] = {run_id: {} for run_id in run_ids}
    for run_id, key, s_key, value, low, high, n in Score.objects.filter(run_id__in=run_ids).values_list(
        "run_id", "key", "slice_key", "value", "ci_low", "ci_high", "n"
    ):
        found[run_id][column_id(key, s_key)] = [value, low, high, n]
    return found


def leaderboard_entry_refresh(*, run: EvaluationRun) -> None:
    """Make this succeeded run its slot's leaderboard row unless a newer run is there already."""
    submission = run.submission
    Model.objects.select_for_update().filter(pk=submission.model_id).exists()  # one writer of a model's rows at a time
    benchmark_id, dataset_id, public, owner_id = _slot(run, submission, submission.model)
    key = {
        "benchmark_id": benchmark_id,
        "dataset_version_id": dataset_id,
        "model_id": submission.model_id,
        "is_public": public,
        "owner_id": owner_id,
    }
    values = _values([run.pk])[run.pk]
    current = LeaderboardEntry.objects.select_for_update().filter(**key).first()
    finished_at = run.finished_at or timezone.now()  # set when the run succeeded, before it reaches a board
    if public and (current is None or current.finished_at <= finished_at):
        changelog_row_filed(run=run, values=values, previous=current)  # the board's changelog, before the row changes
    if current is None:
        LeaderboardEntry.objects.create(**key, run=run, values=values, finished_at=finished_at)
    elif current.finished_at <= finished_at:
        current.run, current.values, current.finished_at = run, values, finished_at
        current.save(update_fields=["run", "values", "finished_at"])
    pagecache.boards_changed()


def run_complete_and_file(*, claim: Claim, metrics: Iterable[MetricValue]) -> bool:
    """The run's scores stored and the run marked succeeded (``runs.services.run_complete``), then its
    slot's leaderboard row filed, in one transaction. False (nothing done) when the lease was lost."""
    with transaction.atomic():
        if not services.run_complete(claim=claim, metrics=metrics):
            return False
        leaderboard_entry_refresh(run=EvaluationRun.objects.select_related("submission__model").get(pk=claim.work_id))
    return True


def leaderboard_entries_resync(*, model_id: int) -> int:
    """File a model's rows again from its succeeded runs and the current visibility of the model and
    of each submission: a run made private leaves the public row (an older public run takes its place)
    for its submitter's private row. Four queries whatever the number of runs; returns the rows kept."""
    with transaction.atomic():
        model = Model.objects.select_for_update().filter(pk=model_id).first()
        if model is None:
            return 0
        latest: dict[Slot, EvaluationRun] = {}
        runs = (
            EvaluationRun.objects.filter(submission__model_id=model_id, status=RunStatus.SUCCEEDED)
            .select_related("submission")
            .order_by("finished_at", "pk")
        )
        for run in runs:
            latest[_slot(run, run.submission, model)] = run  # the latest finished run of each slot wins
        values = _values([run.pk for run in latest.values()])
        changelog_rows_refiled(model=model, latest=latest)  # the boards' changelogs, while the old rows are still there
        snapshot_withholdings_sync(model=model)  # frozen rows of work made private are withheld from the snapshots
        LeaderboardEntry.objects.filter(model_id=model_id).delete()
        LeaderboardEntry.objects.bulk_create(
            [
                LeaderboardEntry(
                    benchmark_id=benchmark_id,
                    dataset_version_id=dataset_id,
                    model_id=model_id,
                    is_public=public,
                    owner_id=owner_id,
                    run=run,
                    values=values[run.pk],
                    finished_at=run.finished_at or timezone.now(),
                )
                for (benchmark_id, dataset_id, public, owner_id), run in latest.items()
            ]
        )
        pagecache.boards_changed()
        return len(latest)


def leaderboards_rebuild() -> int:
    """Recompute every leaderboard row from the succeeded runs (after an import or a data fix)."""
    with transaction.atomic():
        LeaderboardEntry.objects.all().delete()
        pagecache.boards_changed()
        model_ids = (
            EvaluationRun.objects.filter(status=RunStatus.SUCCEEDED)
            .values_list("submission__model_id", flat=True)
            .distinct()
        )
        return sum(leaderboard_entries_resync(model_id=model_id) for model_id in sorted(set(model_ids)))
