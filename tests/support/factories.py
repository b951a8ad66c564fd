"""Rows the tests build by hand: a submission of an owner's model, an evaluation run in any state, and a
succeeded run with a headline filed on its board through the real entries service. One place, so a
field added to a run is added once, and every test's run is made the same way."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.utils import timezone

from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.catalog.services import model_get_or_create
from leaderboard.chains import board_rows
from leaderboard.runs.models import EvaluationRun, RunStatus, Score, Submission


def submission_make(owner: Any, model: Model | str, *, public: bool = True) -> Submission:
    """A submission of ``model`` (a Model, or the owner's model of that name, made public or private as
    the submission)."""
    if isinstance(model, str):
        model = model_get_or_create(owner=owner, name=model, is_public=public)
    return Submission.objects.create(model=model, owner=owner, is_public=public)


def run_make(
    benchmark: Benchmark,
    owner: Any,
    model: Model | str,
    *,
    status: str = RunStatus.SUCCEEDED,
    public: bool = True,
    dataset_version: DatasetVersion | None = None,
    items: int | None = None,
    **fields: Any,
) -> EvaluationRun:
    """A run of ``model`` on the benchmark's current dataset version (or ``dataset_version``), in the given
    status; ``items`` sets items_total and, for a succeeded run, items_done; any other run field by name."""
    if items is not None:
        fields.setdefault("items_total", items)
        fields.setdefault("items_done", items if status == RunStatus.SUCCEEDED else 0)
    return EvaluationRun.objects.create(
        submission=submission_make(owner, model, public=public),
        benchmark=benchmark,
        dataset_version=dataset_version or benchmark.dataset_versions.get(is_current=True),
        evaluator_key=benchmark.evaluator_key,
        status=status,
        **fields,
    )


def scored_run(
    benchmark: Benchmark,
    owner: Any,
    model: Model | str,
    value: float,
    *,
    public: bool = True,
    items: int = 3,
    evaluator_version: str = "ev1",
    judge: dict[str, str] | None = None,
    finished_at: dt.datetime | None = None,
    python_slice: bool = True,
) -> EvaluationRun:
    """A succeeded run: pass@1 = value [value - 0.05, value + 0.05] over 3 items, and (``python_slice``) on
    python value [value - 0.1, value + 0.1], finished at ``finished_at`` (now) and filed on its board with
    ``leaderboard_entry_refresh`` as a finished run is."""
    run = run_make(
        benchmark,
        owner,
        model,
        public=public,
        items=items,
        evaluator_version=evaluator_version,
        environment={"judge": judge} if judge else {},
    )
    scores = [Score(run=run, key="pass@1", slice_key="", value=value, ci_low=value - 0.05, ci_high=value + 0.05, n=3)]
    if python_slice:
        scores.append(
            Score(
                run=run,
                key="pass@1",
                slice_key="language=python",
                value=value,
                ci_low=value - 0.1,
                ci_high=value + 0.1,
                n=3,
            )
        )
    Score.objects.bulk_create(scores)
    EvaluationRun.objects.filter(pk=run.pk).update(finished_at=finished_at or timezone.now())
    run.refresh_from_db()
    board_rows.leaderboard_entry_refresh(run=run)
    return run
