"""Reads of the leaderboards for pages and the API: a board's rows and columns, a model's latest scores,
always through the visibility rule (private models and submissions are seen only by their owners and
staff; ``leaderboard.runs.selectors`` holds the rule for submissions and runs).

Each selector issues a fixed number of queries whatever the number of rows."""

from __future__ import annotations

import datetime as dt
from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.db.models import BooleanField, ExpressionWrapper, Q, TextField, prefetch_related_objects
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Cast

from evaluators.core import ItemScore, MethodNote, ProtocolRow, evaluator_for, evaluator_version
from leaderboard.accounts import policy
from leaderboard.boards import charts
from leaderboard.catalog.evaluators import configured_evaluator
from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.catalog.services import dataset_items
from leaderboard.modelhost.validation import judge_validation_notes, unranked_by_judge
from leaderboard.pagecache import quietly
from leaderboard.runs.models import EvaluationRun, ItemResult, LeaderboardEntry, RunStatus, Score
from leaderboard.runs.score_keys import column_id, slice_key
from leaderboard.runs.selectors import visible_submissions_q

#: a row is public only while its model and its submission both still are (checked on every read)
PUBLIC_ENTRY = ("is_public", "model__is_public", "run__submission__is_public")


def public_entries_q() -> Q:
    return Q(**dict.fromkeys(PUBLIC_ENTRY, True))


def visible_entries_q(user: Any) -> Q:
    """Leaderboard rows ``user`` may see: public rows of public models and submissions, their own private
    rows (``LeaderboardEntry.owner``, the submitter); staff see every row."""
    return policy.visible_q(user, public=PUBLIC_ENTRY, owner="owner_id")


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
    is_public: bool = True
    judge: str = ""  # the judge's label ("name@revision (prompt v1)") for judged benchmarks
    is_reference: bool = False  # a baseline row (Model.is_reference): shown, never ranked
    heatmap: dict[str, Any] | None = None  # the evaluator's two-way breakdown (charts.heatmap)
    lines: dict[str, Any] | None = None  # the evaluator's metrics against a numeric slice (charts.lines)


@dataclass
class Leaderboard:
    benchmark: Benchmark
    dataset: DatasetVersion | None
    columns: list[dict[str, Any]]
    rows: list[LeaderboardRow]
    sort_key: str
    slice_filter: str
    current_evaluator_version: str
    page: int = 1
    pages: int = 1
    total: int = 0
    toolchains: dict[str, str] = field(default_factory=dict)
    window: DateWindow | None = None
    judges: list[str] = field(default_factory=list)  # the judges behind the rows shown (one, unless they differ)
    judge_notes: list[str] = field(default_factory=list)  # what their settings say about them (the demo judge's caveat)
    judge_unvalidated: str = ""  # why some rows are not ranked for their judge ("judge not validated: not ranked")

    @property
    def wide(self) -> bool:
        """Too many figure columns for full headers and intervals (Multi-LCB's model x language table): the page
        shows abbreviated headers and compact intervals so that the table fits a desktop window."""
        return len(self.columns) > WIDE_COLUMNS


PAGE_SIZE = 50
#: figure columns beyond which a board is shown compactly (``Leaderboard.wide``)
WIDE_COLUMNS = 8


class QueryError(ValueError):
    """A leaderboard query parameter that cannot be used; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass(frozen=True)
class LeaderboardQuery:
    """What a visitor asked of a leaderboard: its sort, slice, page and date window."""

    sort: str | None = None
    slice_filter: str = ""
    page: int = 1
    window: DateWindow | None = None


def leaderboard_query(*, benchmark: Benchmark, params: Mapping[str, str]) -> LeaderboardQuery:
    """The one reading of a leaderboard's query string, for the page, its downloads and the API:
    ``sort``, a slice (``language=python``: the first dimension given a known value), ``page`` and,
    where the benchmark has a date slice, ``from``/``to`` (YYYY-MM-DD). Raises QueryError naming the
    parameter that cannot be used."""
    slice_filter = next(
        (
            f"{d['key']}={params[d['key']]}"
            for d in benchmark.slice_dimensions
            if params.get(d["key"]) and params[d["key"]] in d["values"]
        ),
        "",
    )
    raw_page = params.get("page") or "1"
    try:
        page = int(raw_page)
    except ValueError:
        raise QueryError("page", f"{raw_page[:20]!r} is not a page number; use a whole number from 1") from None
    if page < 1:
        raise QueryError("page", "pages are numbered from 1")
    window = None
    if date_slice_of(benchmark):
        bounds: list[dt.date | None] = []
        for name in ("from", "to"):
            text = params.get(name) or ""
            try:
                bounds.append(dt.date.fromisoformat(text) if text else None)
            except ValueError:
                raise QueryError(name, f"{text[:20]!r} is not a date; use a date like 2025-02-01") from None
        window = DateWindow(bounds[0], bounds[1]) if any(bounds) else None
    return LeaderboardQuery(sort=params.get("sort") or None, slice_filter=slice_filter, page=page, window=window)


@dataclass(frozen=True)
class DateWindow:
    """Items whose date slice (e.g. a contest date) lies in [start, end]; either end may be open."""

    start: dt.date | None
    end: dt.date | None

    @property
    def key(self) -> str:
        return f"{self.start or ''}..{self.end or ''}"


def date_slice_of(benchmark: Benchmark) -> str | None:
    """The item slice a benchmark's date window filters on, if its evaluator has one."""
    if not benchmark.evaluator_key:
        return None
    return evaluator_for(benchmark.evaluator_key).presentation().date_slice


