"""The Bradley-Terry fit behind the arena ratings: penalised maximum likelihood by Newton's method.

A :class:`Design` holds the rows of the logistic model logit P(a wins) = theta_a - theta_b + x . beta
(aggregated cells, unordered pairs via :class:`PairDesign`, or individual votes with style
covariates). :func:`penalised_fit` finds the parameters with one model held at 0 (the pivot);
:func:`sandwich_covariance` and :func:`fisher_half_widths` give their uncertainty, and
:func:`open_bounds` the one-sided bound of a model whose maximum-likelihood rating is infinite.
Everything is in natural-log odds; :mod:`evaluators.arena.ratings` turns it into rating points.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass
class Design:
    """Rows of the logistic model logit P(a wins) = theta_a - theta_b + x . beta, with response
    ``y`` (1, 0 or 0.5), likelihood weight ``w`` (votes or summed weights) and, for the sandwich,
    ``w2`` (sum of squared weights)."""

    m: int
    a: np.ndarray
    b: np.ndarray
    y: np.ndarray
    w: np.ndarray
    w2: np.ndarray
    x: np.ndarray | None = None

    @property
    def k(self) -> int:
        return 0 if self.x is None else self.x.shape[1]

    @property
    def covariates(self) -> np.ndarray:
        """``x``, for code that runs only when the design has covariates (``k > 0``)."""
        assert self.x is not None, "this design has no covariates"
        return self.x


class PairDesign:
    """The raw model's cells (model_a, model_b, outcome) collapsed to unordered pairs: the likelihood,
    its gradient and its information depend on a pair's total weight and summed score only, so fits and
    bootstrap rounds run on a quarter of the rows or fewer (the sandwich, which needs each outcome's
    residual, keeps the cells)."""

    def __init__(self, cells: Design) -> None:
        m = cells.m
        key = np.minimum(cells.a, cells.b) * m + np.maximum(cells.a, cells.b)
        pairs, self._of = np.unique(key, return_inverse=True)
        self._m, self._n = m, len(pairs)
        self._a, self._b = pairs // m, pairs % m
        self._score = np.where(cells.a < cells.b, cells.y, 1.0 - cells.y)  # the lower-numbered model's share

    def design(self, cell_weights: np.ndarray) -> Design:
        """The pair rows for these cell weights (a bootstrap round's resampled counts, or the data's)."""
        w = np.bincount(self._of, weights=cell_weights, minlength=self._n)
        won = np.bincount(self._of, weights=cell_weights * self._score, minlength=self._n)
        y = np.divide(won, w, out=np.zeros_like(won), where=w > 0)
        return Design(m=self._m, a=self._a, b=self._b, y=y, w=w, w2=w)


def information(d: Design, v: np.ndarray) -> np.ndarray:
    """Sum over rows of v_i * z_i z_i^T with z_i = (e_a - e_b, x_i)."""
    m, k = d.m, d.k
    out = np.zeros((m + k, m + k))
    pair = np.bincount(d.a * m + d.b, weights=v, minlength=m * m).reshape(m, m)
    sym = pair + pair.T
    out[:m, :m] = -sym
    out[np.arange(m), np.arange(m)] = sym.sum(axis=1)
    if k:
        xv = d.covariates * v[:, None]
        cross = np.empty((m, k))
        for j in range(k):
            cross[:, j] = np.bincount(d.a, weights=xv[:, j], minlength=m) - np.bincount(d.b, weights=xv[:, j], minlength=m)
        out[:m, m:] = cross
        out[m:, :m] = cross.T
        out[m:, m:] = d.covariates.T @ xv
    return out


def linear_predictor(d: Design, params: np.ndarray) -> np.ndarray:
    """eta = theta_a - theta_b (+ x . beta) for every row: the log-odds that model a wins."""
    eta: np.ndarray = params[d.a] - params[d.b]
    if d.k:
        eta = eta + d.covariates @ params[d.m:]
    return eta


def _objective(d: Design, params: np.ndarray, w: np.ndarray, penalty: np.ndarray) -> tuple[float, np.ndarray]:
    eta = linear_predictor(d, params)
    # y log p + (1-y) log(1-p) = y eta - softplus(eta)
    loglik = np.dot(w, d.y * eta - np.logaddexp(0.0, eta))
    return float(loglik - 0.5 * np.dot(penalty, params * params)), eta


def penalised_fit(d: Design, pivot: int, penalty: np.ndarray, start: np.ndarray | None = None,
                  w: np.ndarray | None = None, tol: float = 1e-9, max_iter: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Penalised maximum likelihood by Newton with backtracking. Returns (params, information of the
    free parameters, i.e. all but ``pivot``)."""
    w = d.w if w is None else w
    free = np.ones(d.m + d.k, dtype=bool)
    free[pivot] = False
    params = np.zeros(d.m + d.k) if start is None else start.copy()
    params[pivot] = 0.0
    obj, eta = _objective(d, params, w, penalty)
    for _ in range(max_iter):
        p = 1.0 / (1.0 + np.exp(-eta))
        r = w * (d.y - p)
        grad = np.zeros(d.m + d.k)
        grad[:d.m] = np.bincount(d.a, weights=r, minlength=d.m) - np.bincount(d.b, weights=r, minlength=d.m)
        if d.k:
            grad[d.m:] = d.covariates.T @ r
        grad -= penalty * params
        info = information(d, w * p * (1.0 - p)) + np.diag(penalty)
        step = np.zeros_like(params)
        step[free] = np.linalg.solve(info[np.ix_(free, free)], grad[free])
        t = 1.0
        while True:
            new = params + t * step
            new_obj, new_eta = _objective(d, new, w, penalty)
            if new_obj >= obj - 1e-12 * abs(obj) or t < 1e-6:
                break
            t *= 0.5
        params, obj, eta = new, new_obj, new_eta
        if np.max(np.abs(t * step)) < tol:
            break
    p = 1.0 / (1.0 + np.exp(-eta))
    info = information(d, w * p * (1.0 - p)) + np.diag(penalty)
    return params, info[np.ix_(free, free)]


