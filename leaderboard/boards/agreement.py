"""How far each static board agrees with people: for the models ranked both on a board (its current
dataset version, public rows, ranked figures only) and in the Search Arena (the latest raw ratings,
ranked models only), the board's headline against the arena rating (``evaluators.arena.agreement``:
Spearman and Kendall with bootstrap intervals, Arena-Hard's separability and agreement with confidence).

A board model and an arena contestant are the same model only where staff linked them
(``ArenaModel.catalog_model``, ``arena.catalog_link``), never by name. For ``/arena/agreement/`` and
``GET /api/arena/agreement/``. Reads only."""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from typing import Any

from django.db.models import Count, Max

from leaderboard.arena import standing
from leaderboard.arena.catalog_link import contestant_names
from leaderboard.arena.published import published
from leaderboard.arena.selectors import latest_snapshots
from leaderboard.boards.selectors import public_entries_q
from leaderboard.catalog.models import Benchmark, DatasetVersion
from leaderboard.modelhost.validation import unranked_by_judge
from leaderboard.runs.models import LeaderboardEntry
from leaderboard.runs.score_keys import column_id

METHOD = (
    "For the models ranked both on the board and in the Search Arena (staff link an arena contestant to its "
    "catalog model; names alone never match): Spearman's rho and Kendall's tau-b between the board's headline and "
    "the arena's raw rating, each with a 95% bootstrap interval (each of 1,000 rounds draws every figure from the "
    "spread its own 95% interval states, then the shared models with replacement); separability with confidence, the "
    "share of pairs whose 95% intervals do not overlap; and agreement with confidence, after Arena-Hard (Li et al., "
    "2024): over the pairs the arena separates with confidence, +1 where the board separates them in the same "
    "order, −1 in the opposite order, 0 where it cannot tell them apart, averaged. Unranked figures (an unvalidated "
    "judge, a provisional arena rating) are left out."
)


def _arena_figures() -> tuple[list[Any], dict[str, Any]]:
    from evaluators.arena.agreement import Figure

    snapshot = latest_snapshots().raw
    rows = [r for r in standing.snapshot_rows(snapshot) if r.get("ranked")]
    figures = [Figure(r["name"], float(r["rating"]), float(r["ci_low"]), float(r["ci_high"])) for r in rows]
    about = {
        "computed_at": snapshot.computed_at if snapshot else None,
        "votes": snapshot.n_votes if snapshot else 0,
        "ranked_models": len(figures),
    }
    return figures, about


def _board_figures(benchmark: Benchmark, names: dict[int, str]) -> tuple[list[Any], str]:
    """The board's ranked public figures of linked models, oriented higher-is-better, and why a board has none."""
    from evaluators.arena.agreement import Figure

    primary = benchmark.primary_metric
    current = benchmark.dataset_versions.filter(is_current=True).first()
    if primary is None or current is None:
        return [], "no current dataset version"
    entries = LeaderboardEntry.objects.filter(
        public_entries_q(),
        benchmark=benchmark,
        dataset_version=current,
        model__is_reference=False,
        model_id__in=list(names),
    )
    unranked = unranked_by_judge(benchmark, entries, current)
    sign = 1.0 if primary.get("higher_is_better", True) else -1.0
    figures = []
    for pk, model_id, values in entries.values_list("pk", "model_id", "values"):
        cell = (values or {}).get(column_id(primary["key"]))
        if pk in unranked or not cell or cell[1] is None or cell[2] is None:
            continue
        low, high = sorted((sign * cell[1], sign * cell[2]))
        figures.append(Figure(names[model_id], sign * cell[0], low, high))
    why = next(iter(unranked.values())).reason if unranked and not figures else ""
    return sorted(figures, key=lambda f: f.name), why


def board_agreement() -> dict[str, Any]:
    """Every static board against the arena, with the method in words."""
    from evaluators.arena.agreement import MIN_SHARED, agree

    arena, about = _arena_figures()
    names = contestant_names()
    boards = []
    for benchmark in Benchmark.objects.filter(kind=Benchmark.KIND_STATIC).exclude(evaluator_key=""):
        figures, why = _board_figures(benchmark, names)
        result = agree(figures, arena)
        if why:
            result.reading = f"{result.reading} This board's figures are not ranked ({why}), so none is compared."
        primary = benchmark.primary_metric or {}
        boards.append(
            {
                "benchmark": benchmark.slug,
                "name": benchmark.name,
                "metric": primary.get("label", ""),
                "higher_is_better": primary.get("higher_is_better", True),
                **asdict(result),
            }
        )
    return {"arena": about, "linked_models": len(names), "min_shared": MIN_SHARED, "method": METHOD, "boards": boards}


def boards_state() -> str:
    """The static boards' state: their rows (how many, the newest, the latest finish) and their current dataset
    versions with the judges' validations. Any change to a row (a new run, a visibility change refiles the model's
    rows) changes it; the page cache's generation would change with every queued run too."""
    rows = LeaderboardEntry.objects.aggregate(n=Count("id"), last=Max("id"), at=Max("finished_at"))
    versions = list(
        DatasetVersion.objects.filter(is_current=True).order_by("pk").values_list("pk", "judge_validations")
    )
    return hashlib.sha256(repr((sorted(rows.items()), versions)).encode()).hexdigest()[:16]


def published_agreement() -> dict[str, Any]:
    """``board_agreement`` as published with the arena's figures (``arena.published``: kept under the latest
    ratings, the contestants' and the boards' state; the periodic pass computes it, ``boards/apps.py`` registers it)."""
    return published("agreement", board_agreement, extra_key=boards_state())
