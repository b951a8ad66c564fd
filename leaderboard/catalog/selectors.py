"""Reads of the catalog for pages and the API: the models a user may see or run, and a benchmark's
example predictions file."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from leaderboard.accounts import policy
from leaderboard.catalog.evaluators import configured_evaluator
from leaderboard.catalog.models import Benchmark, Model
from leaderboard.catalog.services import dataset_items


def models_visible(*, user: Any) -> QuerySet[Model]:
    return Model.objects.filter(policy.visible_q(user))


def models_runnable(*, user: Any) -> QuerySet[Model]:
    """The user's own models that a worker runs (not predictions-only), for the submit page."""
    if (uid := policy.user_id(user)) is None:
        return Model.objects.none()
    return Model.objects.filter(owner_id=uid).exclude(source=Model.SOURCE_PREDICTIONS).order_by("name")


def example_predictions(*, benchmark: Benchmark) -> bytes | None:
    """The evaluator's example predictions file for the current dataset version, if it has one."""
    dataset = benchmark.dataset_versions.filter(is_current=True).first()
    if dataset is None or not benchmark.evaluator_key:
        return None
    return configured_evaluator(benchmark).presentation().example_predictions(dataset_items(dataset))
