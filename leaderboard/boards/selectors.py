"""Reads of the leaderboards for pages and the API: a board's rows and columns, a model's latest scores,
always through the visibility rule (private models and submissions are seen only by their owners and
staff; ``leaderboard.runs.selectors`` holds the rule for submissions and runs).

Each selector issues a fixed number of queries whatever the number of rows."""

from __future__ import annotations

import datetime as dt
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from django.db.models import BooleanField, ExpressionWrapper, Q, prefetch_related_objects
from django.db.models.fields.json import KeyTransform

from evaluators.core import MethodNote, ProtocolRow, evaluator_for, evaluator_version
from leaderboard.accounts import policy
from leaderboard.boards import charts
from leaderboard.boards.recomputed import DateWindow, recomputed_values, under_filter, within_slice
from leaderboard.catalog.evaluators import configured_evaluator
from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.catalog.services import dataset_items
from leaderboard.modelhost.validation import judge_validation_notes, unranked_by_judge
from leaderboard.pagecache import quietly
from leaderboard.runs.models import EvaluationRun, LeaderboardEntry, RunStatus, Score
from leaderboard.runs.score_keys import column_id
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
    sort_col = _sort_column(benchmark, columns, sort, slice_filter)
    if dataset is None or sort_col is None:
        return Leaderboard(benchmark, dataset, columns, [], sort or "", slice_filter, current_version)
    col, higher = sort_col["id"], sort_col["higher_is_better"]
    entries = LeaderboardEntry.objects.filter(visible_entries_q(user), benchmark=benchmark, dataset_version=dataset)
    entries = entries.annotate(shown_public=ExpressionWrapper(public_entries_q(), BooleanField()))
    keys = _sort_keys(entries, benchmark, col, slice_filter, window)
    windowed, contaminated, window = keys.windowed, keys.contaminated, keys.window
    untrusted = unranked_by_judge(benchmark, entries, dataset)
    ordered, ranks = _order_and_ranks(keys, higher, untrusted)
    pages = max(1, -(-len(ordered) // page_size))
    page = min(max(1, page), pages)
    page_ids = ordered[(page - 1) * page_size : page * page_size]
    shown_public = {pk for pk, pub, _ in keys.keyed if pub}
    by_id = _page_entries(page_ids)
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
        reason = _unranked_reason(row, cells.get(col), pk, sort_col["label"], contaminated, window, untrusted)
        if reason:
            row.unranked_reason = reason
        else:
            row.rank = ranks(cells[col])
        _flag_version(row, current_version)
        rows.append(row)
    judges, judge_notes = _judges(rows)
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
        _flag_toolchains(rows),
        window,
        judges,
        judge_notes,
        next((status.reason for status in untrusted.values()), ""),
    )


def _sort_column(
    benchmark: Benchmark, columns: list[dict[str, Any]], sort: str | None, slice_filter: str
) -> dict[str, Any] | None:
    """The column the board is sorted by: the one asked for, else the primary metric's (under the slice),
    else the first; None when the board has no column."""
    primary = next((c for c in benchmark.metric_columns if c.get("primary")), None)
    default_sort = column_id(primary["key"], slice_filter) if primary else ""
    return next((c for c in columns if c["id"] == (sort or default_sort)), None) or (columns[0] if columns else None)


def _flag_version(row: LeaderboardRow, current_version: str) -> None:
    """A row scored by another evaluator version than the current one says so."""
    if row.run.evaluator_version and current_version and row.run.evaluator_version != current_version:
        row.flags.append(f"scored by evaluator {row.run.evaluator_version}; the current one is {current_version}")


def _judges(rows: list[LeaderboardRow]) -> tuple[list[str], list[str]]:
    """The labels of the judges that scored the page's rows, and their notes."""
    judges = sorted({row.judge for row in rows if row.judge})
    notes = sorted(
        {str(note) for row in rows if (note := ((row.run.environment or {}).get("judge") or {}).get("note"))}
    )
    return judges, notes


@dataclass
class _SortKeys:
    """Each visible row's (pk, shown publicly, the sorted column's cell), with what decides its rank: the
    reference rows, the rows' metrics recomputed under a date window or slice (None: the stored ones),
    the rows contaminated by the window (released on or after its start) and the window applied."""

    keyed: list[tuple[int, bool, Any]]
    references: set[int]
    windowed: dict[int, dict[str, list]] | None
    contaminated: dict[int, dt.date]
    window: DateWindow | None


def _sort_keys(entries: Any, benchmark: Benchmark, col: str, slice_filter: str, window: DateWindow | None) -> _SortKeys:
    """The board's rows keyed by the sorted column: from the stored values (one query), or recomputed
    over the date window or the slice of another dimension (``recomputed``)."""
    windowed: dict[int, dict[str, list]] | None = None
    contaminated: dict[int, dt.date] = {}
    date_key = date_slice_of(benchmark) if window else None
    window = window if date_key else None
    within = within_slice(benchmark, slice_filter)
    if window or within:
        all_rows = list(entries.values_list("pk", "shown_public", "run_id", "model__release_date"))
        references = set(entries.filter(model__is_reference=True).values_list("pk", flat=True))
        by_run = recomputed_values(
            benchmark, [run_id for _, _, run_id, _ in all_rows], date_key=date_key, window=window, within=within
        )
        windowed = {
            pk: under_filter(by_run.get(run_id, {}), slice_filter if within else "") for pk, _, run_id, _ in all_rows
        }
        if window and window.start:
            contaminated = {pk: released for pk, _, _, released in all_rows if released and released >= window.start}
        keyed = [(pk, pub, windowed[pk].get(col)) for pk, pub, _, _ in all_rows]
    else:
        keyed = list(
            entries.annotate(sort_cell=KeyTransform(col, "values")).values_list("pk", "shown_public", "sort_cell")
        )
        references = set(entries.filter(model__is_reference=True).values_list("pk", flat=True))
    return _SortKeys(keyed, references, windowed, contaminated, window)


def _order_and_ranks(
    keys: _SortKeys, higher: bool, untrusted: Mapping[int, Any]
) -> tuple[list[int], Callable[[Cell], int]]:
    """The rows' order (by the sorted column's value, rows without one last) and the rank function over
    the rows that are ranked: public, uncontaminated, not a reference, not held back by the judge."""
    present = [(pk, pub, cell) for pk, pub, cell in keys.keyed if cell]
    present.sort(key=lambda t: t[2][0], reverse=higher)
    ordered = [pk for pk, _, _ in present] + [pk for pk, _, cell in keys.keyed if not cell]
    ranked = [
        cell
        for pk, pub, cell in present
        if pub and pk not in keys.contaminated and pk not in keys.references and pk not in untrusted
    ]
    return ordered, ranks_among(ranked, higher)


#: what a board's page reads of each row shown
_PAGE_FIELDS: tuple[str, ...] = ("pk", "values", "model__name", "model__slug", "model__release_date")
_PAGE_FIELDS += ("model__is_reference", "run__evaluator_version", "run__submission_id", "run__environment", "run__cost")


def _page_entries(page_ids: list[int]) -> dict[int, LeaderboardEntry]:
    """The page's rows with the fields a row shows of its model and run (one query)."""
    shown = LeaderboardEntry.objects.filter(pk__in=page_ids).select_related("model", "run").only(*_PAGE_FIELDS)
    return {e.pk: e for e in shown}


def _unranked_reason(
    row: LeaderboardRow,
    cell: Cell | None,
    pk: int,
    label: str,
    contaminated: dict[int, dt.date],
    window: DateWindow | None,
    untrusted: Mapping[int, Any],
) -> str:
    """Why a row is shown without a rank ("": it is ranked), in the order the reasons are told."""
    if row.is_reference:
        return "a reference row (the benchmark's baseline), shown for comparison and never ranked"
    if cell is None:
        return f"no {label} score for this selection"
    if pk in contaminated and window is not None and window.start is not None:
        return (
            f"contaminated: released {contaminated[pk]:%Y-%m-%d}, on or after the window's start "
            f"{window.start:%Y-%m-%d}, so it may have seen these problems"
        )
    if not row.is_public:
        return "private: visible only to its owner and staff"
    if pk in untrusted:
        return str(untrusted[pk].reason)
    if cell.ci_low is None or cell.ci_high is None:
        return "no interval (too few items)"
    return ""


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
    dimension (the languages within a difficulty, recomputed: ``recomputed.within_slice``). Each names its header:
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
    if primary and benchmark.slice_dimensions and (not slice_filter or within_slice(benchmark, slice_filter)):
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
