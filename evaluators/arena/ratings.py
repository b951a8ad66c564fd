"""Arena ratings: Bradley-Terry maximum likelihood with intervals, style control and robustness.

Model: P(a beats b) = 1 / (1 + 10^((R_b - R_a) / scale)); ties and both-bad count as half a win each
way. Internally ratings are natural-log odds ``theta`` (R = anchor + theta * scale / ln 10).

* The raw fit works on aggregated counts of unique (model_a, model_b, outcome) cells, so 1,000,000
  votes among 100 models are at most 39,600 cells. Newton's method with a backtracking line search;
  one model (the reference, else the most-voted) is held at 0 and a tiny L2 penalty (``rating_l2``)
  keeps every rating finite (a model that won every battle has an unbounded maximum-likelihood rating).
* Anchoring: the reference model gets ``reference_rating``; without a reference (or when it has no
  votes in this set) the mean of the rankable models is ``base``.
* 95% intervals: ``bootstrap`` (multinomial resampling of the cell counts with a fixed seed, each round
  warm-started from the full fit; percentile interval) or ``sandwich`` (H^-1 J H^-1 from the per-vote
  scores, which is right under ties and inverse-propensity weights; normal interval).
* Style control: per battle covariates (f_a - f_b) / (f_a + f_b + 1), z-scored, with L2 penalty
  ``l2`` on their coefficients, fitted on the individual votes by the same Newton code (started from
  the raw fit). The sandwich is one extra pass. The bootstrap resamples votes; refitting every round
  costs about one full fit per round (minutes on 1M votes, ``exact_style_bootstrap=True``), so by
  default each round is a score bootstrap: the resampled votes' gradient at the full-data fit mapped
  through the full-data information matrix (a one-step Newton bootstrap with the Hessian held fixed;
  asymptotically the same interval, percentile as for the raw fit).
* Inverse-propensity weights (``use_weights``): each vote counts ``weight`` (normalised to mean 1).
* Rank (upper bound) = 1 + number of models whose lower bound is above this model's upper bound,
  among rankable models.
* Rankable: models connected by a chain of battles to the reference (or, without one, to the group
  holding the most votes). Others keep a finite, meaningless rating, ``rankable=False`` and a note,
  and are ranked after every rankable model.
* Robustness (``robustness``): a greedy upper bound on the fewest votes whose removal changes which
  model has the top raw rating. Each step ranks every cell by the first-order (influence-function)
  change in the gap between the leader and its closest challenger per removed vote, removes as many
  votes from the best cell as the linear estimate needs, refits, and repeats; the final step is trimmed
  by bisection. It is an upper bound: a cleverer removal may need fewer. Capped at 10% of the votes
  and 200 steps (then ``searched_up_to`` says how many were removed without a change). The votes it
  removed are listed (by pair and outcome), so the figure can be checked by refitting without them.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from operator import itemgetter
from typing import Any, Sequence

import numpy as np

from evaluators.arena.style import STYLE_FEATURES

OUTCOMES: tuple[str, ...] = ("model_a", "model_b", "tie", "tie (bothbad)")
_SCORE = np.array([1.0, 0.0, 0.5, 0.5])  # model_a's share of the win per outcome code
_LN10 = math.log(10.0)
_ROBUSTNESS_CAP = 0.10
_ROBUSTNESS_STEPS = 200


@dataclass
class BattleRecord:
    """One counted vote. ``features_*`` are style features (style.features); ``weight`` is the
    inverse-propensity weight (1 / probability the pair was drawn), used when ``use_weights``."""

    model_a: str
    model_b: str
    winner: str
    features_a: dict[str, float] = field(default_factory=dict)
    features_b: dict[str, float] = field(default_factory=dict)
    weight: float = 1.0
    intent: str = ""
    language: str = ""


@dataclass
class BattleArrays:
    """Votes as arrays, for speed: ``a``/``b`` index ``models``, ``outcome`` indexes ``OUTCOMES``;
    optional (n, k) ``features_a``/``features_b`` whose columns are ``feature_names``; optional
    ``weights`` (inverse propensities)."""

    models: list[str]
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    features_a: np.ndarray | None = None
    features_b: np.ndarray | None = None
    feature_names: tuple[str, ...] = ()
    weights: np.ndarray | None = None

    def __post_init__(self) -> None:
        self.a = np.asarray(self.a, dtype=np.int64)
        self.b = np.asarray(self.b, dtype=np.int64)
        self.outcome = np.asarray(self.outcome, dtype=np.int64)
        n, m = len(self.a), len(self.models)
        if len(self.b) != n or len(self.outcome) != n:
            raise ValueError(f"a, b and outcome must have one entry per vote; got {n}, {len(self.b)}, {len(self.outcome)}")
        if len(set(self.models)) != m:
            raise ValueError("models: names must be unique")
        if n:
            for name, idx in (("a", self.a), ("b", self.b)):
                if idx.min() < 0 or idx.max() >= m:
                    raise ValueError(f"{name}: model index out of range 0..{m - 1}")
            if self.outcome.min() < 0 or self.outcome.max() >= len(OUTCOMES):
                raise ValueError(f"outcome: codes must be 0..{len(OUTCOMES) - 1} (indexes into OUTCOMES)")
            same = np.flatnonzero(self.a == self.b)
            if same.size:
                raise ValueError(f"vote {int(same[0])}: model_a and model_b are the same model")
        for name in ("features_a", "features_b"):
            value = getattr(self, name)
            if value is not None:
                value = np.asarray(value, dtype=float)
                if value.shape != (n, len(self.feature_names)):
                    raise ValueError(f"{name}: expected shape ({n}, {len(self.feature_names)}), got {value.shape}")
                setattr(self, name, value)
        if self.weights is not None:
            self.weights = np.asarray(self.weights, dtype=float)
            if self.weights.shape != (n,) or not np.all(np.isfinite(self.weights)) or np.any(self.weights <= 0):
                raise ValueError("weights: need one finite positive weight per vote")

    def __len__(self) -> int:
        return len(self.a)

    @classmethod
    def from_records(cls, records: Sequence[BattleRecord], feature_names: Sequence[str] = ()) -> BattleArrays:
        """Index the records; a missing style feature counts as 0."""
        index: dict[str, int] = {}
        codes = {o: i for i, o in enumerate(OUTCOMES)}
        n = len(records)
        a = np.empty(n, dtype=np.int64)
        b = np.empty(n, dtype=np.int64)
        outcome = np.empty(n, dtype=np.int64)
        for i, r in enumerate(records):
            if r.winner not in codes:
                raise ValueError(f"battle {i}: winner {r.winner!r} is not one of {', '.join(OUTCOMES)}")
            a[i] = index.setdefault(r.model_a, len(index))
            b[i] = index.setdefault(r.model_b, len(index))
            outcome[i] = codes[r.winner]
        names = tuple(feature_names)
        fa = fb = None
        if names:
            fa = _feature_matrix([r.features_a for r in records], names)
            fb = _feature_matrix([r.features_b for r in records], names)
        weights = np.array([r.weight for r in records], dtype=float)
        return cls(list(index), a, b, outcome, fa, fb, names, weights)


def _feature_matrix(dicts: list[dict[str, float]], names: tuple[str, ...]) -> np.ndarray:
    getter = itemgetter(*names)
    try:
        rows = [getter(d) for d in dicts]
    except KeyError:  # some record lacks a feature: count it as 0
        rows = [[d.get(f, 0.0) for f in names] for d in dicts]
    return np.array(rows, dtype=float).reshape(len(dicts), len(names))


@dataclass
class RatingConfig:
    reference: str | None = None
    reference_rating: float = 1000.0
    scale: float = 400.0
    base: float = 1000.0
    bootstrap_rounds: int = 100
    seed: int = 0
    interval: str = "bootstrap"  # bootstrap | sandwich
    style_control: bool = False
    style_features: tuple[str, ...] = STYLE_FEATURES
    l2: float = 1.0  # on the z-scored style coefficients, in units of votes
    rating_l2: float = 1e-6  # on the ratings (log-odds), only to keep them finite
    use_weights: bool = False
    min_votes: int = 100
    robustness: bool = True
    exact_style_bootstrap: bool = False  # refit every round (minutes on 1M votes) instead of the score bootstrap
    #: without a (usable) reference, anchor on the best-connected well-estimated model instead of the mean
    auto_reference: bool = False

    def __post_init__(self) -> None:
        if self.interval not in ("bootstrap", "sandwich"):
            raise ValueError(f"interval: must be 'bootstrap' or 'sandwich', got {self.interval!r}")
        if self.bootstrap_rounds < 1:
            raise ValueError("bootstrap_rounds: must be at least 1")
        if self.scale <= 0 or self.l2 < 0 or self.rating_l2 <= 0:
            raise ValueError("scale and rating_l2 must be positive and l2 non-negative")
        self.style_features = tuple(self.style_features)

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["style_features"] = list(self.style_features)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RatingConfig:
        return cls(**{**data, "style_features": tuple(data.get("style_features", STYLE_FEATURES))})


@dataclass
class ModelRating:
    name: str
    rating: float
    ci_low: float | None
    ci_high: float | None
    rank_ub: int
    votes: int
    wins: int
    losses: int
    ties: int
    provisional: bool
    rankable: bool = True
    note: str = ""
    #: False when the maximum-likelihood rating is infinite (only wins or only losses): ``rating`` is then
    #: the one-sided 95% bound and the other end of the interval is open (None)
    bounded: bool = True


@dataclass
class StyleCoefficient:
    """A style covariate's coefficient in rating points per standard deviation of the feature."""

    feature: str
    value: float
    ci_low: float
    ci_high: float


