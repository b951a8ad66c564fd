"""Reads of submissions and runs for pages and the API, always through the visibility rule (private
models and submissions are seen only by their owners and staff): the visible submissions and runs, a
run's progress and its item results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet
from django.utils import timezone

from evaluators.core import evaluator_for
from leaderboard.accounts import policy
from leaderboard.runs.eta import Wait, run_wait
from leaderboard.runs.models import EvaluationRun, ItemResult, RunStatus, Submission


def visible_submissions_q(user: Any, prefix: str = "") -> Q:
    """Public submissions of public models, plus everything the viewer owns; staff see all."""
    return policy.visible_q(user, public=(f"{prefix}is_public", f"{prefix}model__is_public"), owner=f"{prefix}owner_id")


def submissions_visible(*, user: Any) -> QuerySet[Submission]:
    return Submission.objects.filter(visible_submissions_q(user)).select_related("model", "owner")


def runs_visible(*, user: Any) -> QuerySet[EvaluationRun]:
    return EvaluationRun.objects.filter(visible_submissions_q(user, "submission__")).select_related(
        "submission__model", "submission__owner", "benchmark", "dataset_version"
    )


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    percent: float
    rate_per_second: float | None
    seconds_left: float | None
    wait: Wait | None  # a queued run: its place, what is ahead and when it should start (runs.eta)


def run_progress(*, run: EvaluationRun) -> Progress:
    total = max(run.items_total, 1)
    rate = left = None
    if run.status == RunStatus.RUNNING and run.progress_started_at:
        elapsed = (timezone.now() - run.progress_started_at).total_seconds()
        scored = run.items_done - run.progress_started_done
        if elapsed > 0 and scored > 0:
            rate = scored / elapsed
            left = (run.items_total - run.items_done) / rate
    return Progress(run.items_done, run.items_total, 100.0 * run.items_done / total, rate, left, run_wait(run=run))


def run_item_results(*, run: EvaluationRun, failed_only: bool = False) -> QuerySet[ItemResult]:
    """A run's item results. ``failed_only``: those without full marks as the evaluator recorded them
    (``passed``, from Presentation.item_passed); where it recorded none (a result stored before it did, or a
    benchmark without full marks), a primary score below 1."""
    qs = run.item_results.all()
    if failed_only:
        qs = qs.filter(Q(passed=False) | Q(passed__isnull=True, primary_score__lt=1))
    return qs


def item_companions(*, run: EvaluationRun, item_ids: Sequence[str]) -> dict[str, list[ItemResult]]:
    """For each of ``item_ids``, the run's results of the items that belong with it
    (Presentation.companion_items: Video NIAH's other hop), in one query."""
    shown = evaluator_for(run.evaluator_key).presentation()
    wanted = {item_id: shown.companion_items(item_id) for item_id in item_ids}
    every = {other for others in wanted.values() for other in others}
    found = {r.item_id: r for r in run.item_results.filter(item_id__in=every)} if every else {}
    return {item_id: [found[other] for other in others if other in found] for item_id, others in wanted.items()}
