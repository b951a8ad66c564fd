"""The style-controlled Bradley-Terry fit on the individual votes, a chunk of votes at a time.

logit P(a wins) = theta_a - theta_b + x . beta, with per-vote covariates x = (f_a - f_b) / (f_a + f_b + 1)
z-scored (:mod:`evaluators.arena.ratings`). A :class:`VoteDesign` holds no array of the votes' size times
the features: it refers to the votes' own style features (float32 from the ratings task's read, or
float64) and forms a chunk of :data:`CHUNK` votes' covariates in float64 when a pass needs them. Every
sum the fit takes (log-likelihood, gradient, information, the sandwich's meat, the bootstrap rounds'
gradients) is accumulated chunk by chunk, so the fit's memory is a few arrays of a chunk's size plus,
for the score bootstrap, each vote's score (8 bytes) and a batch of rounds' resample counts (a byte a
vote and round, :data:`_COUNT_BYTES` in all). The figures are those of the dense fit (the same Newton
steps from the same start, the same random draws; only the order of summation differs: within 1e-9
log-odds).

A subset's votes may refer to rows of a larger table's features (``BattleArrays.feature_rows``), so
that a group's fit copies no features.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from evaluators.arena.rating_types import BattleArrays

#: votes whose covariates are formed at a time (13 features: 6.8 MB of float64)
CHUNK = 65_536
#: the bytes of one batch of bootstrap rounds' resample counts (a byte a vote and round, a row per round)
_COUNT_BYTES = 32 << 20
_SCORE = np.array([1.0, 0.0, 0.5, 0.5])  # model_a's share of the win per outcome code

#: a per-vote weight of the information from (y, p, w, w2) of a chunk
RowWeights = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass
class VoteDesign:
    """The votes of a style-controlled fit: models ``a``/``b`` (indexes below ``m``), outcome codes,
    normalised weights (None: each vote counts 1), and the style features they refer to (``rows``:
    each vote's row in them, None for the votes' own order; ``columns``: the fitted features), z-scored
    with ``mean`` and ``std`` (over these votes)."""

    m: int
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    weights: np.ndarray | None
    features_a: np.ndarray
    features_b: np.ndarray
    rows: np.ndarray | None
    columns: list[int] | None
    mean: np.ndarray
    std: np.ndarray

    @property
    def k(self) -> int:
        return len(self.mean)

    @property
    def n(self) -> int:
        return len(self.a)

    @classmethod
    def build(cls, arr: BattleArrays, names: tuple[str, ...], weights: np.ndarray | None) -> VoteDesign:
        """The design of ``arr``'s votes on the style features ``names``, their mean and standard
        deviation taken over these votes (a constant feature keeps 1)."""
        if arr.features_a is None or arr.features_b is None:
            raise ValueError("style_control: the battles carry no style features")
        col = [arr.feature_names.index(f) if f in arr.feature_names else None for f in names]
        missing = [f for f, c in zip(names, col) if c is None]
        if missing:
            raise ValueError(f"style_features: not in the battles' features: {', '.join(missing)}")
        cols = [c for c in col if c is not None]
        design = cls(
            m=len(arr.models),
            a=arr.a,
            b=arr.b,
            outcome=arr.outcome,
            weights=weights,
            features_a=arr.features_a,
            features_b=arr.features_b,
            rows=arr.feature_rows,
            columns=None if cols == list(range(arr.features_a.shape[1])) else cols,
            mean=np.zeros(len(cols)),
            std=np.ones(len(cols)),
        )
        n = design.n
        total = np.zeros(len(cols))
        for lo, hi in design.chunks():
            total += design.ratios(lo, hi).sum(axis=0)
        mean = total / n if n else total
        squares = np.zeros(len(cols))
        for lo, hi in design.chunks():
            deviation = design.ratios(lo, hi) - mean
            squares += np.einsum("ij,ij->j", deviation, deviation)
        std = np.sqrt(squares / n) if n else np.zeros(len(cols))
        std[std == 0] = 1.0
        design.mean, design.std = mean, std
        return design

    def chunks(self) -> Iterator[tuple[int, int]]:
        for lo in range(0, self.n, CHUNK):
            yield lo, min(lo + CHUNK, self.n)

    def ratios(self, lo: int, hi: int) -> np.ndarray:
        """(f_a - f_b) / (f_a + f_b + 1) of votes lo..hi, in float64."""
        at = slice(lo, hi) if self.rows is None else self.rows[lo:hi]
        fa = np.asarray(self.features_a[at], dtype=np.float64)
        fb = np.asarray(self.features_b[at], dtype=np.float64)
        if self.columns is not None:
            fa, fb = fa[:, self.columns], fb[:, self.columns]
        out: np.ndarray = fa - fb
        out /= fa + fb + 1.0
        return out

    def covariates(self, lo: int, hi: int) -> np.ndarray:
        """The z-scored covariates of votes lo..hi (float64)."""
        x = self.ratios(lo, hi)
        x -= self.mean
        x /= self.std
        return x

    def rows_of(self, lo: int, hi: int, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(y, w, w2) of votes lo..hi; ``w``: per-vote likelihood weights replacing the design's."""
        y = _SCORE[self.outcome[lo:hi]]
        weight = self.weights[lo:hi] if self.weights is not None else np.ones(hi - lo)
        return y, (weight if w is None else w[lo:hi]), weight * weight

    def eta(self, params: np.ndarray, lo: int, hi: int, x: np.ndarray) -> np.ndarray:
        out: np.ndarray = params[self.a[lo:hi]] - params[self.b[lo:hi]] + x @ params[self.m :]
        return out

    def scatter(self, values: np.ndarray, lo: int, hi: int) -> np.ndarray:
        """sum of values over the votes lo..hi as (e_a - e_b) per model: a vector of m."""
        a, b = self.a[lo:hi], self.b[lo:hi]
        out: np.ndarray = np.bincount(a, weights=values, minlength=self.m) - np.bincount(
            b, weights=values, minlength=self.m
        )
        return out

    def information_chunk(self, v: np.ndarray, lo: int, hi: int, x: np.ndarray) -> np.ndarray:
        """sum over votes lo..hi of v_i z_i z_i^T, z_i = (e_a - e_b, x_i)."""
        m, k = self.m, self.k
        a, b = self.a[lo:hi], self.b[lo:hi]
        out = np.zeros((m + k, m + k))
        pair = np.bincount(a * m + b, weights=v, minlength=m * m).reshape(m, m)
        sym = pair + pair.T
        out[:m, :m] = -sym
        out[np.arange(m), np.arange(m)] = sym.sum(axis=1)
        xv = x * v[:, None]
        # each (pair, feature)'s sum in one count: (e_a - e_b) x^T v summed per pair, then per model
        slot = ((a * m + b)[:, None] * k + np.arange(k)).ravel()
        per_pair = np.bincount(slot, weights=xv.ravel(), minlength=m * m * k).reshape(m, m, k)
        out[:m, m:] = per_pair.sum(axis=1) - per_pair.sum(axis=0)
        out[m:, :m] = out[:m, m:].T
        out[m:, m:] = xv.T @ x
        return out

    def weighted_information(self, params: np.ndarray, weigh: RowWeights) -> np.ndarray:
        """sum of weigh(y, p, w, w2) z z^T over the votes, p at ``params`` (the sandwich's meat)."""
        out = np.zeros((self.m + self.k, self.m + self.k))
        for lo, hi in self.chunks():
            x = self.covariates(lo, hi)
            p = 1.0 / (1.0 + np.exp(-self.eta(params, lo, hi, x)))
            y, w, w2 = self.rows_of(lo, hi, None)
            out += self.information_chunk(weigh(y, p, w, w2), lo, hi, x)
        return out


