"""How many votes would have to flip to swap two neighbours on the leaderboard.

Definition (stated on the transparency page): for two models ranked next to each other by the raw
Bradley-Terry fit (ties as half, unweighted, the counted votes), the flips to swap them is the smallest
number of their head-to-head votes whose outcome would have to change, each towards the lower model,
so that a refit on the changed votes rates the lower model at or above the upper one. A flip turns a win
of the upper model into a win of the lower one, or a tie into a win of the lower one. When even flipping
all their head-to-head votes would not do it (or they never met), there is no such number.

Why this is exact, by a monotone search over refits: the fit's likelihood for the pair depends on its
votes only through the upper model's summed score against the lower one (a win 1, a tie 1/2), so which of
its votes flip does not matter, only how much the score drops. A flip of an upper win lowers it by 1,
the most any flip can, and a flip of a tie by 1/2; so the fewest flips for any drop flip upper wins
first, then ties. The fitted gap between the two falls monotonically as the score drops (the
Bradley-Terry likelihood's strict concavity), so the swap point is found by bisection over k.

The fit is the ratings' own Newton fit (:func:`evaluators.arena.bradley_terry.penalised_fit`, with the
same tiny L2 on the ratings) on the votes collapsed to unordered pairs, so a refit costs milliseconds
whatever the number of votes; each refit starts from the unchanged fit.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from evaluators.arena.bradley_terry import Design, penalised_fit
from evaluators.arena.rating_types import OUTCOMES, RatingConfig

_POINTS = 400.0 / math.log(10.0)  # log-odds -> rating points at the ratings' scale


@dataclass(frozen=True)
class Flips:
    """One adjacent pair: ``needed`` flips (None: flipping all their head-to-head votes is not enough),
    the fitted gap in rating points, their head-to-head record and the refits the search took."""

    upper: str
    lower: str
    gap: float
    upper_wins: int
    lower_wins: int
    ties: int
    needed: int | None
    refits: int

    @property
    def head_to_head(self) -> int:
        return self.upper_wins + self.lower_wins + self.ties

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "head_to_head": self.head_to_head}


class PairTable:
    """The counted votes as head-to-head records of unordered pairs: per pair (i < j by index), i's
    wins, j's wins and ties. Built from (model_a, model_b, winner, count) cells."""

    def __init__(self, cells: Iterable[tuple[str, str, str, int]]) -> None:
        rows = list(cells)
        self.models: list[str] = sorted({r[0] for r in rows} | {r[1] for r in rows})
        index = {name: i for i, name in enumerate(self.models)}
        self.records: dict[tuple[int, int], list[int]] = {}
        for line, (a, b, winner, count) in enumerate(rows):
            if winner not in OUTCOMES:
                raise ValueError(f"cell {line}: winner {winner!r} is not one of {', '.join(OUTCOMES)}")
            if a == b:
                raise ValueError(f"cell {line}: model_a and model_b are the same model")
            i, j = index[a], index[b]
            record = self.records.setdefault((min(i, j), max(i, j)), [0, 0, 0])
            if winner in ("model_a", "model_b"):
                won = i if winner == "model_a" else j
                record[0 if won == min(i, j) else 1] += int(count)
            else:
                record[2] += int(count)
        self._keys = sorted(self.records)
        self._row = {key: row for row, key in enumerate(self._keys)}
        self._a = np.array([k[0] for k in self._keys], dtype=np.int64)
        self._b = np.array([k[1] for k in self._keys], dtype=np.int64)
        self._w = np.array([sum(self.records[k]) for k in self._keys], dtype=float)
        self._won = np.array([self.records[k][0] + 0.5 * self.records[k][2] for k in self._keys], dtype=float)
        votes = np.zeros(len(self.models))
        for (i, j), (x, y, t) in self.records.items():
            votes[i] += x + y + t
            votes[j] += x + y + t
        self._pivot = int(np.argmax(votes)) if len(self.models) else 0
        self._penalty = np.full(len(self.models), RatingConfig().rating_l2)
        self._base: np.ndarray | None = None

    def fit(self, changed: dict[tuple[int, int], list[int]] | None = None) -> np.ndarray:
        """The log-odds ratings (pivot at 0) with some pairs' records replaced."""
        w, won = self._w.copy(), self._won.copy()
        for key, (first, second, ties) in (changed or {}).items():
            w[self._row[key]] = first + second + ties
            won[self._row[key]] = first + 0.5 * ties
        y = np.divide(won, w, out=np.zeros_like(won), where=w > 0)
        design = Design(m=len(self.models), a=self._a, b=self._b, y=y, w=w, w2=w)
        theta, _ = penalised_fit(design, self._pivot, self._penalty, start=self._base)
        if changed is None:
            self._base = theta
        return theta

    def ratings(self) -> dict[str, float]:
        """Each model's rating in points relative to the pivot (only the differences mean anything)."""
        theta = self.fit() if self._base is None else self._base
        return {name: float(theta[i]) * _POINTS for i, name in enumerate(self.models)}


def flips_to_swap(table: PairTable, upper: str, lower: str) -> Flips:
    """The flips to swap ``upper`` and ``lower`` (module doc), by bisection over refits."""
    if upper not in table.models or lower not in table.models:
        raise ValueError(f"models: {upper!r} and {lower!r} must both be among the rated models")
    u, low = table.models.index(upper), table.models.index(lower)
    key = (min(u, low), max(u, low))
    first_wins, second_wins, ties = table.records.get(key, [0, 0, 0])
    upper_wins, lower_wins = (first_wins, second_wins) if u < low else (second_wins, first_wins)
    base = table.fit() if table._base is None else table._base
    refits = 0

    def swapped(k: int) -> bool:
        nonlocal refits
        refits += 1
        moved, untied = min(k, upper_wins), max(0, k - upper_wins)  # upper wins first, then ties (module doc)
        uw, lw, t = upper_wins - moved, lower_wins + moved + untied, ties - untied
        theta = table.fit({key: [uw, lw, t] if u < low else [lw, uw, t]})
        return bool(theta[low] >= theta[u])

    def result(needed: int | None) -> Flips:
        return Flips(
            upper=upper,
            lower=lower,
            gap=float(base[u] - base[low]) * _POINTS,
            upper_wins=upper_wins,
            lower_wins=lower_wins,
            ties=ties,
            needed=needed,
            refits=refits,
        )

    if base[low] >= base[u]:
        return result(0)
    flippable = upper_wins + ties
    if flippable == 0 or not swapped(flippable):
        return result(None)
    low_k, high_k = 0, flippable  # not swapped at low_k, swapped at high_k
    while high_k - low_k > 1:
        middle = (low_k + high_k) // 2
        if swapped(middle):
            high_k = middle
        else:
            low_k = middle
    return result(high_k)


def adjacent_flips(table: PairTable, order: list[str]) -> list[Flips]:
    """The flips to swap each pair of neighbours in ``order`` (the leaderboard, best first)."""
    return [flips_to_swap(table, upper, lower) for upper, lower in itertools.pairwise(order)]
