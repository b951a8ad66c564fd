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
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from evaluators.arena.rating_types import BattleArrays, RatingConfig

_A_WINS, _B_WINS = 0, 1


@dataclass(frozen=True)
class Flips:
    """One adjacent pair: ``needed`` flips (None: flipping all their head-to-head votes is not enough),
    their head-to-head record (upper's wins, lower's wins, ties) and the refits the search took."""

    upper: str
    lower: str
    upper_rating: float
    lower_rating: float
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


def _config() -> RatingConfig:
    return RatingConfig(interval="sandwich", robustness=False, bootstrap_rounds=1)


def ratings(arr: BattleArrays) -> dict[str, float]:
    """The raw fit's point ratings (ties as half, unweighted)."""
    from evaluators.arena.ratings import rate

    return {m.name: m.rating for m in rate(arr, _config()).models}


def flips_to_swap(arr: BattleArrays, upper: str, lower: str) -> Flips:
    """The flips to swap ``upper`` and ``lower`` (module doc), by bisection over refits."""
    if upper not in arr.models or lower not in arr.models:
        raise ValueError(f"models: {upper!r} and {lower!r} must both be among the rated models")
    u, low = arr.models.index(upper), arr.models.index(lower)
    forward = (arr.a == u) & (arr.b == low)
    backward = (arr.a == low) & (arr.b == u)
    upper_won = np.flatnonzero((forward & (arr.outcome == _A_WINS)) | (backward & (arr.outcome == _B_WINS)))
    lower_won = np.flatnonzero((forward & (arr.outcome == _B_WINS)) | (backward & (arr.outcome == _A_WINS)))
    tied = np.flatnonzero((forward | backward) & (arr.outcome >= 2))
    order = np.concatenate([upper_won, tied])  # the fewest flips for any drop: upper wins first (module doc)
    lower_wins_code = np.where(arr.a[order] == low, _A_WINS, _B_WINS)
    refits = 0
    first = ratings(arr)

    def swapped(k: int) -> bool:
        nonlocal refits
        refits += 1
        outcome = arr.outcome.copy()
        outcome[order[:k]] = lower_wins_code[:k]
        fitted = ratings(BattleArrays(arr.models, arr.a, arr.b, outcome))
        return fitted[lower] >= fitted[upper]

    def result(needed: int | None) -> Flips:
        return Flips(upper=upper, lower=lower, upper_rating=first[upper], lower_rating=first[lower], upper_wins=len(upper_won),
                     lower_wins=len(lower_won), ties=len(tied), needed=needed, refits=refits)

    if first[lower] >= first[upper]:
        return result(0)
    if len(order) == 0 or not swapped(len(order)):
        return result(None)
    low_k, high_k = 0, len(order)  # not swapped at low_k, swapped at high_k
    while high_k - low_k > 1:
        middle = (low_k + high_k) // 2
        if swapped(middle):
            high_k = middle
        else:
            low_k = middle
    return result(high_k)


def adjacent_flips(arr: BattleArrays, order: list[str]) -> list[Flips]:
    """The flips to swap each pair of neighbours in ``order`` (the leaderboard, best first)."""
    return [flips_to_swap(arr, upper, lower) for upper, lower in zip(order, order[1:])]
