"""How robust the arena's top rating is: the fewest votes whose removal changes the leader.

A greedy upper bound; the leader changes when another model is strictly ahead of it (an exact tie is no
change). Each step ranks every cell by the first-order (influence-function) change in
the gap between the leader and its closest challenger per removed vote, removes as many votes from
the best cell as the linear estimate needs, refits, and repeats; the final step is trimmed by
bisection. A cleverer removal may need fewer. Capped at :data:`ROBUSTNESS_CAP` of the votes and
:data:`ROBUSTNESS_STEPS` steps (then ``searched_up_to`` says how many were removed without a change).
The votes it removed are listed (by pair and outcome), so the figure can be checked by refitting
without them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from evaluators.arena.bradley_terry import Design, information, linear_predictor, penalised_fit
from evaluators.arena.rating_types import OUTCOMES

ROBUSTNESS_CAP = 0.10
ROBUSTNESS_STEPS = 200
#: how far (log-odds) another model must be above the leader to count as ahead: an exact tie is no change
_AHEAD = 1e-9


def top_robustness(
    raw: Design,
    counts: np.ndarray,
    outcome: np.ndarray,
    pivot: int,
    penalty: np.ndarray,
    models: list[str],
    rankable: np.ndarray,
) -> dict[str, Any]:
    """Greedy upper bound on the fewest votes whose removal changes the top raw rating (module doc);
    ``counts`` are the unweighted votes per cell of ``raw`` and ``outcome`` the cells' outcome codes."""
    original = counts
    total = int(counts.sum())
    cap = max(1, int(total * ROBUSTNESS_CAP))

    def fit(c: np.ndarray, start: np.ndarray | None) -> np.ndarray:
        return penalised_fit(raw, pivot, penalty, start=start, w=c)[0]

    def leader(theta: np.ndarray) -> int:
        return int(np.argmax(np.where(rankable, theta, -np.inf)))

    theta = fit(counts, None)
    top = leader(theta)

    def overtaken(theta: np.ndarray) -> bool:  # another model strictly ahead of ``top``, not tied with it
        others = np.where(rankable, theta, -np.inf)
        others[top] = -np.inf
        return bool(others.max() > theta[top] + _AHEAD)

    removed = 0
    new_top: int | None = None
    for _ in range(ROBUSTNESS_STEPS):
        if removed >= cap:
            break
        others = np.where(rankable, theta, -np.inf)
        others[top] = -np.inf
        challenger = int(np.argmax(others))
        per_vote = _gap_change_per_vote(raw, theta, counts, pivot, penalty, top, challenger)
        best = int(np.argmin(per_vote))
        if per_vote[best] >= 0:
            break
        gap = theta[top] - theta[challenger]
        take = int(min(counts[best], cap - removed, max(1, math.ceil(gap / -per_vote[best]))))
        trial = counts.copy()
        trial[best] -= take
        theta_trial = fit(trial, theta)
        if overtaken(theta_trial):
            lo, hi = 0, take  # bisection: fewest votes from this cell that still flip
            while hi - lo > 1:
                mid = (lo + hi) // 2
                probe = counts.copy()
                probe[best] -= mid
                if overtaken(fit(probe, theta)):
                    hi = mid
                else:
                    lo = mid
            probe = counts.copy()
            probe[best] -= hi
            new_top = leader(fit(probe, theta))
            counts, removed = probe, removed + hi
            break
        counts, theta, removed = trial, theta_trial, removed + take
    flipped = new_top is not None
    return {
        "top_model": models[top],
        "votes_to_flip_top": removed if flipped else None,
        "share_to_flip_top": removed / total if flipped else None,
        "new_top_model": models[new_top] if new_top is not None else None,
        "searched_up_to": None if flipped else removed,
        "removed_votes": _removed_votes(raw, outcome, models, original - counts) if flipped else [],
        "method": (
            "greedy upper bound on the fewest removed votes that change the model with the top raw rating "
            f"(influence-ranked cells, refit each step, capped at {ROBUSTNESS_CAP:.0%} of votes and "
            f"{ROBUSTNESS_STEPS} steps)"
        ),
    }


def _gap_change_per_vote(
    raw: Design,
    theta: np.ndarray,
    counts: np.ndarray,
    pivot: int,
    penalty: np.ndarray,
    top: int,
    challenger: int,
) -> np.ndarray:
    """Per cell, the first-order (influence-function) change of the gap between ``top`` and ``challenger``
    when one of its votes is removed; infinite for a cell with no vote left."""
    p = 1.0 / (1.0 + np.exp(-linear_predictor(raw, theta)))
    free = np.ones(raw.m, dtype=bool)
    free[pivot] = False
    info = information(raw, counts * p * (1.0 - p))[np.ix_(free, free)] + np.diag(penalty[free])
    direction = np.zeros(raw.m)
    direction[top], direction[challenger] = 1.0, -1.0
    v = np.zeros(raw.m)
    v[free] = np.linalg.solve(info, direction[free])
    per_vote: np.ndarray = -(raw.y - p) * (v[raw.a] - v[raw.b])
    per_vote[counts < 1] = np.inf
    return per_vote


def _removed_votes(raw: Design, outcome: np.ndarray, models: list[str], taken: np.ndarray) -> list[dict[str, Any]]:
    """The votes removed, by cell: its pair, outcome and how many (``taken`` per cell)."""
    return [
        {
            "model_a": models[int(raw.a[c])],
            "model_b": models[int(raw.b[c])],
            "winner": OUTCOMES[int(outcome[c])],
            "count": int(taken[c]),
        }
        for c in np.flatnonzero(taken > 0)
    ]
