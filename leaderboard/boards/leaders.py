"""Who leads, across the site: each board's top public rows for the home page, and the models index
(``/models/``, ``GET /api/models-index/``) with every public model's headline on each board and in the
Search Arena. Reads the precomputed leaderboard rows (one query per board) and the latest arena
snapshot; ranks by the boards' own rule (``selectors.ranks_among``: 1 + the rows whose interval lies
entirely better). Public data only, so the pages can be cached for everyone."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Case, JSONField, When
from django.db.models.fields.json import KeyTransform

from evaluators.core.modality import MODALITIES
from leaderboard.arena import standing
from leaderboard.arena.catalog_link import contestant_names
from leaderboard.arena.selectors import latest_snapshots
from leaderboard.arena.standing import Standings
from leaderboard.boards.selectors import Cell, public_entries_q, ranks_among
from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.modelhost.validation import figure_status, is_judged
from leaderboard.runs.models import LeaderboardEntry
from leaderboard.runs.score_keys import column_id

SORTS = ("name", "-name", "registered", "-registered")


@dataclass(frozen=True)
class Headline:
    """One model's headline on one board: the primary metric with its 95% interval and its rank
    (None: not ranked, e.g. no interval)."""

    benchmark: str
    value: float
    ci_low: float | None
    ci_high: float | None
    rank: int | None
    percent: bool
    unranked_reason: str = ""  # why a figure that could be ranked is not (its judge has no passing validation)

    @property
    def ranked(self) -> bool:
        return self.rank is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "value": self.value,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "rank": self.rank,
            "ranked": self.ranked,
            "unranked_reason": self.unranked_reason,
            "format": "percent" if self.percent else "number",
        }


@dataclass
class BoardHeadlines:
    """A board's primary metric and every public model's headline on it, best first."""

    benchmark: Benchmark
    metric: str
    percent: bool
    higher_is_better: bool
    by_model: dict[int, Headline] = field(default_factory=dict)
    order: list[int] = field(default_factory=list)
    models: dict[int, Model] = field(default_factory=dict)
    #: the board's baselines (reference models), best first, never ranked: shown marked beside the people's rows
    baselines: list[tuple[Model, Headline]] = field(default_factory=list)
    #: the current dataset version (None: none) and its judge validations, which a run's figures are ranked under
    version_id: int | None = None
    validations: dict[str, Any] = field(default_factory=dict)
    #: the cells ([value, low, high, n]) of the rows ranked, which any figure is ranked among (``rank_of``)
    ranked_cells: list[list] = field(default_factory=list)

    def rank_of(self, cell: Cell) -> tuple[int, int]:
        """(rank, models ranked) of ``cell`` among the board's ranked rows, by the board's rule
        (``selectors.ranks_among``)."""
        return ranks_among(self.ranked_cells, self.higher_is_better)(cell), len(self.ranked_cells)

    def top(self, n: int) -> list[tuple[Model, Headline]]:
        return [(self.models[pk], self.by_model[pk]) for pk in self.order[:n]]


def _primary(benchmark: Benchmark) -> dict[str, Any] | None:
    return next((c for c in benchmark.metric_columns if c.get("primary")), None)


def _public_rows(benchmarks: list[Benchmark]) -> dict[int, list[tuple[int, int, bool, list | None, Any, Any]]]:
    """Every board's public rows on its current dataset version, read in one query whatever the number of boards:
    per board (by benchmark id), in row order, (pk, model id, is a baseline, primary cell, judge, judge prompt).
    Postgres returns of each row only its board's primary cell (a CASE over the boards' key transforms, never the
    whole ``values``) and, on a board a judge scores, the run's judge record and prompt."""
    found: dict[int, list[tuple[int, int, bool, list | None, Any, Any]]] = {b.pk: [] for b in benchmarks}
    if not benchmarks:
        return found
    judged = [b.pk for b in benchmarks if is_judged(b)]
    cell = Case(
        *[
            When(benchmark_id=b.pk, then=KeyTransform(column_id((_primary(b) or {})["key"]), "values"))
            for b in benchmarks
        ],
        output_field=JSONField(),
    )
    rows = (
        LeaderboardEntry.objects.filter(public_entries_q(), benchmark__in=benchmarks, dataset_version__is_current=True)
        .annotate(
            cell=cell,
            judge=Case(When(benchmark_id__in=judged, then=KeyTransform("judge", "run__environment"))),
            judge_prompt=Case(When(benchmark_id__in=judged, then=KeyTransform("judge_prompt", "run__environment"))),
        )
        .order_by("benchmark_id", "pk")
        .values_list("benchmark_id", "pk", "model_id", "model__is_reference", "cell", "judge", "judge_prompt")
    )
    for benchmark_id, *row in rows:
        found[benchmark_id].append(tuple(row))  # type: ignore[arg-type]
    return found


