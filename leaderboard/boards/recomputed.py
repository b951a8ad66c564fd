"""A board's metrics recomputed from its item results rather than read from the stored scores: over a date
window (contest dates, for contamination) or within a slice of another dimension than the board's first
(Multi-LCB's difficulty), each run's results fed to its evaluator's own aggregation and cached per run,
window and slice (a succeeded run's item results never change)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.core.cache import cache
from django.db.models import TextField
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast

from evaluators.core import ItemScore
from leaderboard.catalog.evaluators import configured_evaluator
from leaderboard.catalog.models import Benchmark
from leaderboard.pagecache import quietly
from leaderboard.runs.models import ItemResult
from leaderboard.runs.score_keys import column_id, slice_key

#: how long a run's recomputed metrics for one window and slice are kept
WINDOW_CACHE_SECONDS = 24 * 3600


@dataclass(frozen=True)
class DateWindow:
    """Items whose date slice (e.g. a contest date) lies in [start, end]; either end may be open."""

    start: dt.date | None
    end: dt.date | None

    @property
    def key(self) -> str:
        return f"{self.start or ''}..{self.end or ''}"


def within_slice(benchmark: Benchmark, slice_filter: str) -> tuple[str, str] | None:
    """A slice filter on another dimension than the board's first (Multi-LCB's difficulty or platform,
    not its language): its (dimension, value), for which every metric is recomputed over the items in
    that slice so that the per-language columns stay on the board; None where the stored scores do."""
    if not slice_filter or not benchmark.slice_dimensions:
        return None
    dim, _, value = slice_filter.partition("=")
    return None if dim == benchmark.slice_dimensions[0]["key"] else (dim, value)


def under_filter(values: dict[str, list], slice_filter: str) -> dict[str, list]:
    """Recomputed metrics of the items in ``slice_filter`` under the board's column ids: the headline
    ``pass@1`` of those items is the filtered column ``pass@1|difficulty=hard``; per-slice ids stay."""
    if not slice_filter:
        return values
    out = {column_id(cid, slice_filter): vec for cid, vec in values.items() if "|" not in cid}
    out.update((cid, vec) for cid, vec in values.items() if "|" in cid)  # the evaluator's own slice figure wins
    return out


def recomputed_values(
    benchmark: Benchmark,
    run_ids: list[int],
    *,
    date_key: str | None,
    window: DateWindow | None,
    within: tuple[str, str] | None,
) -> dict[int, dict[str, list]]:
    """Every metric of each run recomputed by the evaluator over the item results in the date window
    and the slice ``within``. A succeeded run's item results never change, so results are cached per
    (run, window, slice)."""
    evaluator = configured_evaluator(benchmark)
    scope = f"{window.key if window else ''}:{'='.join(within) if within else ''}"
    keys = {run_id: f"lb-window:{run_id}:{scope}" for run_id in run_ids}
    found = quietly(lambda: cache.get_many(list(keys.values())), {})
    out = {run_id: found[key] for run_id, key in keys.items() if key in found}
    missing = [run_id for run_id in run_ids if run_id not in out]
    if missing:
        results = ItemResult.objects.filter(run_id__in=missing)
        # compared as text: the key transform's own __gte/__lte would read the date as JSON on SQLite
        if window and date_key:
            results = results.annotate(date=Cast(KeyTextTransform(date_key, "slices"), TextField()))
            if window.start:
                results = results.filter(date__gte=window.start.isoformat())
            if window.end:
                results = results.filter(date__lte=window.end.isoformat())
        if within:
            results = results.annotate(within=Cast(KeyTextTransform(within[0], "slices"), TextField())).filter(
                within=within[1]
            )
        # each run's results fed to its own aggregation as they are read: none kept where the metrics need
        # a few numbers per item (Multi-LCB)
        aggregations = {run_id: evaluator.aggregation(seed=run_id) for run_id in missing}
        found_any: set[int] = set()
        for run_id, item_id, slices, scores, detail, error in results.values_list(
            "run_id", "item_id", "slices", "scores", "detail", "error"
        ).iterator(chunk_size=500):
            aggregations[run_id].add(
                ItemScore(item_id=item_id, slices=slices, scores=scores, detail=detail, error=error)
            )
            found_any.add(run_id)
        fresh = {}
        for run_id, aggregation in aggregations.items():
            metrics = aggregation.metrics() if run_id in found_any else []
            fresh[run_id] = {column_id(m.key, slice_key(m.slice)): [m.value, m.ci_low, m.ci_high, m.n] for m in metrics}
        quietly(
            lambda: cache.set_many({keys[run_id]: values for run_id, values in fresh.items()}, WINDOW_CACHE_SECONDS)
        )
        out.update(fresh)
    return out