def sandwich_covariance(d: Design, params: np.ndarray, info_free: np.ndarray, pivot: int) -> np.ndarray:
    """Covariance of all parameters (pivot row/column zero): H^-1 J H^-1, J from per-vote scores."""
    free = np.ones(d.m + d.k, dtype=bool)
    free[pivot] = False
    p = 1.0 / (1.0 + np.exp(-linear_predictor(d, params)))
    meat = information(d, d.w2 * (d.y - p) ** 2)[np.ix_(free, free)]
    bread = np.linalg.inv(info_free)
    cov = np.zeros((d.m + d.k, d.m + d.k))
    cov[np.ix_(free, free)] = bread @ meat @ bread
    return cov


def fisher_half_widths(info_free: np.ndarray, pivot: int, centre: np.ndarray, size: int) -> np.ndarray:
    """95% half-widths (log-odds) of the model-based interval: the inverse information of the free
    parameters (the pivot fixed), moved to the anchor's scale by ``centre``."""
    free = np.ones(size, dtype=bool)
    free[pivot] = False
    cov = np.zeros((size, size))
    cov[np.ix_(free, free)] = np.linalg.inv(info_free)
    cov = centre @ cov @ centre.T
    half: np.ndarray = 1.959964 * np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return half


#: the one-sided error of an unbounded model's bound (each end of a 95% interval leaves 2.5%)
_OPEN_ALPHA = 0.025


def open_bounds(raw: Design, counts: np.ndarray, theta: np.ndarray, bounded: np.ndarray, votes: np.ndarray) -> dict[int, float]:
    """For each model with only wins (only losses), the log-odds rating below (above) which winning
    (losing) all its battles against its opponents as fitted has probability under 2.5%: the exact
    test-inversion bound that replaces an interval the likelihood cannot give."""
    found: dict[int, float] = {}
    for i in np.flatnonzero(~bounded & (votes > 0)).tolist():
        mine = (raw.a == i) | (raw.b == i)
        opponents = np.where(raw.a[mine] == i, raw.b[mine], raw.a[mine])
        scored = np.where(raw.a[mine] == i, raw.y[mine], 1.0 - raw.y[mine])  # 1: it won that cell, 0: it lost
        n = counts[mine]
        sign = 1.0 if scored.max() > 0.5 else -1.0  # only wins: a lower bound; only losses: an upper bound

        def log_p(x: float) -> float:  # log P(the same results) at rating x
            return float(np.sum(n * -np.logaddexp(0.0, -sign * (x - theta[opponents]))))

        lo, hi = float(theta[opponents].min()) - 60.0, float(theta[opponents].max()) + 60.0
        target = math.log(_OPEN_ALPHA)
        for _ in range(200):  # log_p rises with sign * x: bisect for log_p(x) = target
            mid = 0.5 * (lo + hi)
            if (log_p(mid) < target) == (sign > 0):
                lo = mid
            else:
                hi = mid
        found[i] = 0.5 * (lo + hi)
    return found