def _board(
    benchmark: Benchmark, version: DatasetVersion | None, rows: list[tuple[int, int, bool, list | None, Any, Any]]
) -> tuple[BoardHeadlines, list[tuple[int, Headline]]]:
    """One board's headlines from its public rows (``_public_rows``): the people's rows ranked by the board's rule,
    and apart from them its baselines (by model id, best first), never ranked."""
    primary = _primary(benchmark)
    assert primary is not None
    higher = bool(primary.get("higher_is_better", True))
    board = BoardHeadlines(benchmark, str(primary["label"]), primary.get("format", "percent") == "percent", higher)
    if version is not None:
        board.version_id, board.validations = version.pk, version.judge_validations
    references = [(model_id, Cell(*cell)) for _, model_id, reference, cell, _, _ in rows if reference and cell]
    baselines = [
        (model_id, Headline(benchmark.slug, cell.value, cell.ci_low, cell.ci_high, None, board.percent))
        for model_id, cell in sorted(references, key=lambda mc: -mc[1].value if higher else mc[1].value)
    ]
    untrusted = {}
    if version is not None and is_judged(benchmark):
        for pk, _, reference, _, judge, prompt in rows:
            judged_by = figure_status(judge, prompt, version.judge_validations)
            if not reference and not judged_by.ranked:
                untrusted[pk] = judged_by
    entries = [(pk, model_id, cell) for pk, model_id, reference, cell, _, _ in rows if not reference and cell]
    cells = {model_id: (Cell(*cell), untrusted.get(pk)) for pk, model_id, cell in entries}
    board.ranked_cells = [
        cell for pk, _, cell in entries if pk not in untrusted and cell[1] is not None and cell[2] is not None
    ]
    rank = ranks_among(board.ranked_cells, higher)
    for pk, (cell, status) in cells.items():
        bounded = cell.ci_low is not None and cell.ci_high is not None
        board.by_model[pk] = Headline(
            benchmark.slug,
            cell.value,
            cell.ci_low,
            cell.ci_high,
            rank(cell) if bounded and status is None else None,
            board.percent,
            status.reason if status is not None else "",
        )
    board.order = sorted(
        cells,
        key=lambda pk: (board.by_model[pk].rank or 10**9, -cells[pk][0].value if higher else cells[pk][0].value),
    )
    return board, baselines


def board_headlines() -> list[BoardHeadlines]:
    """Every available benchmark's public rows on its current dataset version: people's, ranked, and apart
    from them the baselines (reference models), unranked. Read on every call (a row's visibility is checked on
    every read), in four queries whatever the number of boards, rows and models (issue 47 point 4): the boards,
    their current versions, every board's rows (of each only its primary cell: at 10,000 rows the whole ``values``
    JSON and an ORM object per row dominated the pages' time), and the models shown (name and slug)."""
    benchmarks = [b for b in Benchmark.objects.exclude(evaluator_key="").order_by("pk") if _primary(b) is not None]
    versions = {
        v.benchmark_id: v
        for v in DatasetVersion.objects.filter(benchmark__in=benchmarks, is_current=True).only(
            "benchmark_id", "judge_validations"
        )
    }
    rows = _public_rows(benchmarks)
    found = [_board(benchmark, versions.get(benchmark.pk), rows[benchmark.pk]) for benchmark in benchmarks]
    shown = {pk for board, _ in found for pk in board.by_model} | {pk for _, pairs in found for pk, _ in pairs}
    models = Model.objects.only("name", "slug", "is_reference").filter(
        pk__in=LeaderboardEntry.objects.filter(
            public_entries_q(), benchmark__in=benchmarks, dataset_version__is_current=True
        ).values("model_id")
    )
    # the models of every board's public rows, asked by a subquery: a thousand ids as parameters took psycopg
    # longer to send than Postgres to answer
    by_pk = {m.pk: m for m in models if m.pk in shown}
    for board, pairs in found:
        board.models = {pk: by_pk[pk] for pk in board.by_model}
        board.baselines = [(by_pk[pk], headline) for pk, headline in pairs]
    return [board for board, _ in found]