@dataclass
class RatingResult:
    models: list[ModelRating]  # by rating, best first
    coefficients: list[StyleCoefficient]
    matrix_models: list[str]  # row/column order of the matrices
    win_rate: list[list[float | None]]  # row's share of wins (ties half) against column; None: no battles
    battle_count: list[list[int]]
    n_battles: int
    config: dict[str, Any]
    method: str
    robustness: dict[str, Any] | None = None
    #: what the scale is anchored on: {"kind": "reference" | "mean", "model", "rating", "how", "models"}
    anchor: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RatingResult:
        return cls(
            models=[ModelRating(**m) for m in data["models"]],
            coefficients=[StyleCoefficient(**c) for c in data.get("coefficients", [])],
            matrix_models=list(data["matrix_models"]), win_rate=[list(r) for r in data["win_rate"]],
            battle_count=[list(r) for r in data["battle_count"]], n_battles=int(data["n_battles"]),
            config=dict(data["config"]), method=str(data["method"]), robustness=data.get("robustness"),
            anchor=dict(data.get("anchor") or {}))


# ---------------------------------------------------------------- fitting

@dataclass
class _Design:
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


class _PairDesign:
    """The raw model's cells (model_a, model_b, outcome) collapsed to unordered pairs: the likelihood,
    its gradient and its information depend on a pair's total weight and summed score only, so fits and
    bootstrap rounds run on a quarter of the rows or fewer (the sandwich, which needs each outcome's
    residual, keeps the cells)."""

    def __init__(self, cells: _Design) -> None:
        m = cells.m
        key = np.minimum(cells.a, cells.b) * m + np.maximum(cells.a, cells.b)
        pairs, self._of = np.unique(key, return_inverse=True)
        self._m, self._n = m, len(pairs)
        self._a, self._b = pairs // m, pairs % m
        self._score = np.where(cells.a < cells.b, cells.y, 1.0 - cells.y)  # the lower-numbered model's share

    def design(self, cell_weights: np.ndarray) -> _Design:
        """The pair rows for these cell weights (a bootstrap round's resampled counts, or the data's)."""
        w = np.bincount(self._of, weights=cell_weights, minlength=self._n)
        won = np.bincount(self._of, weights=cell_weights * self._score, minlength=self._n)
        y = np.divide(won, w, out=np.zeros_like(won), where=w > 0)
        return _Design(m=self._m, a=self._a, b=self._b, y=y, w=w, w2=w)


