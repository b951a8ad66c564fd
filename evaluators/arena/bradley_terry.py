"""The Bradley-Terry fit behind the arena ratings: penalised maximum likelihood by Newton's method.

A :class:`Design` holds the rows of the logistic model logit P(a wins) = theta_a - theta_b + x . beta
(aggregated cells, unordered pairs via :class:`PairDesign`, or individual votes with style
covariates). :func:`penalised_fit` finds the parameters with one model held at 0 (the pivot);
:func:`sandwich_covariance` and :func:`model_half_widths` give their uncertainty, and
:func:`open_bounds` the one-sided bound of a model whose maximum-likelihood rating is infinite.
Everything is in natural-log odds; :mod:`evaluators.arena.ratings` turns it into rating points.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from evaluators.arena.vote_fit import VoteDesign


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

    def weighted_information(
        self, params: np.ndarray, weigh: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], np.ndarray]
    ) -> np.ndarray:
        """Sum over rows of weigh(y, p, w, w2) z z^T, p at ``params`` (as ``VoteDesign``'s, in chunks)."""
        p = 1.0 / (1.0 + np.exp(-linear_predictor(self, params)))
        return information(self, weigh(self.y, p, self.w, self.w2))


class PairDesign:
    """The raw model's cells (model_a, model_b, outcome) collapsed to unordered pairs: the likelihood,
    its gradient and its information depend on a pair's total weight and summed score only, so fits and
    bootstrap rounds run on a quarter of the rows or fewer (the sandwich, which needs each outcome's
    residual, keeps the cells)."""

    def __init__(self, cells: Design) -> None:
        m = cells.m
        key = np.minimum(cells.a, cells.b) * m + np.maximum(cells.a, cells.b)
        pairs, self._of = np.unique(key, return_inverse=True)
        self.m, self._n = m, len(pairs)
        #: the pairs' models, ``a < b``
        self.a, self.b = pairs // m, pairs % m
        self._score = np.where(cells.a < cells.b, cells.y, 1.0 - cells.y)  # the lower-numbered model's share

    def totals(self, cell_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each pair's total weight and the lower-numbered model's weighted score, for one set of cell
        weights (1-d) or many (a row each)."""
        weights = cell_weights.reshape(-1, cell_weights.shape[-1])
        rounds = len(weights)
        slot = (np.arange(rounds)[:, None] * self._n + self._of).ravel()
        w = np.bincount(slot, weights=weights.ravel(), minlength=rounds * self._n)
        won = np.bincount(slot, weights=(weights * self._score).ravel(), minlength=rounds * self._n)
        shape = (*cell_weights.shape[:-1], self._n)
        return w.reshape(shape), won.reshape(shape)

    def design(self, cell_weights: np.ndarray) -> Design:
        """The pair rows for these cell weights (a bootstrap round's resampled counts, or the data's)."""
        w, won = self.totals(cell_weights)
        y = np.divide(won, w, out=np.zeros_like(won), where=w > 0)
        return Design(m=self.m, a=self.a, b=self.b, y=y, w=w, w2=w)


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
            cross[:, j] = np.bincount(d.a, weights=xv[:, j], minlength=m) - np.bincount(
                d.b, weights=xv[:, j], minlength=m
            )
        out[:m, m:] = cross
        out[m:, :m] = cross.T
        out[m:, m:] = d.covariates.T @ xv
    return out


def linear_predictor(d: Design, params: np.ndarray) -> np.ndarray:
    """eta = theta_a - theta_b (+ x . beta) for every row: the log-odds that model a wins."""
    eta: np.ndarray = params[d.a] - params[d.b]
    if d.k:
        eta = eta + d.covariates @ params[d.m :]
    return eta


def _objective(d: Design, params: np.ndarray, w: np.ndarray, penalty: np.ndarray) -> tuple[float, np.ndarray]:
    eta = linear_predictor(d, params)
    # y log p + (1-y) log(1-p) = y eta - softplus(eta)
    loglik = np.dot(w, d.y * eta - np.logaddexp(0.0, eta))
    return float(loglik - 0.5 * np.dot(penalty, params * params)), eta


def penalised_fit(
    d: Design,
    pivot: int,
    penalty: np.ndarray,
    start: np.ndarray | None = None,
    w: np.ndarray | None = None,
    tol: float = 1e-9,
    max_iter: int = 200,
) -> tuple[np.ndarray, np.ndarray]:
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
        grad[: d.m] = np.bincount(d.a, weights=r, minlength=d.m) - np.bincount(d.b, weights=r, minlength=d.m)
        if d.k:
            grad[d.m :] = d.covariates.T @ r
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


#: at most this many entries (rounds x models x models) in one batch of :func:`pair_fits`
_BATCH_ENTRIES = 4_000_000


def pair_fits(
    pairs: PairDesign,
    cell_weights: np.ndarray,
    pivot: int,
    penalty: np.ndarray,
    start: np.ndarray,
    tol: float = 1e-9,
    max_iter: int = 200,
) -> np.ndarray:
    """:func:`penalised_fit` of the raw model for many sets of cell weights at once (rows of
    ``cell_weights``: a bootstrap's resampled counts), all started from ``start`` (the data's fit).
    Returns the parameters, a row per round.

    First every round takes chord steps (:func:`_chord_fits`): Newton steps through one information
    matrix shared by all rounds, so that a step for all rounds is two matrix products and no solve. A
    round's own information differs from the shared one by its resampling noise, so each step shrinks
    its distance to the optimum by about that much (five to seven steps to 1e-8 for 1,000,000 votes
    among 100 models), and the fixed point is the round's own optimum (the step is zero exactly where
    the round's penalised gradient is). A round whose step grows (a resample far from the data, where
    the shared matrix is too far off), or that has not converged in :data:`_CHORD_STEPS` steps, is
    refitted by Newton's method with backtracking, its own information at every step
    (:func:`_newton_fits`)."""
    m = pairs.m
    batch = max(1, _BATCH_ENTRIES // (m * m))
    return (
        np.concatenate(
            [
                _pair_fits(pairs, cell_weights[i : i + batch], pivot, penalty, start, tol, max_iter)
                for i in range(0, len(cell_weights), batch)
            ]
        )
        if len(cell_weights)
        else np.zeros((0, m))
    )


def _pair_fits(
    pairs: PairDesign,
    cell_weights: np.ndarray,
    pivot: int,
    penalty: np.ndarray,
    start: np.ndarray,
    tol: float,
    max_iter: int,
) -> np.ndarray:
    w, won = pairs.totals(cell_weights)  # (rounds, pairs) each
    params, converged = _chord_fits(pairs, w, won, pivot, penalty, start, tol)
    rest = np.flatnonzero(~converged)
    if len(rest):
        params[rest] = _newton_fits(pairs, w[rest], won[rest], pivot, penalty, start, tol, max_iter)
    return params


#: at most this many entries (pairs x models) in the dense pair-model incidence matrix that turns the
#: chord steps' gathers and scatters into matrix products (100 models: 495,000)
_DENSE_INCIDENCE = 4_000_000
#: chord steps a round may take before it is refitted by Newton's method instead
_CHORD_STEPS = 30


class _Incidence:
    """The pairs' rows e_a - e_b: ``differences`` gives theta_a - theta_b for every round and pair,
    ``sums`` the transpose (a pair's residual to its two models, with opposite signs); matrix products
    with the dense matrix when it is small, gathers and bincounts otherwise."""

    def __init__(self, a: np.ndarray, b: np.ndarray, m: int) -> None:
        self.a, self.b, self.m = a, b, m
        self.dense: np.ndarray | None = None
        if len(a) * m <= _DENSE_INCIDENCE:
            self.dense = np.zeros((len(a), m))
            self.dense[np.arange(len(a)), a] = 1.0
            self.dense[np.arange(len(a)), b] = -1.0

    def differences(self, theta: np.ndarray) -> np.ndarray:
        if self.dense is not None:
            out: np.ndarray = theta @ self.dense.T
            return out
        gathered: np.ndarray = np.take(theta, self.a, axis=1) - np.take(theta, self.b, axis=1)
        return gathered

    def sums(self, values: np.ndarray) -> np.ndarray:
        if self.dense is not None:
            out: np.ndarray = values @ self.dense
            return out
        rows = np.arange(len(values))[:, None] * self.m
        size = len(values) * self.m
        flat = values.ravel()
        return (
            np.bincount((rows + self.a).ravel(), weights=flat, minlength=size)
            - np.bincount((rows + self.b).ravel(), weights=flat, minlength=size)
        ).reshape(len(values), self.m)


def _chord_fits(
    pairs: PairDesign, w: np.ndarray, won: np.ndarray, pivot: int, penalty: np.ndarray, start: np.ndarray, tol: float
) -> tuple[np.ndarray, np.ndarray]:
    """Every round's fit by the chord method: Newton steps through one information matrix, the rounds'
    mean weights' at ``start``, shared by all rounds. Returns (parameters, a row per round; whether
    the round converged)."""
    m = pairs.m
    free = np.ones(m, dtype=bool)
    free[pivot] = False
    edges = _Incidence(pairs.a, pairs.b, m)
    half = 0.5 * w
    centred = won - half  # the residual won - w p is centred - half tanh(eta / 2), p = (1 + tanh(eta / 2)) / 2
    p = 1.0 / (1.0 + np.exp(-(start[pairs.a] - start[pairs.b])))
    shared = information(
        Design(m=m, a=pairs.a, b=pairs.b, y=np.zeros(len(pairs.a)), w=w.mean(axis=0), w2=w.mean(axis=0)),
        w.mean(axis=0) * p * (1.0 - p),
    ) + np.diag(penalty)
    inverse = np.linalg.inv(shared[np.ix_(free, free)])
    params = np.repeat(start[None, :m], len(w), axis=0)
    params[:, pivot] = 0.0
    moving = np.arange(len(w))
    converged = np.zeros(len(w), dtype=bool)
    last = np.full(len(w), np.inf)
    for _ in range(_CHORD_STEPS):
        theta = params[moving]
        expected = edges.differences(0.5 * theta)  # eta / 2
        np.tanh(expected, out=expected)
        expected *= half[moving]  # w (p - 1/2)
        residual = centred[moving] - expected
        grad = edges.sums(residual) - penalty * theta
        step = grad[:, free] @ inverse
        size = np.max(np.abs(step), axis=1)
        ok = np.isfinite(size) & (
            size < last[moving]
        )  # a growing step: the shared matrix is too far off for this round
        theta[:, free] += step
        params[moving[ok]] = theta[ok]
        done = ok & (size < tol)
        converged[moving[done]] = True
        last[moving] = size
        moving = moving[ok & ~done]
        if not len(moving):
            break
    return params, converged


def _newton_fits(
    pairs: PairDesign,
    w: np.ndarray,
    won: np.ndarray,
    pivot: int,
    penalty: np.ndarray,
    start: np.ndarray,
    tol: float,
    max_iter: int,
) -> np.ndarray:
    """:func:`penalised_fit` for many rounds' pair totals at once: the same Newton steps with the same
    backtracking, round by round, but each step taken for every round still moving with one batched
    solve."""
    m = pairs.m
    a, b = pairs.a, pairs.b
    flat = a * m + b  # unordered pairs: each (a, b) once, a < b
    free = np.ones(m, dtype=bool)
    free[pivot] = False
    diagonal = np.arange(m)

    def objective(theta: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        eta = theta[:, a] - theta[:, b]
        loglik = np.einsum("rp,rp->r", won[rows], eta) - np.einsum("rp,rp->r", w[rows], np.logaddexp(0.0, eta))
        return loglik - 0.5 * (theta * theta) @ penalty, eta

    def per_pair(values: np.ndarray) -> np.ndarray:  # (rounds, pairs) -> (rounds, m, m), upper triangle
        out = np.zeros((len(values), m * m))
        out[:, flat] = values
        return out.reshape(len(values), m, m)

    params = np.repeat(start[None, :m], len(w), axis=0)
    params[:, pivot] = 0.0
    moving = np.arange(len(w))
    obj, eta = objective(params, moving)
    for _ in range(max_iter):
        if not len(moving):
            break
        theta = params[moving]
        p = 1.0 / (1.0 + np.exp(-eta))
        r = per_pair(won[moving] - w[moving] * p)
        grad = r.sum(axis=2) - r.sum(axis=1) - penalty * theta
        v = per_pair(w[moving] * p * (1.0 - p))
        sym = v + v.transpose(0, 2, 1)
        info = -sym
        info[:, diagonal, diagonal] = sym.sum(axis=2) + penalty
        step = np.zeros_like(theta)
        step[:, free] = np.linalg.solve(info[:, free][:, :, free], grad[:, free, None])[..., 0]
        t = np.ones(len(moving))
        new = theta + step
        new_obj, new_eta = objective(new, moving)
        short = (new_obj < obj - 1e-12 * np.abs(obj)) & (t >= 1e-6)
        while short.any():  # backtracking, for the rounds whose full step did not raise the objective
            t[short] *= 0.5
            new[short] = theta[short] + t[short, None] * step[short]
            new_obj[short], new_eta[short] = objective(new[short], moving[short])
            short &= (new_obj < obj - 1e-12 * np.abs(obj)) & (t >= 1e-6)
        params[moving] = new
        still = np.max(np.abs(t[:, None] * step), axis=1) >= tol
        moving, obj, eta = moving[still], new_obj[still], new_eta[still]
    return params


def sandwich_covariance(d: Design | VoteDesign, params: np.ndarray, info_free: np.ndarray, pivot: int) -> np.ndarray:
    """Covariance of all parameters (pivot row/column zero): H^-1 J H^-1, J from per-vote scores."""
    free = np.ones(d.m + d.k, dtype=bool)
    free[pivot] = False
    meat = d.weighted_information(params, lambda y, p, w, w2: w2 * (y - p) ** 2)[np.ix_(free, free)]
    bread = np.linalg.inv(info_free)
    cov = np.zeros((d.m + d.k, d.m + d.k))
    cov[np.ix_(free, free)] = bread @ meat @ bread
    return cov


def model_half_widths(
    d: Design | VoteDesign, params: np.ndarray, info_free: np.ndarray, pivot: int, centre: np.ndarray, tie_share: float
) -> np.ndarray:
    """95% half-widths (log-odds) of the model-based interval with ties: H^-1 J H^-1 where a vote's
    score (1, 1/2 or 0) has, at the fitted p, the variance p (1 - p) - t / 4 when a share t of votes
    are ties (P(win) = p - t/2, P(tie) = t: E y = p, E y^2 = p - t/4), so
    J = sum of w2 (p (1 - p) - t / 4) z z^T; with no ties it is the Fisher interval H^-1. Moved to the
    anchor's scale by ``centre``."""
    size = d.m + d.k
    free = np.ones(size, dtype=bool)
    free[pivot] = False
    meat = d.weighted_information(params, lambda y, p, w, w2: w2 * np.clip(p * (1.0 - p) - tie_share / 4.0, 0.0, None))[
        np.ix_(free, free)
    ]
    bread = np.linalg.inv(info_free)
    cov = np.zeros((size, size))
    cov[np.ix_(free, free)] = bread @ meat @ bread
    cov = centre @ cov @ centre.T
    half: np.ndarray = 1.959964 * np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return half


#: the one-sided error of an unbounded model's bound (each end of a 95% interval leaves 2.5%)
_OPEN_ALPHA = 0.025


def open_bounds(
    raw: Design, counts: np.ndarray, theta: np.ndarray, bounded: np.ndarray, votes: np.ndarray
) -> dict[int, float]:
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
            return float(np.sum(n * -np.logaddexp(0.0, -sign * (x - theta[opponents]))))  # noqa: B023 (called in this iteration)

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