def arena_standings() -> Standings:
    """The latest arena ratings split into ranked rows (best first) and provisional ones (``arena.standing``)."""
    return standing.standings(latest_snapshots().raw)


def home_leaders(limit: int = 3) -> dict[str, Any]:
    """The home page's leaders: each board's top ``limit`` rows and, marked apart, its best ``limit`` baselines; and
    the arena's ranked top ``limit`` with the provisional models listed apart."""
    arena = arena_standings()
    return {
        "boards": {
            b.benchmark.slug: {
                "metric": b.metric,
                "percent": b.percent,
                "rows": b.top(limit),
                "baselines": b.baselines[:limit],
                # said once under the card's table (its rank column is too narrow for it)
                "unranked_reason": next((h.unranked_reason for _, h in b.top(limit) if h.unranked_reason), ""),
            }
            for b in board_headlines()
        },
        "arena": arena.ranked[:limit],
        "arena_provisional": arena.provisional,
        "arena_rule": arena.short_rule,
        "arena_any": bool(arena.ranked or arena.provisional),
    }


@dataclass(frozen=True)
class IndexQuery:
    sort: str = "name"
    modality: str = ""
    source: str = ""


class IndexQueryError(ValueError):
    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name


def index_query(params: Any) -> IndexQuery:
    """The models index's parameters, each checked (an unknown value names its field and the choices)."""
    sort = params.get("sort") or "name"
    sorts = (
        SORTS
        + tuple(p + slug for slug in Benchmark.objects.values_list("slug", flat=True) for p in ("", "-"))
        + ("arena", "-arena")
    )
    if sort not in sorts:
        raise IndexQueryError("sort", f"sort: '{sort}' is not one of {', '.join(sorts)}")
    modality = params.get("modality") or ""
    if modality and modality not in MODALITIES:
        raise IndexQueryError("modality", f"modality: '{modality}' is not one of {', '.join(MODALITIES)}")
    source = params.get("source") or ""
    sources = [key for key, _ in Model.SOURCE_CHOICES]
    if source and source not in sources:
        raise IndexQueryError("source", f"source: '{source}' is not one of {', '.join(sources)}")
    return IndexQuery(sort, modality, source)


@dataclass(frozen=True)
class IndexRow:
    """One model of the index: its headline per board (by slug, and in the boards' order) and its arena row."""

    model: Model
    headlines: dict[str, Headline | None]
    cells: list[Headline | None]
    arena: dict[str, Any] | None


@dataclass(frozen=True)
class ModelsIndex:
    boards: list[BoardHeadlines]
    rows: list[IndexRow]
    query: IndexQuery


def models_index(query: IndexQuery) -> ModelsIndex:
    """Every public model with its modality, source, registration date, headline on each board and
    arena rating, filtered and sorted by ``query`` (a board's slug sorts by its headline, best first;
    models without a score on it last)."""
    boards = board_headlines()
    standings = arena_standings()
    by_name = {m["name"]: m for m in standings.ranked + standings.provisional}
    models = Model.objects.filter(is_public=True, is_reference=False).order_by("name")
    if query.modality:
        models = models.filter(modality=query.modality)
    if query.source:
        models = models.filter(source=query.source)
    linked = contestant_names()  # a contestant's figures go to the catalog model linked to it, never to a namesake
    rows = [
        IndexRow(
            m,
            {b.benchmark.slug: b.by_model.get(m.pk) for b in boards},
            [b.by_model.get(m.pk) for b in boards],
            by_name.get(linked[m.pk]) if m.pk in linked else None,
        )
        for m in models
    ]
    key, descending = query.sort.lstrip("-"), query.sort.startswith("-")
    if key in ("name", "registered"):
        rows.sort(
            key=lambda r: r.model.name.lower() if key == "name" else r.model.created_at.isoformat(), reverse=descending
        )
        return ModelsIndex(boards, rows, query)
    if key == "arena":
        values = {r.model.pk: float(r.arena["rating"]) for r in rows if r.arena and r.arena["ranked"]}
        best_first = True
    else:
        values = {r.model.pk: h.value for r in rows if (h := r.headlines.get(key)) is not None}
        best_first = next(b for b in boards if b.benchmark.slug == key).higher_is_better
    scored = sorted(
        (r for r in rows if r.model.pk in values), key=lambda r: values[r.model.pk], reverse=best_first != descending
    )
    return ModelsIndex(boards, scored + [r for r in rows if r.model.pk not in values], query)
