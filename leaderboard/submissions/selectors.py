"""Reads for pages and the API: leaderboards, model scores, submissions and runs, always through the
visibility rule (private models and submissions are seen only by their owners and staff).

Each selector issues a fixed number of queries whatever the number of rows."""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import Q, QuerySet
from django.utils import timezone

from evaluators.core import evaluator_version
from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.submissions.models import EvaluationRun, ItemResult, RunStatus, Score, Submission


def _viewer_id(user: Any) -> int | None:
    return getattr(user, "pk", None) if user is not None and getattr(user, "is_authenticated", False) else None


def visible_submissions_q(user: Any, prefix: str = "") -> Q:
    """Public submissions of public models, plus everything the viewer owns; staff see all."""
    if user is not None and getattr(user, "is_staff", False):
        return Q()
    q = Q(**{f"{prefix}is_public": True, f"{prefix}model__is_public": True})
    if (uid := _viewer_id(user)) is not None:
        q |= Q(**{f"{prefix}owner_id": uid})
    return q


def models_visible(*, user: Any) -> QuerySet[Model]:
    if user is not None and getattr(user, "is_staff", False):
        return Model.objects.all()
    q = Q(is_public=True)
    if (uid := _viewer_id(user)) is not None:
        q |= Q(owner_id=uid)
    return Model.objects.filter(q)


def submissions_visible(*, user: Any) -> QuerySet[Submission]:
    return Submission.objects.filter(visible_submissions_q(user)).select_related("model", "owner")


def runs_visible(*, user: Any) -> QuerySet[EvaluationRun]:
    return EvaluationRun.objects.filter(visible_submissions_q(user, "submission__")).select_related(
        "submission__model", "submission__owner", "benchmark", "dataset_version")


@dataclass
class Cell:
    value: float
    ci_low: float | None
    ci_high: float | None
    n: int


@dataclass
class LeaderboardRow:
    model: Model
    run: EvaluationRun
    cells: dict[str, Cell]
    rank: int | None = None
    unranked_reason: str = ""
    flags: list[str] = field(default_factory=list)


@dataclass
class Leaderboard:
    benchmark: Benchmark
    dataset: DatasetVersion | None
    columns: list[dict[str, Any]]
    rows: list[LeaderboardRow]
    sort_key: str
    slice_filter: str
    current_evaluator_version: str


def column_id(key: str, slice_key: str = "") -> str:
    return f"{key}|{slice_key}" if slice_key else key


def leaderboard(*, benchmark: Benchmark, user: Any = None, sort: str | None = None, slice_filter: str = "",
                descending: bool | None = None) -> Leaderboard:
    """The latest succeeded run of each visible model on the benchmark's current dataset version,
    with its scores. ``slice_filter`` (e.g. ``difficulty=hard``) selects the per-slice scores
    shown in the headline columns. Ranks: 1 + the number of rows whose interval lies entirely
    above this row's (so overlapping intervals share a rank)."""
    dataset = benchmark.dataset_versions.filter(is_current=True).first()
    current_version = evaluator_version(benchmark.evaluator_key) if benchmark.evaluator_key else ""
    columns = _columns(benchmark, slice_filter)
    primary = next((c for c in benchmark.metric_columns if c.get("primary")), None)
    if dataset is None:
        return Leaderboard(benchmark, None, columns, [], sort or "", slice_filter, current_version)
    runs = (EvaluationRun.objects.filter(visible_submissions_q(user, "submission__"), benchmark=benchmark,
                                         dataset_version=dataset, status=RunStatus.SUCCEEDED)
            .select_related("submission__model").order_by("submission__model_id", "-finished_at", "-pk"))
    latest: dict[int, EvaluationRun] = {}
    for run in runs:
        latest.setdefault(run.submission.model_id, run)
    wanted = {(c["key"], c["slice_key"]) for c in columns}
    scores = Score.objects.filter(run_id__in=[r.pk for r in latest.values()]).values_list(
        "run_id", "key", "slice_key", "value", "ci_low", "ci_high", "n")
    cells: dict[int, dict[str, Cell]] = {}
    for run_id, key, s_key, value, low, high, n in scores:
        if (key, s_key) in wanted:
            cells.setdefault(run_id, {})[column_id(key, s_key)] = Cell(value, low, high, n)
    rows = [LeaderboardRow(model=run.submission.model, run=run, cells=cells.get(run.pk, {})) for run in latest.values()]
    for row in rows:
        if row.run.evaluator_version and current_version and row.run.evaluator_version != current_version:
            row.flags.append(f"scored by evaluator {row.run.evaluator_version}; the current one is {current_version}")
    sort_id = sort or (column_id(primary["key"], slice_filter) if primary else "")
    sort_col = next((c for c in columns if c["id"] == sort_id), columns[0] if columns else None)
    if sort_col is not None:
        high_first = sort_col["higher_is_better"] if descending is None else descending
        present = [r for r in rows if sort_col["id"] in r.cells]
        missing = [r for r in rows if sort_col["id"] not in r.cells]
        present.sort(key=lambda r: r.cells[sort_col["id"]].value, reverse=high_first)
        for r in missing:
            r.unranked_reason = f"no {sort_col['label']} score for this selection"
        rows = present + missing
        _rank(present, sort_col["id"], sort_col["higher_is_better"])
        sort_id = sort_col["id"]
    return Leaderboard(benchmark, dataset, columns, rows, sort_id, slice_filter, current_version)