def method_notes_of(benchmark: Benchmark) -> list[MethodNote]:
    """How a benchmark's scores are obtained, as its evaluator describes it (empty when it does not),
    then its diagnostics of the current dataset version (``DatasetVersion.notes``)."""
    if not benchmark.evaluator_key:
        return []
    found = configured_evaluator(benchmark).presentation().method_notes()  # as configured here (Video NIAH's mode)
    version = benchmark.dataset_versions.filter(is_current=True).only("tag", "notes", "judge_validations").first()
    if version is not None:  # the evaluator's diagnostics of this dataset version, then its judge's validation
        found += [
            MethodNote(f"{note['heading']} · dataset {version.tag}", note["text"], tuple(note.get("points", ())))
            for note in version.notes
        ]
        found += judge_validation_notes(benchmark, version)
    return found


def method_card_of(benchmark: Benchmark) -> list[ProtocolRow]:
    """The benchmark's method card (the release beside this platform, row by row) as its configured
    evaluator states it; empty for a board without an evaluator."""
    if not benchmark.evaluator_key:
        return []
    return configured_evaluator(benchmark).presentation().method_card()


def leaderboard(
    *,
    benchmark: Benchmark,
    user: Any = None,
    sort: str | None = None,
    slice_filter: str = "",
    page: int = 1,
    page_size: int = PAGE_SIZE,
    window: DateWindow | None = None,
) -> Leaderboard:
    """One page of a benchmark's leaderboard on its current dataset version, from the precomputed
    entries (the latest succeeded run of each model). ``slice_filter`` (e.g. ``difficulty=hard``)
    selects the per-slice scores shown in the headline columns.

    Ranks count public rows only: 1 + the number of rows whose 95% interval lies entirely above
    this row's, so rows with overlapping intervals share a rank. Queries: a fixed handful, and the
    work per request is one small tuple per row plus the rows of the page.

    With a date ``window``, every metric is recomputed by the evaluator from the item results
    inside the window (cached per run and window), and a model released on or after the window's
    start is flagged as contaminated and not ranked."""
    dataset = benchmark.dataset_versions.filter(is_current=True).first()
    current_version = evaluator_version(benchmark.evaluator_key) if benchmark.evaluator_key else ""
    columns = _columns(benchmark, slice_filter)
    primary = next((c for c in benchmark.metric_columns if c.get("primary")), None)
    default_sort = column_id(primary["key"], slice_filter) if primary else ""
    sort_col = next((c for c in columns if c["id"] == (sort or default_sort)), None) or (
        columns[0] if columns else None
    )
    if dataset is None or sort_col is None:
        return Leaderboard(benchmark, dataset, columns, [], sort or "", slice_filter, current_version)
    col, higher = sort_col["id"], sort_col["higher_is_better"]
    entries = LeaderboardEntry.objects.filter(benchmark=benchmark, dataset_version=dataset)
    entries = entries.filter(visible_entries_q(user)).annotate(
        shown_public=ExpressionWrapper(public_entries_q(), BooleanField())
    )
    windowed: dict[int, dict[str, list]] | None = None
    contaminated: dict[int, dt.date] = {}
    date_key = date_slice_of(benchmark) if window else None
    window = window if date_key else None
    within = _within(benchmark, slice_filter)
    if window or within:
        all_rows = list(entries.values_list("pk", "shown_public", "run_id", "model__release_date"))
        references = set(entries.filter(model__is_reference=True).values_list("pk", flat=True))
        by_run = _recomputed_values(
            benchmark, [run_id for _, _, run_id, _ in all_rows], date_key=date_key, window=window, within=within
        )
        windowed = {
            pk: _under_filter(by_run.get(run_id, {}), slice_filter if within else "") for pk, _, run_id, _ in all_rows
        }
        if window and window.start:
            contaminated = {pk: released for pk, _, _, released in all_rows if released and released >= window.start}
        keyed = [(pk, pub, windowed[pk].get(col)) for pk, pub, _, _ in all_rows]
    else:
        keyed = list(
            entries.annotate(sort_cell=KeyTransform(col, "values")).values_list("pk", "shown_public", "sort_cell")
        )
        references = set(entries.filter(model__is_reference=True).values_list("pk", flat=True))
    present = [(pk, pub, cell) for pk, pub, cell in keyed if cell]
    present.sort(key=lambda t: t[2][0], reverse=higher)
    ordered = [pk for pk, _, _ in present] + [pk for pk, _, cell in keyed if not cell]
    untrusted = unranked_by_judge(benchmark, entries, dataset)
    ranks = ranks_among(
        [
            cell
            for pk, pub, cell in present
            if pub and pk not in contaminated and pk not in references and pk not in untrusted
        ],
        higher,
    )
    pages = max(1, -(-len(ordered) // page_size))
    page = min(max(1, page), pages)
    page_ids = ordered[(page - 1) * page_size : page * page_size]
    shown_public = {pk for pk, pub, _ in keyed if pub}
    by_id = {
        e.pk: e
        for e in LeaderboardEntry.objects.filter(pk__in=page_ids)
        .select_related("model", "run")
        .only(
            "pk",
            "values",
            "model__name",
            "model__slug",
            "model__release_date",
            "model__is_reference",
            "run__evaluator_version",
            "run__submission_id",
            "run__environment",
            "run__cost",
        )
    }
    wanted = {c["id"] for c in columns}
    figures = charts.specs(benchmark) if not slice_filter else {}
    rows = []
    for pk in page_ids:
        entry = by_id[pk]
        values = windowed[pk] if windowed is not None else entry.values
        cells = {cid: Cell(*vec) for cid, vec in values.items() if cid in wanted}
        row = LeaderboardRow(
            model=entry.model,
            run=entry.run,
            cells=cells,
            is_public=pk in shown_public,
            judge=judge_label(entry.run),
            is_reference=entry.model.is_reference,
            **charts.figures(figures, values),
        )
        cell = cells.get(col)
        if row.is_reference:
            row.unranked_reason = "a reference row (the benchmark's baseline), shown for comparison and never ranked"
        elif cell is None:
            row.unranked_reason = f"no {sort_col['label']} score for this selection"
        elif pk in contaminated and window is not None and window.start is not None:
            row.unranked_reason = (
                f"contaminated: released {contaminated[pk]:%Y-%m-%d}, on or after the window's start "
                f"{window.start:%Y-%m-%d}, so it may have seen these problems"
            )
        elif not row.is_public:
            row.unranked_reason = "private: visible only to its owner and staff"
        elif pk in untrusted:
            row.unranked_reason = untrusted[pk].reason
        elif cell.ci_low is None or cell.ci_high is None:
            row.unranked_reason = "no interval (too few items)"
        else:
            row.rank = ranks(cell)
        if entry.run.evaluator_version and current_version and entry.run.evaluator_version != current_version:
            row.flags.append(f"scored by evaluator {entry.run.evaluator_version}; the current one is {current_version}")
        rows.append(row)
    toolchains = _flag_toolchains(rows)
    judges = sorted({row.judge for row in rows if row.judge})
    judge_notes = sorted(
        {str(note) for row in rows if (note := ((row.run.environment or {}).get("judge") or {}).get("note"))}
    )
    return Leaderboard(
        benchmark,
        dataset,
        columns,
        rows,
        col,
        slice_filter,
        current_version,
        page,
        pages,
        len(ordered),
        toolchains,
        window,
        judges,
        judge_notes,
        next((status.reason for status in untrusted.values()), ""),
    )


WINDOW_CACHE_SECONDS = 24 * 3600


def _within(benchmark: Benchmark, slice_filter: str) -> tuple[str, str] | None:
    """A slice filter on another dimension than the board's first (Multi-LCB's difficulty or platform,
    not its language): its (dimension, value), for which every metric is recomputed over the items in
    that slice so that the per-language columns stay on the board; None where the stored scores do."""
    if not slice_filter or not benchmark.slice_dimensions:
        return None
    dim, _, value = slice_filter.partition("=")
    return None if dim == benchmark.slice_dimensions[0]["key"] else (dim, value)


def _under_filter(values: dict[str, list], slice_filter: str) -> dict[str, list]:
    """Recomputed metrics of the items in ``slice_filter`` under the board's column ids: the headline
    ``pass@1`` of those items is the filtered column ``pass@1|difficulty=hard``; per-slice ids stay."""
    if not slice_filter:
        return values
    out = {column_id(cid, slice_filter): vec for cid, vec in values.items() if "|" not in cid}
    out.update((cid, vec) for cid, vec in values.items() if "|" in cid)  # the evaluator's own slice figure wins
    return out


def _recomputed_values(
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


def judge_label(run: EvaluationRun) -> str:
    """The label of the judge that scored a run (its environment's "judge" record), or ""."""
    judge = (run.environment or {}).get("judge")
    return str(judge.get("label", "")) if isinstance(judge, dict) else ""


def _toolchains(run: EvaluationRun) -> dict[str, str]:
    return {k.removeprefix("toolchain."): v for k, v in (run.environment or {}).items() if k.startswith("toolchain.")}


def _flag_toolchains(rows: list[LeaderboardRow]) -> dict[str, str]:
    """The toolchain versions most rows were scored with; rows scored with others are flagged."""
    seen: dict[tuple[tuple[str, str], ...], int] = {}
    for row in rows:
        key = tuple(sorted(_toolchains(row.run).items()))
        seen[key] = seen.get(key, 0) + 1
    if not seen:
        return {}
    most_common, _ = max(seen.items(), key=lambda entry: entry[1])
    common = dict(most_common)
    for row in rows:
        own = _toolchains(row.run)
        changed = [
            f"{lang} {own.get(lang, '?')}"
            for lang in sorted(set(own) | set(common))
            if own.get(lang) != common.get(lang)
        ]
        if changed and own:
            row.flags.append("scored with other toolchains: " + ", ".join(changed))
    return common


def ranks_among(cells: list[list], higher_is_better: bool):
    """A function giving a cell's rank among ``cells`` ([value, low, high, n]) in O(log n): 1 + the
    cells whose 95% interval lies entirely on the better side of its own (the leaderboard's rule)."""
    lows = sorted(c[1] for c in cells if c[1] is not None and c[2] is not None)
    highs = sorted(c[2] for c in cells if c[1] is not None and c[2] is not None)

    def rank(cell: Cell) -> int:
        if higher_is_better:
            return 1 + len(lows) - bisect_right(lows, cell.ci_high)
        return 1 + bisect_left(highs, cell.ci_low)

    return rank


def _columns(benchmark: Benchmark, slice_filter: str) -> list[dict[str, Any]]:
    """Headline metric columns (for the chosen slice), then the primary metric per value of the
    first slice dimension (for Multi-LCB: one column per language), kept under a filter on another
    dimension (the languages within a difficulty, recomputed: ``_within``). Each names its header:
    ``title`` (the full name: the metric's label, the slice value's name) and ``short`` (an abbreviation
    for a wide board, "" for none)."""
    columns = [
        dict(
            c,
            slice_key=slice_filter,
            id=column_id(c["key"], slice_filter),
            title=c["label"],
            short=c.get("short") or "",
        )
        for c in benchmark.metric_columns
    ]
    primary = next((c for c in benchmark.metric_columns if c.get("primary")), None)
    if primary and benchmark.slice_dimensions and (not slice_filter or _within(benchmark, slice_filter)):
        dim = benchmark.slice_dimensions[0]
        named = dict(zip(dim["values"], dim.get("value_labels") or []))
        for value in dim["values"]:
            s_key = f"{dim['key']}={value}"
            short, name = named.get(value, ("", value))
            columns.append(
                dict(
                    primary,
                    label=value,
                    title=name,
                    short=short,
                    slice_key=s_key,
                    id=column_id(primary["key"], s_key),
                    per_slice=True,
                    primary=False,
                )
            )
    return columns


def model_scores(*, model: Model, user: Any) -> list[tuple[Benchmark, EvaluationRun, list[Score]]]:
    """The latest succeeded visible run of the model on each benchmark, with its headline scores."""
    runs = (
        EvaluationRun.objects.filter(
            visible_submissions_q(user, "submission__"), submission__model=model, status=RunStatus.SUCCEEDED
        )
        .select_related("benchmark", "dataset_version")
        .order_by("benchmark__position", "-finished_at")
    )
    latest: dict[int, EvaluationRun] = {}
    for run in runs:
        latest.setdefault(run.benchmark_id, run)
    # one query for every run's scores, kept on each run (``run.scores.all()``: the model page's summaries read
    # them again, which was a query per board)
    prefetch_related_objects(list(latest.values()), "scores")
    return [(run.benchmark, run, list(run.scores.all())) for run in latest.values()]


def dataset_date_range(*, dataset: DatasetVersion, date_key: str) -> tuple[str, str] | None:
    """First and last value of the date slice over the dataset's items (cached by content hash)."""
    key = f"dataset-dates:{dataset.content_hash}:{date_key}"
    found = quietly(lambda: cache.get(key))
    if found is None:
        items = dataset_items(dataset)
        dates = sorted(item.slices[date_key] for item in items if item.slices.get(date_key))
        found = (dates[0], dates[-1]) if dates else ()
        quietly(lambda: cache.set(key, found, None))
    return tuple(found) or None
