"""The boards the site hosts that no evaluator scores: the Search Arena, which ranks by people's votes.

Every scored benchmark is named once, in the engine's registry (``evaluators.core.registry.BENCHMARKS``:
key, name, summary and the evaluator class); ``catalog.services.benchmarks_sync`` writes both lists to
the Benchmark table, the registry's first, in their order.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Board:
    slug: str
    name: str
    summary: str
    modality: str
    kind: str


BOARDS: tuple[Board, ...] = (
    Board(
        "search-arena",
        "Search Arena",
        "People compare two anonymous search-augmented models side by side and vote; Bradley-Terry ratings "
        "with intervals and style control.",
        "text",
        kind="arena",
    ),
)