def _objective(d: VoteDesign, params: np.ndarray, w: np.ndarray | None, penalty: np.ndarray) -> float:
    loglik = 0.0
    for lo, hi in d.chunks():
        eta = d.eta(params, lo, hi, d.covariates(lo, hi))
        y, weight, _ = d.rows_of(lo, hi, w)
        loglik += float(np.dot(weight, y * eta - np.logaddexp(0.0, eta)))
    return loglik - 0.5 * float(np.dot(penalty, params * params))


def _derivatives(
    d: VoteDesign, params: np.ndarray, w: np.ndarray | None, penalty: np.ndarray
) -> tuple[float, np.ndarray, np.ndarray]:
    """The penalised log-likelihood, its gradient and its information (penalty included) at ``params``,
    in one pass."""
    m = d.m
    loglik = 0.0
    grad = np.zeros(m + d.k)
    info = np.diag(penalty)
    for lo, hi in d.chunks():
        x = d.covariates(lo, hi)
        eta = d.eta(params, lo, hi, x)
        y, weight, _ = d.rows_of(lo, hi, w)
        loglik += float(np.dot(weight, y * eta - np.logaddexp(0.0, eta)))
        p = 1.0 / (1.0 + np.exp(-eta))
        r = weight * (y - p)
        grad[:m] += d.scatter(r, lo, hi)
        grad[m:] += x.T @ r
        info += d.information_chunk(weight * p * (1.0 - p), lo, hi, x)
    grad -= penalty * params
    return loglik - 0.5 * float(np.dot(penalty, params * params)), grad, info


