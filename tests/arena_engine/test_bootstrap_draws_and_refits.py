"""The raw bootstrap's two parts, against answers from outside our code: the resampled counts
(``multinomial_counts``) follow the multinomial law whose probabilities are written out here from its
formula, n! / (x_1! ... x_k!) p_1^x_1 ... p_k^x_k, with its moments n p_j (1 - p_j) and -n p_i p_j;
and every round's refit (``pair_fits``: chord steps, Newton for a round they do not settle) lands
on ratings solved by hand, for three models whose votes are exactly as the Bradley-Terry model
expects, for chains, and for rounds far from the others; and the whole bootstrap of ``rate``, which
draws over aggregated classes, has the quantiles of resampling the votes themselves, written out
from the multinomial law for two models."""

from __future__ import annotations

import math
from itertools import product

import numpy as np
import pytest

from evaluators.arena import bradley_terry
from evaluators.arena.bradley_terry import Design, PairDesign, pair_fits
from evaluators.arena.ratings import BattleArrays, RatingConfig, rate
from evaluators.arena.resample import multinomial_counts


def chi_square_critical(df: int, z: float = 3.09) -> float:
    """The chi-square quantile with ``df`` degrees of freedom at the standard normal quantile ``z``
    (3.09: 0.999) by the Wilson-Hilferty approximation, (1 - 2/(9 df) + z sqrt(2/(9 df)))^3 df."""
    c = 2.0 / (9.0 * df)
    return df * (1.0 - c + z * math.sqrt(c)) ** 3


def multinomial_chi_square(rows: np.ndarray, n: int, p: list[float]) -> tuple[float, int]:
    """Pearson's statistic of ``rows`` (counts of three classes) against Multinomial(n, p), outcomes
    whose expected frequency is under 5 pooled into one bin; returns (statistic, degrees of freedom)."""
    probability = {}
    for x in product(range(n + 1), repeat=3):
        if sum(x) == n:
            probability[x] = (
                math.factorial(n) / math.prod(math.factorial(c) for c in x) * math.prod(q**c for q, c in zip(p, x))
            )
    seen: dict[tuple[int, ...], int] = {}
    for row in map(tuple, rows.tolist()):
        assert row in probability, f"{row} is not an outcome of {n} votes"
        seen[row] = seen.get(row, 0) + 1
    total = len(rows)
    bins, pooled_expected, pooled_seen = [], 0.0, 0
    for x, q in probability.items():
        if total * q >= 5:
            bins.append((total * q, seen.get(x, 0)))
        else:
            pooled_expected += total * q
            pooled_seen += seen.get(x, 0)
    bins.append((pooled_expected, pooled_seen))
    return sum((o - e) ** 2 / e for e, o in bins), len(bins) - 1


def test_resampled_counts_follow_the_multinomial_law():
    # 10 votes in classes of 5, 3 and 2: 66 outcomes. With n = 10 the Poisson part (mean 10 - 2 sqrt(10)
    # = 3.7) is nearly always topped up, and a few hundred of the rows exceed 10 and are drawn again.
    rows = multinomial_counts(np.random.default_rng(1), np.array([5, 3, 2]), 100_000)
    assert (rows.sum(axis=1) == 10).all() and (rows >= 0).all()
    statistic, df = multinomial_chi_square(rows, 10, [0.5, 0.3, 0.2])
    assert statistic < chi_square_critical(df), (statistic, df)
    # the same check tells a slightly different law apart (power: 0.45/0.35/0.2 instead of 0.5/0.3/0.2)
    other = np.random.default_rng(1).multinomial(10, [0.45, 0.35, 0.2], size=100_000)
    assert multinomial_chi_square(other, 10, [0.5, 0.3, 0.2])[0] > chi_square_critical(df)


def test_resampled_counts_have_the_multinomial_moments():
    # 10,000 votes in classes of 6,000, 3,000 and 1,000; 20,000 rounds. The multinomial has variance
    # n p (1 - p) and covariance -n p_i p_j (a Poisson bootstrap would give n p and 0).
    n, p = 10_000, np.array([0.6, 0.3, 0.1])
    rows = multinomial_counts(np.random.default_rng(2), np.array([6_000, 3_000, 1_000]), 20_000)
    assert (rows.sum(axis=1) == n).all()
    assert rows.mean(axis=0) == pytest.approx(n * p, abs=2.0)  # standard errors under 0.4
    cov = np.cov(rows.T)
    expected = n * (np.diag(p) - np.outer(p, p))
    # a sample variance of 20,000 rows is within 4% of the truth (its relative sd is sqrt(2 / 20,000) = 1%)
    assert np.diag(cov) == pytest.approx(np.diag(expected), rel=0.04)
    assert cov[0, 1] == pytest.approx(expected[0, 1], rel=0.04)
    assert cov[1, 2] == pytest.approx(expected[1, 2], rel=0.06)


