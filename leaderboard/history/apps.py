"""The history app: snapshots, the changelog and rank history (issue 34 points 1-3), and the takedowns
that withhold a frozen row (issue 44): a deleted run's frozen rows are withheld (``withholding``), and a
withholding changes the cached pages like any other change to a board (the services that write one say
so, ``leaderboard.pagecache``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.apps import AppConfig

if TYPE_CHECKING:
    from leaderboard.runs.models import EvaluationRun


def _run_deleted(sender: type, instance: EvaluationRun, **_: Any) -> None:
    """Signal receiver: a run deleted (alone or with its submission or model)."""
    from leaderboard.history.withholding import snapshot_withholdings_run_deleted

    snapshot_withholdings_run_deleted(run_id=instance.pk, benchmark_id=instance.benchmark_id)


class HistoryConfig(AppConfig):
    name = "leaderboard.history"
    label = "history"
    verbose_name = "Board history"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from leaderboard.runs.models import EvaluationRun

        post_delete.connect(_run_deleted, sender=EvaluationRun, dispatch_uid="snapshot-withhold-deleted-run")
