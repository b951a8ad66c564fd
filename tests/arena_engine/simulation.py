"""Simulated arena votes shared by the rating and integrity tests."""
from __future__ import annotations

import numpy as np

from evaluators.arena.ratings import BattleArrays


def simulate(true: np.ndarray, n: int, *, seed: int, tie: float = 0.2, names: list[str] | None = None) -> BattleArrays:
    """Votes under the rating model itself: P(a wins) + P(tie)/2 = 1/(1+10^((Rb-Ra)/400)), so that
    ties counted as half are unbiased."""
    rng = np.random.default_rng(seed)
    m = len(true)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    logit = (true[a] - true[b]) * np.log(10) / 400
    p = 1 / (1 + np.exp(-logit))
    p = np.clip(p, tie / 2 + 1e-9, 1 - tie / 2 - 1e-9)
    is_tie = rng.random(n) < tie
    a_wins = rng.random(n) < (p - tie / 2) / (1 - tie)
    outcome = np.where(is_tie, 2, np.where(a_wins, 0, 1))
    return BattleArrays(names or [f"m{i}" for i in range(m)], a, b, outcome)