def _information(d: _Design, v: np.ndarray) -> np.ndarray:
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


def _eta(d: _Design, params: np.ndarray) -> np.ndarray:
    eta: np.ndarray = params[d.a] - params[d.b]
    if d.k:
        eta = eta + d.covariates @ params[d.m:]
    return eta


def _objective(d: _Design, params: np.ndarray, w: np.ndarray, penalty: np.ndarray) -> tuple[float, np.ndarray]:
    eta = _eta(d, params)
    # y log p + (1-y) log(1-p) = y eta - softplus(eta)
    loglik = np.dot(w, d.y * eta - np.logaddexp(0.0, eta))
    return float(loglik - 0.5 * np.dot(penalty, params * params)), eta


def _fit(d: _Design, pivot: int, penalty: np.ndarray, start: np.ndarray | None = None, w: np.ndarray | None = None,
         tol: float = 1e-9, max_iter: int = 200) -> tuple[np.ndarray, np.ndarray]:
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
        info = _information(d, w * p * (1.0 - p)) + np.diag(penalty)
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
    info = _information(d, w * p * (1.0 - p)) + np.diag(penalty)
    return params, info[np.ix_(free, free)]


def _sandwich(d: _Design, params: np.ndarray, info_free: np.ndarray, pivot: int) -> np.ndarray:
    """Covariance of all parameters (pivot row/column zero): H^-1 J H^-1, J from per-vote scores."""
    free = np.ones(d.m + d.k, dtype=bool)
    free[pivot] = False
    p = 1.0 / (1.0 + np.exp(-_eta(d, params)))
    meat = _information(d, d.w2 * (d.y - p) ** 2)[np.ix_(free, free)]
    bread = np.linalg.inv(info_free)
    cov = np.zeros((d.m + d.k, d.m + d.k))
    cov[np.ix_(free, free)] = bread @ meat @ bread
    return cov


