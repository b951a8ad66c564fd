"""Submissions, runs and their leaderboard rows' table (the rows are filed by ``leaderboard.chains``)."""

from __future__ import annotations

from django.apps import AppConfig


class RunsConfig(AppConfig):
    """The package is ``leaderboard.runs``; its label stays ``submissions`` (the label names the tables,
    ``submissions_evaluationrun``..., and the migrations' app), so renaming the package moved no table."""

    name = "leaderboard.runs"
    label = "submissions"
    verbose_name = "Submissions and runs"
