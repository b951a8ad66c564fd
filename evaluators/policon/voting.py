"""PoliCon's vote, in exact integer arithmetic.

Each party i answers one digit u_i in 0..9 (how far the resolution captures its stance). Seat
weights are tenths, so the seat-weighted support times ten, ``u10 = sum(w10_i x u_i)``, is an integer
and every rule compares integers:

- SM (simple majority) passes when u >= 5, that is ``u10 >= 50``;
- 2/3M passes when u >= 20/3, that is ``3 x u10 >= 200``;
- VP passes when the veto party's own vote is at least 6 and SM passes;
- Rawls is min(u_i), Util the mean of u_i (an exact fraction, a float only at the end).

PoliCon's released code sums float weights: weights (.3, .5, .1, .1) with votes (9, 2, 5, 8) give
4.999999999999999 there, a fail, and 5 here, a pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

#: the objectives decided by a vote (pass/fail), with the item score key each sets
PASS_RULES: dict[str, str] = {"sm": "sm_pass", "two_thirds": "two_thirds_pass", "veto": "veto_pass"}
#: the objectives scored by a welfare function (0..9), with their score keys
WELFARE: dict[str, str] = {"rawls": "rawls", "util": "util"}
VETO_MINIMUM = 6


@dataclass(frozen=True)
class Outcome:
    """The vote on one resolution: support in tenths-of-a-point and what each rule says."""

    support10: int  # 10 x seat-weighted support, 0..90
    sm: bool
    two_thirds: bool
    veto: bool
    rawls: int
    util: Fraction

    @property
    def support(self) -> Fraction:
        return Fraction(self.support10, 10)

    def score(self, objective: str) -> float:
        """The item score of ``objective``: 1/0 for a pass rule, the welfare value otherwise."""
        if objective in PASS_RULES:
            return 1.0 if getattr(self, objective) else 0.0
        if objective == "rawls":
            return float(self.rawls)
        if objective == "util":
            return float(self.util)
        raise KeyError(f"unknown objective {objective!r}")


def vote(seat_tenths: Sequence[int], votes: Sequence[int], veto_index: int) -> Outcome:
    """Apply every rule to one resolution's votes (``votes[i]`` is party i's digit)."""
    if len(seat_tenths) != len(votes) or not votes:
        raise ValueError(f"{len(votes)} votes for {len(seat_tenths)} parties")
    if sum(seat_tenths) != 10 or any(w < 0 for w in seat_tenths):
        raise ValueError(f"seat weights in tenths must be non-negative and sum to 10, got {list(seat_tenths)}")
    if any(not 0 <= v <= 9 for v in votes):
        raise ValueError(f"votes must be digits 0..9, got {list(votes)}")
    support10 = sum(w * v for w, v in zip(seat_tenths, votes))
    sm = support10 >= 50
    return Outcome(
        support10=support10,
        sm=sm,
        two_thirds=3 * support10 >= 200,
        veto=sm and votes[veto_index] >= VETO_MINIMUM,
        rawls=min(votes),
        util=Fraction(sum(votes), len(votes)),
    )
