"""How far a static board's ranking agrees with the arena's: rank correlations with bootstrap intervals,
and Arena-Hard's two confidence measures (Li et al., 2024, "From Crowdsourced Data to High-Quality
Benchmarks", section 3), on the models both rank.

- **Spearman's rho and Kendall's tau-b** between the board's headline and the arena rating of the shared
  models (ties take average ranks; tau-b corrects for them).
- **Their 95% intervals** come from a bootstrap over both sources of doubt: each round draws the shared
  models with replacement (which models happen to be on both) and each figure from a normal with the
  spread its own 95% interval states (the votes and the items behind it); the 2.5th and 97.5th
  percentiles of the rounds' correlations.
- **Separability with confidence**: the share of a ranking's model pairs whose 95% intervals do not
  overlap (how many pairs the ranking tells apart at all).
- **Agreement with confidence**: over the pairs the arena separates with confidence, +1 where the board
  separates them in the same order, -1 where it separates them in the opposite order, 0 where the board
  cannot tell them apart; the mean. It is 1 only when the board confidently orders every pair people
  confidently order, as people do.

Every figure is oriented "higher is better": a lower-is-better headline is negated (with its interval)
before it gets here. Too few shared models give no figure, with the reason in words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

#: shared models below which no correlation is computed (with four models, one swap moves Spearman's rho by 0.2)
MIN_SHARED = 5
#: bootstrap rounds for the correlations' intervals
ROUNDS = 1000
_Z95 = 1.959963984540054


@dataclass(frozen=True)
class Figure:
    """One model's figure on one ranking with its 95% interval, oriented higher-is-better."""

    name: str
    value: float
    low: float
    high: float


@dataclass
class Agreement:
    """One board against the arena: the shared models and, when there are enough, the figures."""

    shared: list[str]
    spearman: float | None = None
    spearman_ci: tuple[float, float] | None = None
    kendall: float | None = None
    kendall_ci: tuple[float, float] | None = None
    separability_board: float | None = None
    separability_arena: float | None = None
    agreement: float | None = None
    #: pairs the arena separates with confidence (the agreement's denominator)
    arena_separated_pairs: int = 0
    reading: str = ""


def _ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given their average rank."""
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(len(x))
    sorted_x = x[order]
    i = 0
    while i < len(x):
        j = i
        while j + 1 < len(x) and sorted_x[j + 1] == sorted_x[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float | None:
    """Spearman's rho: Pearson's correlation of the average ranks; None when either side is constant."""
    rx, ry = _ranks(np.asarray(x, dtype=float)), _ranks(np.asarray(y, dtype=float))
    rx, ry = rx - rx.mean(), ry - ry.mean()
    denominator = float(np.sqrt((rx * rx).sum() * (ry * ry).sum()))
    return None if denominator == 0 else float((rx * ry).sum() / denominator)


def kendall_tau_b(x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray) -> float | None:
    """Kendall's tau-b: (concordant - discordant) / sqrt((pairs - ties in x)(pairs - ties in y)); None when
    either side is constant."""
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    i, j = np.triu_indices(len(a), k=1)
    sx, sy = np.sign(a[i] - a[j]), np.sign(b[i] - b[j])
    untied_x, untied_y = int((sx != 0).sum()), int((sy != 0).sum())
    if untied_x == 0 or untied_y == 0:
        return None
    return float((sx * sy).sum() / np.sqrt(untied_x * untied_y))


def _separated(f: Figure, g: Figure) -> int:
    """+1 when f's interval lies wholly above g's, -1 when wholly below, 0 when they overlap."""
    if f.low > g.high:
        return 1
    if f.high < g.low:
        return -1
    return 0


def separability(figures: Sequence[Figure]) -> float | None:
    """The share of pairs whose 95% intervals do not overlap; None with fewer than two figures."""
    pairs = list(combinations(figures, 2))
    return None if not pairs else sum(1 for f, g in pairs if _separated(f, g)) / len(pairs)


def agreement_with_confidence(board: Sequence[Figure], arena: Sequence[Figure]) -> tuple[float | None, int]:
    """(mean score, pairs counted) over the pairs the arena separates with confidence: +1 same confident
    order on the board, -1 opposite confident order, 0 not separated on the board. ``board`` and ``arena``
    list the same models in the same order. None when the arena separates no pair."""
    scores = []
    for (b1, a1), (b2, a2) in combinations(list(zip(board, arena)), 2):
        truth = _separated(a1, a2)
        if truth:
            scores.append(truth * _separated(b1, b2))
    return (sum(scores) / len(scores) if scores else None), len(scores)


def _spread(f: Figure) -> float:
    return max(f.high - f.low, 0.0) / (2 * _Z95)


def _interval(values: list[float]) -> tuple[float, float] | None:
    if len(values) < 20:  # too few rounds with a defined correlation to read percentiles from
        return None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def agree(
    board: Sequence[Figure],
    arena: Sequence[Figure],
    *,
    rounds: int = ROUNDS,
    seed: int = 0,
    min_shared: int = MIN_SHARED,
) -> Agreement:
    """The board's figures against the arena's for the models on both (matched by name, in any order)."""
    on_arena = {f.name: f for f in arena}
    pairs = [(f, on_arena[f.name]) for f in board if f.name in on_arena]
    shared = [f.name for f, _ in pairs]
    result = Agreement(shared=shared)
    if len(pairs) < min_shared:
        result.reading = (
            f"{len(pairs)} model{'s' if len(pairs) != 1 else ''} ranked on both this board and the arena; "
            f"at least {min_shared} are needed before a rank correlation means anything, so none is shown."
        )
        return result
    b = [f for f, _ in pairs]
    a = [g for _, g in pairs]
    bv, av = np.array([f.value for f in b]), np.array([g.value for g in a])
    result.spearman, result.kendall = spearman(bv, av), kendall_tau_b(bv, av)
    result.separability_board, result.separability_arena = separability(b), separability(a)
    result.agreement, result.arena_separated_pairs = agreement_with_confidence(b, a)
    rng = np.random.default_rng(seed)
    bs, as_ = np.array([_spread(f) for f in b]), np.array([_spread(g) for g in a])
    rhos: list[float] = []
    taus: list[float] = []
    n = len(pairs)
    for _ in range(rounds):
        # each model's figures drawn once per round, then the models resampled: a model drawn twice is
        # the same point twice (a tie on both sides), not two different points
        x = bv + rng.standard_normal(n) * bs
        y = av + rng.standard_normal(n) * as_
        pick = rng.integers(0, n, n)
        x, y = x[pick], y[pick]
        rho, tau = spearman(x, y), kendall_tau_b(x, y)
        if rho is not None:
            rhos.append(rho)
        if tau is not None:
            taus.append(tau)
    result.spearman_ci, result.kendall_ci = _interval(rhos), _interval(taus)
    result.reading = _reading(result)
    return result


def _reading(r: Agreement) -> str:
    """The figures in one plain sentence."""
    if r.spearman is None:
        return "Every shared model has the same figure on one side, so there is no ranking to compare."
    strength = (
        "strongly"
        if r.spearman >= 0.8
        else "moderately"
        if r.spearman >= 0.5
        else "weakly"
        if r.spearman >= 0.2
        else "not"
        if r.spearman > -0.2
        else "inversely"
    )
    doubt = ""
    if r.spearman_ci is not None and r.spearman_ci[0] <= 0 <= r.spearman_ci[1]:
        doubt = "; the interval includes zero, so these models cannot tell whether the board and people agree at all"
    return f"On its {len(r.shared)} shared models this board {strength} agrees with people's ranking{doubt}."