def vote_fit(
    d: VoteDesign,
    pivot: int,
    penalty: np.ndarray,
    start: np.ndarray,
    w: np.ndarray | None = None,
    tol: float = 1e-9,
    max_iter: int = 200,
) -> tuple[np.ndarray, np.ndarray]:
    """``bradley_terry.penalised_fit`` on the votes: the same Newton steps with the same backtracking
    from ``start``, each step's objective, gradient and information taken in one pass over the chunks
    (the objective alone while backtracking). Returns (params, information of the free parameters)."""
    free = np.ones(d.m + d.k, dtype=bool)
    free[pivot] = False
    params = start.copy()
    params[pivot] = 0.0
    obj, grad, info = _derivatives(d, params, w, penalty)
    for _ in range(max_iter):
        step = np.zeros_like(params)
        step[free] = np.linalg.solve(info[np.ix_(free, free)], grad[free])
        t = 1.0
        new = params + step
        new_obj, new_grad, new_info = _derivatives(d, new, w, penalty)
        while not (new_obj >= obj - 1e-12 * abs(obj) or t < 1e-6):
            t *= 0.5
            new = params + t * step
            new_obj = _objective(d, new, w, penalty)
        if t < 1.0:
            new_obj, new_grad, new_info = _derivatives(d, new, w, penalty)
        params, obj, grad, info = new, new_obj, new_grad, new_info
        if np.max(np.abs(t * step)) < tol:
            break
    return params, info[np.ix_(free, free)]


def score_rounds(
    d: VoteDesign, params: np.ndarray, info: np.ndarray, pivot: int, rng: np.random.Generator, rounds: int
) -> np.ndarray:
    """The one-step score bootstrap's rounds (a row of parameters each): each round resamples the votes
    (``rng.integers(0, n, n)``, counted), and its gradient at the full-data fit, sum of (count - 1) times
    each vote's score, goes through the full-data information. The rounds' counts are drawn a batch at a
    time (the same draws, in the same order, as one round at a time) and their gradients taken together
    in one pass over the chunks per batch."""
    m, n = d.m, d.n
    free = np.ones(m + d.k, dtype=bool)
    free[pivot] = False
    scores = np.empty(n)
    for lo, hi in d.chunks():
        p = 1.0 / (1.0 + np.exp(-d.eta(params, lo, hi, d.covariates(lo, hi))))
        y, weight, _ = d.rows_of(lo, hi, None)
        scores[lo:hi] = weight * (y - p)
    bread = np.linalg.inv(info)
    out = np.empty((rounds, m + d.k))
    batch = max(1, min(rounds, _COUNT_BYTES // max(n, 1)))
    buffer = np.empty(batch * min(n, CHUNK))  # a chunk's (count - 1) x score for a batch of rounds
    for first in range(0, rounds, batch):
        size = min(batch, rounds - first)
        counts: np.ndarray = np.empty((size, n), dtype=np.uint8)
        for i in range(size):
            drawn = np.bincount(rng.integers(0, n, n), minlength=n)
            if drawn.max(initial=0) > np.iinfo(counts.dtype).max:  # a vote drawn 256 times (a few votes)
                counts = counts.astype(np.int64)
            counts[i] = drawn
        grads = np.zeros((size, m + d.k))
        for lo, hi in d.chunks():
            v = buffer[: size * (hi - lo)].reshape(size, hi - lo)
            np.subtract(counts[:, lo:hi], 1.0, out=v)
            v *= scores[lo:hi]
            a, b = d.a[lo:hi], d.b[lo:hi]
            for i in range(size):
                grads[i, :m] += np.bincount(a, weights=v[i], minlength=m) - np.bincount(b, weights=v[i], minlength=m)
            grads[:, m:] += v @ d.covariates(lo, hi)
        for i in range(size):
            theta = params.copy()
            theta[free] += bread @ grads[i, free]
            out[first + i] = theta
    return out


def exact_rounds(
    d: VoteDesign, params: np.ndarray, pivot: int, penalty: np.ndarray, rng: np.random.Generator, rounds: int
) -> np.ndarray:
    """Every bootstrap round refitted on its resampled votes (``exact_style_bootstrap``), from the fit."""
    n = d.n
    out = np.empty((rounds, len(params)))
    for i in range(rounds):
        counts = np.bincount(rng.integers(0, n, n), minlength=n).astype(float)
        w = counts if d.weights is None else counts * d.weights
        out[i] = vote_fit(d, pivot, penalty, params, w=w)[0]
    return out
