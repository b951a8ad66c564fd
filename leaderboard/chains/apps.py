"""The chains' app: no models; it connects the one signal a chain still needs. A saved model or submission
files the model's leaderboard rows again (``board_rows.leaderboard_entries_resync``): visibility changed
in the admin (which calls no service), the API or a service reaches the boards at once.

Unlike the page cache (told explicitly, ``leaderboard.pagecache``), this stays a signal: no service changes a
model's or a submission's visibility (the admin is the one place that does), while any save of either may
(a changed ``is_public`` is not told apart from another field), and tests and operators' shells flip
``is_public`` and ``save()`` as the admin does, expecting the rows filed again. A re-filing writes the rows,
so it tells the page cache itself (``leaderboard_entries_resync``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.apps import AppConfig

if TYPE_CHECKING:
    from leaderboard.catalog.models import Model
    from leaderboard.runs.models import Submission


def _model_saved(sender: type, instance: Model, created: bool = False, raw: bool = False, **_: Any) -> None:
    """Signal receiver: a saved model (a new one has no rows yet)."""
    if not (created or raw):
        from leaderboard.chains.board_rows import leaderboard_entries_resync

        leaderboard_entries_resync(model_id=instance.pk)


def _submission_saved(sender: type, instance: Submission, created: bool = False, raw: bool = False, **_: Any) -> None:
    """Signal receiver: a saved submission (a new one has no runs yet)."""
    if not (created or raw):
        from leaderboard.chains.board_rows import leaderboard_entries_resync

        leaderboard_entries_resync(model_id=instance.model_id)


class ChainsConfig(AppConfig):
    name = "leaderboard.chains"
    label = "chains"
    verbose_name = "Write chains across apps"

    def ready(self) -> None:
        from django.db.models.signals import post_save

        from leaderboard.catalog.models import Model
        from leaderboard.runs.models import Submission

        post_save.connect(_model_saved, sender=Model, dispatch_uid="entries-resync-Model")
        post_save.connect(_submission_saved, sender=Submission, dispatch_uid="entries-resync-Submission")