def _rank(rows: list[LeaderboardRow], col: str, higher_is_better: bool) -> None:
    """O(n log n): count, by bisection over sorted interval ends, the rows entirely better."""
    with_ci = [r for r in rows if r.cells[col].ci_low is not None and r.cells[col].ci_high is not None]
    lows = sorted(r.cells[col].ci_low for r in with_ci)
    highs = sorted(r.cells[col].ci_high for r in with_ci)
    for row in rows:
        cell = row.cells[col]
        if cell.ci_low is None or cell.ci_high is None:
            row.unranked_reason = "no interval (too few items)"
        elif higher_is_better:
            row.rank = 1 + len(lows) - bisect_right(lows, cell.ci_high)
        else:
            row.rank = 1 + bisect_left(highs, cell.ci_low)


def _columns(benchmark: Benchmark, slice_filter: str) -> list[dict[str, Any]]:
    """Headline metric columns (for the chosen slice), then the primary metric per value of the
    first slice dimension (for Multi-LCB: one column per language)."""
    columns = [dict(c, slice_key=slice_filter, id=column_id(c["key"], slice_filter)) for c in benchmark.metric_columns]
    primary = next((c for c in benchmark.metric_columns if c.get("primary")), None)
    if primary and benchmark.slice_dimensions and not slice_filter:
        dim = benchmark.slice_dimensions[0]
        for value in dim["values"]:
            s_key = f"{dim['key']}={value}"
            columns.append(dict(primary, label=value, slice_key=s_key, id=column_id(primary["key"], s_key), per_slice=True, primary=False))
    return columns


def model_scores(*, model: Model, user: Any) -> list[tuple[Benchmark, EvaluationRun, list[Score]]]:
    """The latest succeeded visible run of the model on each benchmark, with its headline scores."""
    runs = (EvaluationRun.objects.filter(visible_submissions_q(user, "submission__"), submission__model=model, status=RunStatus.SUCCEEDED)
            .select_related("benchmark", "dataset_version").order_by("benchmark__position", "-finished_at"))
    latest: dict[int, EvaluationRun] = {}
    for run in runs:
        latest.setdefault(run.benchmark_id, run)
    by_run: dict[int, list[Score]] = {}
    for score in Score.objects.filter(run_id__in=[r.pk for r in latest.values()]):
        by_run.setdefault(score.run_id, []).append(score)
    return [(run.benchmark, run, by_run.get(run.pk, [])) for run in latest.values()]


@dataclass(frozen=True)
class Progress:
    done: int
    total: int
    percent: float
    rate_per_second: float | None
    seconds_left: float | None
    queue_position: int | None


def run_progress(*, run: EvaluationRun) -> Progress:
    total = max(run.items_total, 1)
    rate = left = None
    if run.status == RunStatus.RUNNING and run.progress_started_at:
        elapsed = (timezone.now() - run.progress_started_at).total_seconds()
        scored = run.items_done - run.progress_started_done
        if elapsed > 0 and scored > 0:
            rate = scored / elapsed
            left = (run.items_total - run.items_done) / rate
    position = None
    if run.status == RunStatus.QUEUED:
        position = EvaluationRun.objects.filter(status=RunStatus.QUEUED, queue=run.queue, created_at__lt=run.created_at).count() + 1
    return Progress(run.items_done, run.items_total, 100.0 * run.items_done / total, rate, left, position)


def run_item_results(*, run: EvaluationRun, failed_only: bool = False) -> QuerySet[ItemResult]:
    qs = run.item_results.all()
    if failed_only:
        qs = qs.filter(primary_score__lt=1)
    return qs