def test_resampled_counts_edge_cases_and_bad_counts():
    rng = np.random.default_rng(3)
    assert multinomial_counts(rng, np.array([0, 0]), 4).tolist() == [[0, 0]] * 4
    assert multinomial_counts(rng, np.array([0, 1, 0]), 3).tolist() == [[0, 1, 0]] * 3
    assert multinomial_counts(rng, np.array([2.0, 5.0]), 2).sum(axis=1).tolist() == [7, 7]
    for bad in (np.array([1, -1]), np.array([1.5, 2.0]), np.array([[1, 2]])):
        with pytest.raises(ValueError, match="counts"):
            multinomial_counts(rng, bad, 2)


# Three models A, B, C (0, 1, 2); cells (a, b, y): y = 1 when a won. Weights per round below.
CELLS = Design(
    m=3,
    a=np.array([0, 0, 1, 1, 0, 0]),
    b=np.array([1, 1, 2, 2, 2, 2]),
    y=np.array([1.0, 0.0] * 3),
    w=np.ones(6),
    w2=np.ones(6),
)


def fits(rounds: list[list[float]], start: list[float]) -> np.ndarray:
    return pair_fits(
        PairDesign(CELLS), np.array(rounds, dtype=float), pivot=0, penalty=np.zeros(3), start=np.array(start), tol=1e-12
    )


@pytest.mark.parametrize("dense", [True, False], ids=["incidence matrix", "gathers"])
def test_each_round_is_refitted_to_its_own_hand_solved_ratings(monkeypatch, dense):
    if not dense:  # the path taken when pairs x models is too large for the dense incidence matrix
        monkeypatch.setattr(bradley_terry, "_DENSE_INCIDENCE", 0)
    # Ratings in natural-log odds with A at 0. Round 1: A-B 1:2, B-C 1:3, A-C 1:6 (wins of the first
    # : of the second), exactly the win odds of theta = (0, ln 2, ln 6), so every model's expected wins
    # equal its wins (A: 3/3 + 7/7 = 2, B: 3 * 2/3 + 4/4 = 3, C: 4 * 3/4 + 7 * 6/7 = 9): the maximum-
    # likelihood ratings. Round 2: ten times the votes, the same ratings. Round 3: the chain A-B 1:2,
    # B-C 1:3 alone: each gap is its pair's log-odds, again (0, ln 2, ln 6). Round 4: the chain A-B 2:6,
    # B-C 1:4: (0, ln 3, ln 3 + ln 4).
    found = fits(
        [[1, 2, 1, 3, 1, 6], [10, 20, 10, 30, 10, 60], [1, 2, 1, 3, 0, 0], [2, 6, 1, 4, 0, 0]], [0.0, 0.5, 1.5]
    )
    expected = [[0, math.log(2), math.log(6)]] * 3 + [[0, math.log(3), math.log(12)]]
    assert found == pytest.approx(np.array(expected), abs=1e-9)
    assert (bradley_terry._Incidence(np.array([0]), np.array([1]), 2).dense is not None) == dense


@pytest.mark.parametrize(
    "rounds, expected",
    [
        # The odd round's votes are exactly the win odds of its ratings, as in the test above.
        # A round far out, A-B 1:999, B-C 1:1, A-C 1:999: (0, ln 999, ln 999), among rounds with every
        # pair 1:1 (all at 0): the shared information is taken at p = 1/2, about 80 times the round's own
        # at its optimum, so the chord steps barely move it; Newton finishes it.
        ([[1, 1, 1, 1, 1, 1], [1, 999, 1, 1, 1, 999], [1, 1, 1, 1, 1, 1]], [0.0, math.log(999), math.log(999)]),
        # A heavy round, A-B 3000:1000, B-C 1:1, A-C 3:1: (0, -ln 3, -ln 3). The shared (mean) information
        # is about a third of its own, so chord steps overshoot threefold and grow; Newton again.
        ([[1, 1, 1, 1, 1, 1], [3000, 1000, 1, 1, 3, 1], [1, 1, 1, 1, 1, 1]], [0.0, -math.log(3), -math.log(3)]),
    ],
    ids=["far-out round", "heavy round"],
)
def test_a_round_the_chord_steps_cannot_settle_is_refitted_by_newton(monkeypatch, rounds, expected):
    refitted = []
    newton = bradley_terry._newton_fits

    def spy(pairs, w, won, *args):
        refitted.append(len(w))
        return newton(pairs, w, won, *args)

    monkeypatch.setattr(bradley_terry, "_newton_fits", spy)
    found = fits(rounds, [0.0, 0.0, 0.0])
    assert refitted == [1]  # only the odd round
    assert found[1] == pytest.approx(np.array(expected), abs=1e-9)
    # the even rounds: every pair 1:1, all ratings 0
    assert found[[0, 2]] == pytest.approx(np.zeros((2, 3)), abs=1e-9)