# ---------------------------------------------------------------- helpers

def _components(m: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected components of the battle graph; ``a``/``b`` list each played pair (repeats allowed)."""
    parent = list(range(m))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(a.tolist(), b.tolist()):
        ri, rj = find(int(i)), find(int(j))
        if ri != rj:
            parent[ri] = rj
    return np.array([find(i) for i in range(m)])


def _rank_upper_bounds(low: np.ndarray, high: np.ndarray, rankable: np.ndarray) -> np.ndarray:
    ranks = np.empty(len(low), dtype=np.int64)
    ok = np.flatnonzero(rankable)
    for i in range(len(low)):
        ranks[i] = 1 + int(np.sum(low[ok] > high[i])) if rankable[i] else len(ok) + 1
    return ranks


def _style_covariates(arr: BattleArrays, names: tuple[str, ...]) -> np.ndarray:
    if arr.features_a is None or arr.features_b is None:
        raise ValueError("style_control: the battles carry no style features")
    col = [arr.feature_names.index(f) if f in arr.feature_names else None for f in names]
    missing = [f for f, c in zip(names, col) if c is None]
    if missing:
        raise ValueError(f"style_features: not in the battles' features: {', '.join(missing)}")
    cols = [c for c in col if c is not None]
    whole = cols == list(range(arr.features_a.shape[1]))
    fa, fb = (arr.features_a, arr.features_b) if whole else (arr.features_a[:, cols], arr.features_b[:, cols])
    x: np.ndarray = fa - fb
    x /= fa + fb + 1.0
    mean, std = x.mean(axis=0), x.std(axis=0)
    std[std == 0] = 1.0
    x -= mean
    x /= std
    return x


def _well_estimated(rankable: np.ndarray, bounded: np.ndarray, votes: np.ndarray, min_votes: int) -> np.ndarray:
    """The models that set the scale: connected, bounded and with enough votes; failing any, connected
    and bounded; failing that, connected (an arena's first days)."""
    for core in (rankable & bounded & (votes >= min_votes), rankable & bounded, rankable):
        if core.any():
            return core
    return rankable


def _anchor(models: list[str], config: RatingConfig, votes: np.ndarray, battle_count: np.ndarray,
            core: np.ndarray) -> tuple[int | None, dict[str, Any]]:
    """The reference model's index (None: the mean of the well-estimated models) and what the page
    says about it. A configured reference that is not well estimated is not used; without a usable one,
    ``auto_reference`` takes the best-connected well-estimated model (most opponents, then most votes)."""
    why_not = ""
    if config.reference in models:
        index = models.index(config.reference)
        if core[index]:
            return index, {"kind": "reference", "model": config.reference, "rating": config.reference_rating, "how": "configured"}
        why_not = (f"the configured reference {config.reference} is not well estimated "
                   f"({int(votes[index])} votes, provisional or with only wins or losses), so it is not used")
    if config.auto_reference and core.any():
        # counted among the well-estimated models only, so that a new model's votes cannot change the choice
        among = battle_count[np.ix_(core, core)]
        opponents, core_votes = (among > 0).sum(axis=1), among.sum(axis=1)
        ranked = max(range(len(among)), key=lambda j: (int(opponents[j]), int(core_votes[j]), -j))
        index = int(np.flatnonzero(core)[ranked])
        how = (f"{why_not}; " if why_not else "") + (f"the best-connected well-estimated model: {int(opponents[ranked])} "
                                                     f"opponents and {int(core_votes[ranked])} votes among them")
        return index, {"kind": "reference", "model": models[index], "rating": config.reference_rating, "how": how}
    return None, {"kind": "mean", "model": "", "rating": config.base, "how": why_not}


def _fisher_half_widths(info_free: np.ndarray, pivot: int, centre: np.ndarray, size: int) -> np.ndarray:
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


def _open_bounds(raw: _Design, counts: np.ndarray, theta: np.ndarray, bounded: np.ndarray, votes: np.ndarray) -> dict[int, float]:
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


# ---------------------------------------------------------------- public entry point

def rate(battles: Sequence[BattleRecord] | BattleArrays, config: RatingConfig | None = None) -> RatingResult:
    """Ratings with 95% intervals, ranks, counts, matrices and (optionally) style coefficients. The
    linear algebra runs on one BLAS thread: the work is many small solves, which threads slow down
    (2.7x under load), and the limit holds only while this call runs."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _rate(battles, config or RatingConfig())


def _rate(battles: Sequence[BattleRecord] | BattleArrays, config: RatingConfig) -> RatingResult:
    if isinstance(battles, BattleArrays):
        arr = battles
    else:
        arr = BattleArrays.from_records(list(battles), config.style_features if config.style_control else ())
    m, n = len(arr.models), len(arr)
    if config.reference is not None and config.reference not in arr.models and n:
        raise ValueError(f"reference: model {config.reference!r} is not among the rated models")
    k_to = 1.0 / _LN10 * config.scale  # log-odds -> rating points

    # Counts per model and per pair.
    score = _SCORE[arr.outcome]
    votes = np.bincount(arr.a, minlength=m) + np.bincount(arr.b, minlength=m)
    wins = np.bincount(arr.a, weights=(arr.outcome == 0), minlength=m) + np.bincount(arr.b, weights=(arr.outcome == 1), minlength=m)
    losses = np.bincount(arr.a, weights=(arr.outcome == 1), minlength=m) + np.bincount(arr.b, weights=(arr.outcome == 0), minlength=m)
    ties = votes - wins - losses
    count = np.bincount(arr.a * m + arr.b, minlength=m * m).reshape(m, m) if n else np.zeros((m, m), dtype=np.int64)
    won = np.bincount(arr.a * m + arr.b, weights=score, minlength=m * m).reshape(m, m) if n else np.zeros((m, m))
    battle_count = count + count.T
    won_total = won + (count.T - won.T)

    # Raw design on aggregated (a, b, outcome) cells.
    cell_key = (arr.a * m + arr.b) * len(OUTCOMES) + arr.outcome
    if m * m * len(OUTCOMES) <= 4 * n + 1_000_000:  # small key space: counting beats sorting
        present = np.bincount(cell_key, minlength=m * m * len(OUTCOMES))
        cells = np.flatnonzero(present)
        lookup = np.zeros(len(present), dtype=np.int64)
        lookup[cells] = np.arange(len(cells))
        cell_of = lookup[cell_key]
    else:
        cells, cell_of = np.unique(cell_key, return_inverse=True)
    cell_n = np.bincount(cell_of, minlength=len(cells)).astype(float)
    cell_a, cell_b = cells // len(OUTCOMES) // m, cells // len(OUTCOMES) % m

    # Which models can be compared with the anchor at all, and which are well estimated: connected,
    # with a finite maximum-likelihood rating (not only wins or only losses) and not provisional. Only
    # those set the scale; the others are placed on it without moving it.
    comp = _components(m, cell_a, cell_b)
    if n == 0:
        rankable = np.zeros(m, dtype=bool)
    else:
        comp_votes = np.bincount(comp, weights=votes, minlength=m)
        configured = arr.models.index(config.reference) if config.reference in arr.models else None
        home = comp[configured] if configured is not None and votes[configured] else int(np.argmax(comp_votes))
        rankable = (comp == home) & (votes > 0)
    bounded = ~((votes > 0) & (ties == 0) & ((wins == 0) | (losses == 0)))
    core = _well_estimated(rankable, bounded, votes, config.min_votes)
    ref_index, anchor = _anchor(arr.models, config, votes, battle_count, core)
    pivot = ref_index if ref_index is not None else int(np.argmax(np.where(core, votes, -1))) if n else 0

    weighted = bool(config.use_weights and arr.weights is not None and n)
    weights = arr.weights / arr.weights.mean() if weighted and arr.weights is not None else np.ones(n)

    raw = _Design(m=m, a=cell_a, b=cell_b, y=_SCORE[cells % len(OUTCOMES)],
                  w=np.bincount(cell_of, weights=weights, minlength=len(cells)),
                  w2=np.bincount(cell_of, weights=weights * weights, minlength=len(cells)))
    pairs_of = _PairDesign(raw)  # the raw likelihood on (unordered) pairs: 4,950 rows for 100 models
    names = config.style_features if config.style_control else ()
    if config.style_control and n:
        design = _Design(m=m, a=arr.a, b=arr.b, y=score, w=weights, w2=weights * weights, x=_style_covariates(arr, names))
    else:
        design = raw
    penalty = np.concatenate([np.full(m, config.rating_l2), np.full(design.k, config.l2)])

    def anchored(theta: np.ndarray) -> np.ndarray:
        ratings: np.ndarray = theta[:m] * k_to
        if ref_index is not None:
            shift = config.reference_rating - float(ratings[ref_index])
        else:  # the mean of the well-estimated models, in the fit and in every bootstrap round
            shift = config.base - (float(ratings[core].mean()) if core.any() else 0.0)
        shifted: np.ndarray = ratings + shift
        return shifted

    params = np.zeros(m + design.k)
    low = high = np.zeros(m + design.k)
    if n:
        start = None
        if design is not raw:  # the cheap raw fit on cells is a good start for the per-vote fit
            start = np.zeros(m + design.k)
            start[:m] = _fit(pairs_of.design(raw.w), pivot, penalty[:m])[0]
        params, info = _fit(pairs_of.design(raw.w) if design is raw else design, pivot, penalty, start=start)
        point = np.concatenate([anchored(params), params[m:] * k_to])
        centre = np.eye(m + design.k)
        if ref_index is None:  # ratings relative to the mean of the well-estimated models
            centre[:m, np.flatnonzero(core)] -= 1.0 / max(int(core.sum()), 1)
        if config.interval == "sandwich":
            cov = centre @ _sandwich(design, params, info, pivot) @ centre.T
            half = 1.959964 * np.sqrt(np.clip(np.diag(cov), 0.0, None)) * k_to
            low, high = point - half, point + half
        else:
            rng = np.random.default_rng(config.seed)
            rounds = np.empty((config.bootstrap_rounds, m + design.k))
            if design is raw:
                mean_w = raw.w / cell_n
                resampled = rng.multinomial(n, cell_n / n, size=config.bootstrap_rounds)
            linearized = design is not raw and not config.exact_style_bootstrap
            if linearized:
                free = np.ones(m + design.k, dtype=bool)
                free[pivot] = False
                scores = design.w * (design.y - 1.0 / (1.0 + np.exp(-_eta(design, params))))
                bread = np.linalg.inv(info)
            for i in range(config.bootstrap_rounds):
                if design is raw:
                    theta, _ = _fit(pairs_of.design(resampled[i] * mean_w), pivot, penalty, start=params)
                elif linearized:
                    # Score bootstrap: the resampled votes' gradient at the full-data fit, through the
                    # full-data information (one Newton step with the Hessian held fixed).
                    v = (np.bincount(rng.integers(0, n, n), minlength=n) - 1.0) * scores
                    grad = np.concatenate([np.bincount(design.a, weights=v, minlength=m) - np.bincount(design.b, weights=v, minlength=m),
                                           design.covariates.T @ v])
                    theta = params.copy()
                    theta[free] += bread @ grad[free]
                else:
                    w = np.bincount(rng.integers(0, n, n), minlength=n) * design.w
                    theta, _ = _fit(design, pivot, penalty, start=params, w=w)
                rounds[i] = np.concatenate([anchored(theta), theta[m:] * k_to])
            low, high = np.percentile(rounds, [2.5, 97.5], axis=0)
        # Never narrower than the model-based (Fisher) interval: the sandwich and the bootstrap cannot
        # see the uncertainty of a model whose few votes are ties (p = 0.5 scores nothing) or that a
        # resample leaves out, and all-ties data has no spread at all.
        fisher = _fisher_half_widths(info, pivot, centre, m + design.k)[:m] * k_to
        low[:m] = np.minimum(low[:m], point[:m] - fisher)
        high[:m] = np.maximum(high[:m], point[:m] + fisher)
    else:
        point = np.concatenate([anchored(params), params[m:]])
        low, high = point.copy(), point.copy()
    bounds = _open_bounds(raw, cell_n, params[:m], bounded, votes) if n else {}

    estimable = rankable & bounded
    ranks = _rank_upper_bounds(low[:m], high[:m], estimable)
    anchor_name = anchor.get("model") or "the group holding the most votes"
    shift = float(anchored(params)[0] - params[0] * k_to) if n else 0.0
    rows: list[ModelRating] = []
    for i, name in enumerate(arr.models):
        note = ""
        rating = float(point[i])
        ci_low: float | None = float(low[i])
        ci_high: float | None = float(high[i])
        if votes[i] == 0:
            note = "no votes"
        elif not rankable[i]:
            note = f"not rankable: no chain of battles connects it to {anchor_name}"
        elif not bounded[i]:
            bound = shift + bounds[i] * k_to
            if wins[i]:
                rating, ci_low, ci_high = bound, bound, None
                note = (f"won every battle it had ({int(votes[i])}): its maximum-likelihood rating is unbounded, so it is not "
                        f"ranked; with 97.5% confidence it is at least {bound:.0f}")
            else:
                rating, ci_low, ci_high = bound, None, bound
                note = (f"lost every battle it had ({int(votes[i])}): its maximum-likelihood rating is unbounded below, so "
                        f"it is not ranked; with 97.5% confidence it is at most {bound:.0f}")
        rows.append(ModelRating(name=name, rating=rating, ci_low=ci_low, ci_high=ci_high,
                                rank_ub=int(ranks[i]), votes=int(votes[i]), wins=int(wins[i]), losses=int(losses[i]),
                                ties=int(ties[i]), provisional=bool(votes[i] < config.min_votes), rankable=bool(rankable[i]),
                                note=note, bounded=bool(bounded[i])))
    order = sorted(range(m), key=lambda i: (not estimable[i], not rankable[i], -rows[i].rating))
    coefficients = [StyleCoefficient(feature=f, value=float(point[m + j]), ci_low=float(low[m + j]), ci_high=float(high[m + j]))
                    for j, f in enumerate(names)] if n else []
    win_rate = [[float(won_total[i, j] / battle_count[i, j]) if battle_count[i, j] else None for j in order] for i in order]
    counts = [[int(battle_count[i, j]) for j in order] for i in order]

    interval = (f"bootstrap {config.bootstrap_rounds} rounds seed {config.seed} (percentile"
                + (", one-step score bootstrap" if config.style_control and not config.exact_style_bootstrap else "") + ")"
                if config.interval == "bootstrap" else "sandwich (normal)")
    anchor_text = (f"{anchor['model']} fixed at {config.reference_rating:g} ({anchor['how']})" if ref_index is not None
                   else f"mean of the {int(core.sum())} well-estimated models {config.base:g}"
                        + (f" ({anchor['how']})" if anchor.get("how") else ""))
    method = (f"Bradley-Terry MLE, ties as half, scale {config.scale:g}, anchor: {anchor_text}, 95% intervals: {interval}"
              + " (never narrower than the model-based Fisher interval; open for unbounded models)"
              + (f", style control on {len(names)} z-scored features with L2 {config.l2:g}" if config.style_control else "")
              + (", inverse-propensity weights (counts and matrices are unweighted)" if weighted else ""))
    robustness = _top_robustness(raw, cell_n, cells % len(OUTCOMES), pivot, penalty[:m], arr.models, estimable) if config.robustness and n and estimable.sum() >= 2 else None
    return RatingResult(models=[rows[i] for i in order], coefficients=coefficients, matrix_models=[arr.models[i] for i in order],
                        win_rate=win_rate, battle_count=counts, n_battles=n, config=config.to_dict(), method=method,
                        robustness=robustness, anchor={**anchor, "models": int(core.sum())})


def _top_robustness(raw: _Design, counts: np.ndarray, outcome: np.ndarray, pivot: int, penalty: np.ndarray,
                    models: list[str], rankable: np.ndarray) -> dict[str, Any]:
    """Greedy upper bound on the fewest votes whose removal changes the top raw rating (module doc);
    ``counts`` are the unweighted votes per cell of ``raw`` and ``outcome`` the cells' outcome codes."""
    original = counts
    total = int(counts.sum())
    cap = max(1, int(total * _ROBUSTNESS_CAP))

    def fit(c: np.ndarray, start: np.ndarray | None) -> np.ndarray:
        return _fit(raw, pivot, penalty, start=start, w=c)[0]

    def leader(theta: np.ndarray) -> int:
        return int(np.argmax(np.where(rankable, theta, -np.inf)))

    theta = fit(counts, None)
    top = leader(theta)
    removed = 0
    new_top: int | None = None
    for _ in range(_ROBUSTNESS_STEPS):
        if removed >= cap:
            break
        others = np.where(rankable, theta, -np.inf)
        others[top] = -np.inf
        challenger = int(np.argmax(others))
        p = 1.0 / (1.0 + np.exp(-_eta(raw, theta)))
        free = np.ones(raw.m, dtype=bool)
        free[pivot] = False
        info = _information(raw, counts * p * (1.0 - p))[np.ix_(free, free)] + np.diag(penalty[free])
        direction = np.zeros(raw.m)
        direction[top], direction[challenger] = 1.0, -1.0
        v = np.zeros(raw.m)
        v[free] = np.linalg.solve(info, direction[free])
        per_vote = -(raw.y - p) * (v[raw.a] - v[raw.b])  # change of the gap per removed vote
        per_vote[counts < 1] = np.inf
        best = int(np.argmin(per_vote))
        if per_vote[best] >= 0:
            break
        gap = theta[top] - theta[challenger]
        take = int(min(counts[best], cap - removed, max(1, math.ceil(gap / -per_vote[best]))))
        trial = counts.copy()
        trial[best] -= take
        theta_trial = fit(trial, theta)
        if leader(theta_trial) != top:
            lo, hi = 0, take  # bisection: fewest votes from this cell that still flip
            while hi - lo > 1:
                mid = (lo + hi) // 2
                probe = counts.copy()
                probe[best] -= mid
                if leader(fit(probe, theta)) != top:
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
        "removed_votes": [{"model_a": models[int(raw.a[c])], "model_b": models[int(raw.b[c])], "winner": OUTCOMES[int(outcome[c])],
                           "count": int(original[c] - counts[c])} for c in np.flatnonzero(original > counts)] if flipped else [],
        "method": ("greedy upper bound on the fewest removed votes that change the model with the top raw rating "
                   f"(influence-ranked cells, refit each step, capped at {_ROBUSTNESS_CAP:.0%} of votes and {_ROBUSTNESS_STEPS} steps)"),
    }
