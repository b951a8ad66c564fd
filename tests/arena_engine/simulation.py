"""Simulated arena votes shared by the rating and integrity tests, and the interval coverage of
simulated arenas (:func:`coverage`: the coverage test and ``bench/bench_intervals.py``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from evaluators.arena.ratings import BattleArrays, RatingConfig, rate


def simulate(true: np.ndarray, n: int, *, seed: int, tie: float = 0.2, names: list[str] | None = None) -> BattleArrays:
    """Votes under the rating model itself: P(a wins) + P(tie)/2 = 1/(1+10^((Rb-Ra)/400)), so that
    ties counted as half are unbiased (:func:`outcomes`)."""
    rng = np.random.default_rng(seed)
    m = len(true)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    logit = (true[a] - true[b]) * np.log(10) / 400
    return BattleArrays(names or [f"m{i}" for i in range(m)], a, b, outcomes(rng, 1 / (1 + np.exp(-logit)), tie))


def outcomes(rng: np.random.Generator, p: np.ndarray, tie: float) -> np.ndarray:
    """Outcome codes (0: a wins, 1: b wins, 2: tie) with P(tie) = t and P(a wins) = p - t / 2, so that
    a tie counted as half a win is unbiased: t is ``tie``, or 2 min(p, 1 - p) for a pair so uneven
    that its weaker side wins less often than half of ``tie``."""
    t = np.minimum(tie, 2 * np.minimum(p, 1 - p))
    is_tie = rng.random(len(p)) < t
    a_wins = rng.random(len(p)) < np.divide(p - t / 2, 1 - t, out=np.ones_like(p), where=t < 1)
    return np.where(is_tie, 2, np.where(a_wins, 0, 1))


@dataclass(frozen=True)
class Coverage:
    """How often the 95% intervals of simulated arenas held the true rating, and the rank bounds the
    true rank: ``hits`` of ``intervals``, ``rank_holds`` of ``intervals``; ``half_widths`` their median."""

    intervals: int
    hits: int
    rank_holds: int
    half_width: float

    @property
    def rate(self) -> float:
        return self.hits / self.intervals


def coverage(
    *,
    models: int,
    votes: int,
    tie: float,
    arenas: int,
    seed: int,
    interval: str = "bootstrap",
    rounds: int = 100,
    min_votes: int = 30,
    new_models: int = 0,
    spread: float = 80.0,
) -> Coverage:
    """``arenas`` simulated arenas of ``models`` models with true ratings drawn from N(1000, ``spread``)
    and ``votes`` votes under the rating model with a share ``tie`` of ties (:func:`simulate`, so the
    fitted Bradley-Terry with ties as half estimates the true ratings), each rated as the site rates
    (the mean of the well-estimated models at 1000, so the truth is shifted the same way). With
    ``new_models``, that many more models join each arena with 1 to 20 votes each against the others
    (provisional), and only theirs are counted. An open end (a model with only wins or only losses)
    counts as covering on that side."""
    rng = np.random.default_rng(seed)
    intervals = hits = holds = 0
    halves: list[float] = []
    for k in range(arenas):
        true = rng.normal(1000.0, spread, models + new_models)
        arena = simulate(
            true[:models], votes, seed=int(rng.integers(2**31)), tie=tie, names=[f"m{i}" for i in range(models)]
        )
        a, b, outcome = [arena.a], [arena.b], [arena.outcome]
        for j in range(models, models + new_models):
            count = int(rng.integers(1, 21))
            opponents = rng.integers(0, models, count)
            a.append(np.full(count, j))
            b.append(opponents)
            outcome.append(outcomes(rng, 1 / (1 + 10 ** ((true[opponents] - true[j]) / 400)), tie))
        names = [f"m{i}" for i in range(models + new_models)]
        result = rate(
            BattleArrays(names, np.concatenate(a), np.concatenate(b), np.concatenate(outcome)),
            RatingConfig(interval=interval, bootstrap_rounds=rounds, seed=k, min_votes=min_votes, robustness=False),
        )
        rows = {row.name: row for row in result.models}
        core = [names.index(r.name) for r in result.models if r.rankable and r.bounded and not r.provisional]
        if not core:
            core = [names.index(r.name) for r in result.models if r.rankable and r.bounded]
        truth = true - true[core].mean() + 1000.0
        ranked = [names.index(r.name) for r in result.models if r.rankable and r.bounded]
        for i in range(models, models + new_models) if new_models else range(models):
            row = rows[names[i]]
            low = -np.inf if row.ci_low is None else row.ci_low
            high = np.inf if row.ci_high is None else row.ci_high
            intervals += 1
            hits += bool(low <= truth[i] <= high)
            if row.ci_low is not None and row.ci_high is not None:
                halves.append((row.ci_high - row.ci_low) / 2)
            true_rank = 1 + int(np.sum(truth[ranked] > truth[i]))
            holds += bool(not row.bounded or row.rank_ub <= true_rank)
    return Coverage(
        intervals=intervals, hits=hits, rank_holds=holds, half_width=float(np.median(halves)) if halves else 0.0
    )
