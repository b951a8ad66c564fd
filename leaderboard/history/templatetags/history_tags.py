"""Tags that put a board's history on shared pages: ``{% snapshot_banner benchmark %}`` (the latest
snapshot, to cite), ``{% board_changelog benchmark %}`` (its latest public changes),
``{% board_rank_history benchmark %}`` and ``{% model_rank_history model %}`` (rank over time, a chart
with its table). Each reads through a selector in a fixed number of queries; public entries only, since
boards are cached for every visitor."""

from __future__ import annotations

from typing import Any

from django import template

from leaderboard.catalog.models import Benchmark, Model
from leaderboard.history import selectors

register = template.Library()

#: changelog entries shown on a board (the rest on its changelog page)
BOARD_CHANGES = 8


@register.inclusion_tag("history/_banner.html")
def snapshot_banner(benchmark: Benchmark) -> dict[str, Any]:
    return {"benchmark": benchmark, "latest": selectors.snapshot_latest(benchmark=benchmark)}


@register.inclusion_tag("history/_changelog.html")
def board_changelog(benchmark: Benchmark) -> dict[str, Any]:
    return {
        "benchmark": benchmark,
        "entries": selectors.changelog_of(benchmark=benchmark, limit=BOARD_CHANGES),
        "more": True,
    }


@register.inclusion_tag("history/_board_history.html")
def board_rank_history(benchmark: Benchmark) -> dict[str, Any]:
    return {"benchmark": benchmark, "history": selectors.board_rank_history(benchmark=benchmark)}


@register.inclusion_tag("history/_model_history.html")
def model_rank_history(model: Model) -> dict[str, Any]:
    return {"model": model, "boards": selectors.model_rank_history(model=model)}