def resampling_law(wins: int, ties: int, losses: int) -> list[tuple[int, float]]:
    """The exact law of twice the resampled score (2 wins + ties) when the n = wins + ties + losses
    votes are drawn n times with replacement: (wins*, ties*, losses*) ~ Multinomial(n; wins/n, ties/n,
    losses/n), from its formula; sorted (value, probability) pairs."""
    n = wins + ties + losses
    law: dict[int, float] = {}
    for w in range(n + 1):
        for t in range(n + 1 - w):
            chance = (
                math.factorial(n)
                / (math.factorial(w) * math.factorial(t) * math.factorial(n - w - t))
                * (wins / n) ** w
                * (ties / n) ** t
                * (losses / n) ** (n - w - t)
            )
            law[2 * w + t] = law.get(2 * w + t, 0.0) + chance
    return sorted(law.items())


def law_quantile(law: list[tuple[int, float]], q: float) -> tuple[int, float, float]:
    """The smallest value whose cumulative probability reaches ``q``, with the cumulative probability
    below it and at it."""
    below = 0.0
    for value, chance in law:
        if below + chance >= q:
            return value, below, below + chance
        below += chance
    raise AssertionError("q above 1")


@pytest.mark.parametrize("weighted", [False, True], ids=["(pair, score) classes", "cells, equal weights"])
def test_the_bootstrap_interval_is_the_quantiles_of_resampling_the_votes_themselves(weighted):
    """y against x (the reference, at 1000): 17 wins, 13 ties, 10 losses, each sometimes as model_a and
    sometimes as model_b. Resampling the 40 votes with replacement, y's refit is 1000 + (400 / ln 10)
    ln(s / (40 - s)) with s = wins* + ties*/2 (a pair's gap is its log-odds), and s follows the law
    written out from the multinomial formula above. With 79,999 rounds the percentile at the plotting
    positions k / (B + 1) is the 2,000th and the 78,000th smallest round: the law's 2.5% and 97.5%
    quantiles, whose neighbours lie 6 or more binomial standard deviations away (checked below).
    The rating counts the votes drawn over (pair, score) classes, or over the cells when weighted
    (equal weights here): both must give the law of resampling the votes."""
    rows = [
        (1, 0, 0, 9),
        (0, 1, 1, 8),
        (1, 0, 2, 7),
        (0, 1, 3, 6),
        (1, 0, 1, 4),
        (0, 1, 0, 6),
    ]  # (a, b, code, how many)
    votes = BattleArrays(
        ["x", "y"],
        [r[0] for r in rows for _ in range(r[3])],
        [r[1] for r in rows for _ in range(r[3])],
        [r[2] for r in rows for _ in range(r[3])],
        weights=np.full(40, 3.0) if weighted else None,
    )
    rounds = 79_999
    result = rate(
        votes, RatingConfig(reference="x", bootstrap_rounds=rounds, min_votes=1, robustness=False, use_weights=weighted)
    )
    y = next(row for row in result.models if row.name == "y")
    assert (y.wins, y.ties, y.losses) == (17, 13, 10)
    law = resampling_law(17, 13, 10)
    assert sum(chance for _, chance in law) == pytest.approx(1.0)
    points = 400 / math.log(10)
    assert y.rating == pytest.approx(1000 + points * math.log(23.5 / 16.5), abs=1e-3)
    for q, bound in ((0.025, y.ci_low), (0.975, y.ci_high)):
        value, below, at = law_quantile(law, q)
        sd = math.sqrt(q * (1 - q) / rounds)
        assert below < q - 6 * sd and at > q + 6 * sd, (q, below, at)  # the order statistic cannot land on a neighbour
        s = value / 2
        assert bound == pytest.approx(1000 + points * math.log(s / (40 - s)), abs=1e-3), (q, value)
