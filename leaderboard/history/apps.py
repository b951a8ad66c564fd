"""The history app: snapshots, the changelog and rank history (issue 34 points 1-3)."""
from __future__ import annotations

from django.apps import AppConfig


class HistoryConfig(AppConfig):
    name = "leaderboard.history"
    label = "history"
    verbose_name = "Board history"
    default_auto_field = "django.db.models.BigAutoField"
