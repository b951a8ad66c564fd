"""Scored runs made by hand for the history tests: a run with a headline and one slice, an evaluator
version and a judge, filed on the board through the real entries service."""
from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone

from leaderboard.catalog.models import Benchmark
from leaderboard.catalog.services import model_get_or_create
from leaderboard.submissions import services
from leaderboard.submissions.models import EvaluationRun, RunStatus, Score, Submission


def scored_run(benchmark: Benchmark, owner: Any, name: str, value: float, *, public: bool = True, evaluator_version: str = "ev1",
               judge: dict[str, str] | None = None, finished_at: dt.datetime | None = None) -> EvaluationRun:
    """A succeeded run of the owner's model ``name``: pass@1 = value [value - 0.05, value + 0.05] over 3
    items, and on python value [value - 0.1, value + 0.1]; filed with ``leaderboard_entry_refresh``."""
    model = model_get_or_create(owner=owner, name=name, is_public=public)
    submission = Submission.objects.create(model=model, owner=owner, is_public=public)
    run = EvaluationRun.objects.create(submission=submission, benchmark=benchmark, dataset_version=benchmark.dataset_versions.get(is_current=True),
                                       status=RunStatus.SUCCEEDED, evaluator_key=benchmark.evaluator_key, items_total=3, items_done=3,
                                       evaluator_version=evaluator_version, environment={"judge": judge} if judge else {})
    Score.objects.bulk_create([Score(run=run, key="pass@1", slice_key="", value=value, ci_low=value - 0.05, ci_high=value + 0.05, n=3),
                               Score(run=run, key="pass@1", slice_key="language=python", value=value, ci_low=value - 0.1, ci_high=value + 0.1, n=3)])
    EvaluationRun.objects.filter(pk=run.pk).update(finished_at=finished_at or timezone.now())
    run.refresh_from_db()
    services.leaderboard_entry_refresh(run=run)
    return run
