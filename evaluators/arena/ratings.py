"""Arena ratings: Bradley-Terry maximum likelihood with intervals, style control and robustness.

Model: P(a beats b) = 1 / (1 + 10^((R_b - R_a) / scale)); ties and both-bad count as half a win each
way. Internally ratings are natural-log odds ``theta`` (R = anchor + theta * scale / ln 10).

* The raw fit works on aggregated counts of unique (model_a, model_b, outcome) cells, so 1,000,000
  votes among 100 models are at most 39,600 cells. Newton's method with a backtracking line search;
  one model (the reference, else the most-voted) is held at 0 and a tiny L2 penalty (``rating_l2``)
  keeps every rating finite (a model that won every battle has an unbounded maximum-likelihood rating).
* Anchoring: the reference model gets ``reference_rating``; without a reference (or when it has no
  votes in this set) the mean of the rankable models is ``base``.
* 95% intervals: ``bootstrap`` (multinomial resampling of the votes with a fixed seed, drawn over
  (pair, score) classes, or the cells when weighted; all rounds refitted together, warm-started from
  the full fit, by chord steps through its information matrix, Newton for a round those do not
  settle; percentile interval at the plotting positions k / (B + 1)) or ``sandwich`` (H^-1 J H^-1
  from the per-vote scores, which is right under ties and inverse-propensity weights; normal
  interval). A tie scores a half, whose variance is below the Fisher information's p (1 - p), so a
  model-based (Fisher) interval is too wide when ties are frequent (99% coverage at 30% ties); these
  two see the scores' real spread. Only a provisional model (fewer than ``min_votes`` votes), whose
  few votes cannot show their spread (one tie scores exactly p = 1/2), is never narrower than the
  model-based interval with ties: each vote's variance p (1 - p) - t/4, t the arena's tie share.
  Coverage on simulated arenas: 94-96% (``bench/bench_intervals.py``).
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
* Withheld models (``withheld``: pre-release variants under anonymous testing): their votes stay in the
  fit (they are real battles, and leaving them out would move every opponent's rating), but nothing
  public is about them: they are never the anchor nor among the well-estimated models that set the
  scale, ranks count only the models shown, the matrices leave them out, the robustness search never
  names them as leader (a removed vote against one names "a withheld model"), and their rows come back
  apart, in ``RatingResult.withheld``, ranked as if shown among the others (for publishing at release).

The votes, configuration and results are defined in :mod:`evaluators.arena.rating_types` (and named
here), the Newton fit and its intervals in :mod:`evaluators.arena.bradley_terry`, the robustness
search in :mod:`evaluators.arena.robustness`; this module anchors, ranks and assembles the result,
in parts named for their step: the votes counted per cell (:func:`_count_cells`), which models are
rankable, bounded and well estimated and the anchor (:func:`_standing`), the likelihoods
(:func:`_designs`), log-odds to anchored points (:class:`_Scale`), the fit with its intervals
(:func:`_fit_with_intervals`: :func:`_sandwich_bounds`, or :func:`_bootstrap_rounds` and
:func:`_percentile_bounds`, then :func:`_provisional_floor`), the rows (:func:`_model_rows`) and the
method's text (:func:`_method_text`).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evaluators.arena.bradley_terry import (
    Design,
    PairDesign,
    linear_predictor,
    model_half_widths,
    open_bounds,
    pair_fits,
    penalised_fit,
    sandwich_covariance,
)
from evaluators.arena.rating_types import (
    OUTCOMES,
    BattleArrays,
    BattleRecord,
    ModelRating,
    RatingConfig,
    RatingResult,
    StyleCoefficient,
)
from evaluators.arena.resample import multinomial_counts
from evaluators.arena.robustness import top_robustness

__all__ = [
    "OUTCOMES",
    "BattleArrays",
    "BattleRecord",
    "ModelRating",
    "RatingConfig",
    "RatingResult",
    "StyleCoefficient",
    "rate",
]

_SCORE = np.array([1.0, 0.0, 0.5, 0.5])  # model_a's share of the win per outcome code
_LN10 = math.log(10.0)


# ---------------------------------------------------------------- helpers


def _components(m: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected components of the battle graph; ``a``/``b`` list each played pair (repeats allowed).
    Each model's label is the lowest model index in its component: every model takes the lowest label
    among itself and its opponents, then follows its label's label, until nothing changes."""
    label = np.arange(m)
    while True:
        new = label.copy()
        np.minimum.at(new, a, label[b])
        np.minimum.at(new, b, label[a])
        new = new[new]
        if np.array_equal(new, label):
            return label
        label = new


def _rank_upper_bounds(
    low: np.ndarray, high: np.ndarray, rankable: np.ndarray, among: np.ndarray | None = None
) -> np.ndarray:
    """1 + the models of ``among`` (default: the rankable ones) whose lower bound is above this one's
    upper bound, for each rankable model; the others rank after all of ``among``."""
    ranks = np.empty(len(low), dtype=np.int64)
    ok = np.flatnonzero(rankable if among is None else among)
    for i in range(len(low)):
        ranks[i] = 1 + int(np.sum(low[ok] > high[i])) if rankable[i] else len(ok) + 1
    return ranks


#: rows of the style covariates computed at a time (their float64 temporaries stay this small)
_COVARIATE_ROWS = 262_144


def _style_covariates(arr: BattleArrays, names: tuple[str, ...]) -> np.ndarray:
    """The z-scored covariates (f_a - f_b) / (f_a + f_b + 1), in float64 whatever the features' dtype
    (float32 from the ratings task's typed read: exact for integer-valued features), computed in blocks
    of rows so that the only array of the votes' size is the result."""
    if arr.features_a is None or arr.features_b is None:
        raise ValueError("style_control: the battles carry no style features")
    col = [arr.feature_names.index(f) if f in arr.feature_names else None for f in names]
    missing = [f for f, c in zip(names, col) if c is None]
    if missing:
        raise ValueError(f"style_features: not in the battles' features: {', '.join(missing)}")
    cols = [c for c in col if c is not None]
    whole = cols == list(range(arr.features_a.shape[1]))
    n = len(arr)
    x: np.ndarray = np.empty((n, len(cols)))
    for lo in range(0, n, _COVARIATE_ROWS):
        fa = np.asarray(arr.features_a[lo : lo + _COVARIATE_ROWS], dtype=np.float64)
        fb = np.asarray(arr.features_b[lo : lo + _COVARIATE_ROWS], dtype=np.float64)
        if not whole:
            fa, fb = fa[:, cols], fb[:, cols]
        part = x[lo : lo + _COVARIATE_ROWS]
        np.subtract(fa, fb, out=part)
        part /= fa + fb + 1.0
    mean = x.mean(axis=0)
    squares = np.zeros(len(cols))
    for lo in range(0, n, _COVARIATE_ROWS):
        deviation = x[lo : lo + _COVARIATE_ROWS] - mean
        squares += np.einsum("ij,ij->j", deviation, deviation)
    std = np.sqrt(squares / n) if n else np.zeros(len(cols))
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


def _anchor(
    models: list[str],
    config: RatingConfig,
    votes: np.ndarray,
    battle_count: np.ndarray,
    core: np.ndarray,
    shown: np.ndarray,
) -> tuple[int | None, dict[str, Any]]:
    """The reference model's index (None: the mean of the well-estimated models) and what the page
    says about it. A configured reference that is not well estimated is not used; without a usable one,
    ``auto_reference`` takes the best-connected well-estimated model (most opponents, then most votes).
    ``core`` holds only shown models; a withheld reference is not used and not named."""
    why_not = ""
    if config.reference in models and not shown[models.index(config.reference)]:
        why_not = "the configured reference is withheld from the board, so it is not used"
    elif config.reference in models:
        index = models.index(config.reference)
        if core[index]:
            return index, {
                "kind": "reference",
                "model": config.reference,
                "rating": config.reference_rating,
                "how": "configured",
            }
        why_not = (
            f"the configured reference {config.reference} is not well estimated "
            f"({int(votes[index])} votes, provisional or with only wins or losses), so it is not used"
        )
    if config.auto_reference and core.any():
        # counted among the well-estimated models only, so that a new model's votes cannot change the choice
        among = battle_count[np.ix_(core, core)]
        opponents, core_votes = (among > 0).sum(axis=1), among.sum(axis=1)
        ranked = max(range(len(among)), key=lambda j: (int(opponents[j]), int(core_votes[j]), -j))
        index = int(np.flatnonzero(core)[ranked])
        how = (f"{why_not}; " if why_not else "") + (
            f"the best-connected well-estimated model: {int(opponents[ranked])} "
            f"opponents and {int(core_votes[ranked])} votes among them"
        )
        return index, {"kind": "reference", "model": models[index], "rating": config.reference_rating, "how": how}
    return None, {"kind": "mean", "model": "", "rating": config.base, "how": why_not}


#: a bootstrap round stops when its step is below this (log-odds, 1.7e-6 rating points at scale 400):
#: the chord steps shrink by a factor of ten or more each, so the round ends within about 1e-9 of its
#: optimum
_ROUND_TOL = 1e-8


def _raw_bootstrap(
    raw: Design,
    cell_n: np.ndarray,
    weighted: bool,
    rng: np.random.Generator,
    rounds: int,
    pivot: int,
    penalty: np.ndarray,
    start: np.ndarray,
) -> np.ndarray:
    """The raw fit's bootstrap rounds (a row of parameters each): the votes resampled with replacement
    as multinomial counts (:func:`multinomial_counts`: exact, by its Poisson split), refitted together
    (:func:`pair_fits`). Unweighted, a vote adds only its pair and its score to the likelihood, so the
    draw is over (unordered pair, score) classes: the same distribution as over the (model_a, model_b,
    outcome) cells, with up to 8 cells per pair merged into 3. Weighted, each cell's votes have their
    own mean weight, so the draw is over the cells."""
    if weighted:
        resampled = multinomial_counts(rng, cell_n, rounds)
        return pair_fits(PairDesign(raw), resampled * (raw.w / cell_n), pivot, penalty, start=start, tol=_ROUND_TOL)
    m = raw.m
    lower_score = np.where(raw.a < raw.b, raw.y, 1.0 - raw.y)
    key = (np.maximum(raw.a, raw.b) * m + np.minimum(raw.a, raw.b)) * 3 + np.rint(2.0 * lower_score).astype(np.int64)
    classes, of = np.unique(key, return_inverse=True)
    counts = np.bincount(of, weights=cell_n, minlength=len(classes))
    merged = Design(m=m, a=classes // 3 % m, b=classes // 3 // m, y=(classes % 3) / 2.0, w=counts, w2=counts)
    resampled = multinomial_counts(rng, counts, rounds)
    return pair_fits(PairDesign(merged), resampled.astype(float), pivot, penalty, start=start, tol=_ROUND_TOL)


# ---------------------------------------------------------------- public entry point


def rate(
    battles: Sequence[BattleRecord] | BattleArrays,
    config: RatingConfig | None = None,
    *,
    withheld: Collection[str] = (),
) -> RatingResult:
    """Ratings with 95% intervals, ranks, counts, matrices and (optionally) style coefficients; the
    models named in ``withheld`` are fitted but kept apart (module doc). The linear algebra runs on one
    BLAS thread: the work is many small solves, which threads slow down (2.7x under load), and the limit
    holds only while this call runs. ``withheld`` is not part of the config: the config is published."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _rate(battles, config or RatingConfig(), frozenset(withheld))


#: how a withheld model is named where the public result must mention one (a robustness search's removed votes)
WITHHELD_NAME = "a withheld model"


# ---------------------------------------------------------------- the parts of a rating, in order


@dataclass(frozen=True)
class _Cells:
    """The votes counted per (model_a, model_b, outcome) cell, and every count drawn from the cells:
    per model (votes, wins, losses, ties) and per ordered pair of models (battles, and the row
    model's wins with ties as half)."""

    keys: np.ndarray  # (a * m + b) * len(OUTCOMES) + outcome, ascending
    of_vote: np.ndarray | None  # each vote's cell, when the counting sorted the votes (else None)
    n: np.ndarray  # votes per cell (float)
    a: np.ndarray
    b: np.ndarray
    outcome: np.ndarray
    votes: np.ndarray
    wins: np.ndarray
    losses: np.ndarray
    ties: np.ndarray
    battle_count: np.ndarray  # (m, m): battles between i and j, either side
    won_total: np.ndarray  # (m, m): i's wins against j, ties as half

    @property
    def tie_share(self) -> float:
        """The share of ties among all votes, by Laplace's rule ((ties + 1) / (votes + 2))."""
        return (float(self.n[self.outcome >= 2].sum()) + 1.0) / (float(self.n.sum()) + 2.0)


def _count_cells(arr: BattleArrays) -> _Cells:
    """Every count the rating needs, from one pass over the votes (a bincount when the key space is
    small, a sort otherwise)."""
    m, n, k_out = len(arr.models), len(arr), len(OUTCOMES)
    cell_key = (arr.a * m + arr.b) * k_out + arr.outcome
    of_vote: np.ndarray | None = None
    if m * m * k_out <= 4 * n + 1_000_000:  # small key space: counting beats sorting
        present = np.bincount(cell_key, minlength=m * m * k_out)
        keys = np.flatnonzero(present)
        cell_n = present[keys].astype(float)
    else:
        keys, of_vote, counted = np.unique(cell_key, return_inverse=True, return_counts=True)
        cell_n = counted.astype(float)
    del cell_key
    a, b, o = keys // k_out // m, keys // k_out % m, keys % k_out
    votes = (np.bincount(a, weights=cell_n, minlength=m) + np.bincount(b, weights=cell_n, minlength=m)).astype(np.int64)
    wins = np.bincount(a, weights=cell_n * (o == 0), minlength=m) + np.bincount(
        b, weights=cell_n * (o == 1), minlength=m
    )
    losses = np.bincount(a, weights=cell_n * (o == 1), minlength=m) + np.bincount(
        b, weights=cell_n * (o == 0), minlength=m
    )
    count = np.rint(np.bincount(a * m + b, weights=cell_n, minlength=m * m)).astype(np.int64).reshape(m, m)
    won = np.bincount(a * m + b, weights=cell_n * _SCORE[o], minlength=m * m).reshape(m, m)
    return _Cells(
        keys=keys,
        of_vote=of_vote,
        n=cell_n,
        a=a,
        b=b,
        outcome=o,
        votes=votes,
        wins=wins,
        losses=losses,
        ties=votes - wins - losses,
        battle_count=count + count.T,
        won_total=won + (count.T - won.T),
    )


@dataclass(frozen=True)
class _Standing:
    """Which models can be compared with the anchor at all (``rankable``: connected to it by battles),
    which have a finite maximum-likelihood rating (``bounded``: not only wins or only losses), which
    are shown (not withheld), which are well estimated (``core``: they set the scale; the others are
    placed on it without moving it), the anchor (``ref_index``, None for the mean of ``core``, and
    what the page says about it) and the model held at 0 in the fit (``pivot``)."""

    rankable: np.ndarray
    bounded: np.ndarray
    shown: np.ndarray
    core: np.ndarray
    ref_index: int | None
    anchor: dict[str, Any]
    pivot: int

    @property
    def estimable(self) -> np.ndarray:
        estimable: np.ndarray = self.rankable & self.bounded
        return estimable


def _standing(arr: BattleArrays, cells: _Cells, config: RatingConfig, withheld: frozenset[str]) -> _Standing:
    m, n, votes = len(arr.models), len(arr), cells.votes
    played = np.unique(np.minimum(cells.a, cells.b) * m + np.maximum(cells.a, cells.b))
    comp = _components(m, played // m, played % m)
    if n == 0:
        rankable = np.zeros(m, dtype=bool)
    else:
        comp_votes = np.bincount(comp, weights=votes, minlength=m)
        configured = arr.models.index(config.reference) if config.reference in arr.models else None
        home = comp[configured] if configured is not None and votes[configured] else int(np.argmax(comp_votes))
        rankable = (comp == home) & (votes > 0)
    bounded = ~((votes > 0) & (cells.ties == 0) & ((cells.wins == 0) | (cells.losses == 0)))
    shown = np.array([name not in withheld for name in arr.models], dtype=bool)
    # only shown models set the scale: a withheld one is never the anchor nor in the mean
    core = _well_estimated(rankable & shown, bounded, votes, config.min_votes)
    ref_index, anchor = _anchor(arr.models, config, votes, cells.battle_count, core, shown)
    pivot = ref_index if ref_index is not None else int(np.argmax(np.where(core, votes, -1))) if n else 0
    return _Standing(
        rankable=rankable, bounded=bounded, shown=shown, core=core, ref_index=ref_index, anchor=anchor, pivot=pivot
    )


@dataclass(frozen=True)
class _Designs:
    """The likelihoods the rating fits: ``raw`` on the cells (with ``pairs``, the same on unordered
    pairs), and ``fit``, the one whose parameters are reported: ``raw`` itself, or the per-vote design
    with style covariates (``style_names``); ``penalty`` on every parameter; ``weighted`` when the
    votes count their inverse-propensity weights."""

    raw: Design
    pairs: PairDesign
    fit: Design
    penalty: np.ndarray
    weighted: bool
    style_names: tuple[str, ...]

    @property
    def on_cells(self) -> bool:
        return self.fit is self.raw


def _designs(arr: BattleArrays, cells: _Cells, config: RatingConfig) -> _Designs:
    m, n = len(arr.models), len(arr)
    weighted = bool(config.use_weights and arr.weights is not None and n)
    weights = arr.weights / arr.weights.mean() if weighted and arr.weights is not None else None
    if weights is None:
        raw = Design(m=m, a=cells.a, b=cells.b, y=_SCORE[cells.outcome], w=cells.n, w2=cells.n)
    else:
        of_vote = cells.of_vote
        if of_vote is None:  # the cells were counted: index each vote's cell
            lookup = np.zeros(m * m * len(OUTCOMES), dtype=np.int64)
            lookup[cells.keys] = np.arange(len(cells.keys))
            of_vote = lookup[(arr.a * m + arr.b) * len(OUTCOMES) + arr.outcome]
        raw = Design(
            m=m,
            a=cells.a,
            b=cells.b,
            y=_SCORE[cells.outcome],
            w=np.bincount(of_vote, weights=weights, minlength=len(cells.keys)),
            w2=np.bincount(of_vote, weights=weights * weights, minlength=len(cells.keys)),
        )
    names = config.style_features if config.style_control else ()
    if config.style_control and n:
        ones = np.ones(n) if weights is None else weights
        fit = Design(
            m=m, a=arr.a, b=arr.b, y=_SCORE[arr.outcome], w=ones, w2=ones * ones, x=_style_covariates(arr, names)
        )
    else:
        fit = raw
    penalty = np.concatenate([np.full(m, config.rating_l2), np.full(fit.k, config.l2)])
    # the raw likelihood on (unordered) pairs: 4,950 rows for 100 models
    return _Designs(raw=raw, pairs=PairDesign(raw), fit=fit, penalty=penalty, weighted=weighted, style_names=names)


@dataclass(frozen=True)
class _Scale:
    """Log-odds to rating points: ``k_to`` points per unit, the anchor (``ref_index`` at
    ``reference_rating``, else the mean of ``core`` at ``base``) applied to the ratings, in the fit
    and in every bootstrap round; style coefficients are only scaled."""

    m: int
    k_to: float
    ref_index: int | None
    core: np.ndarray
    reference_rating: float
    base: float

    def ratings(self, theta: np.ndarray) -> np.ndarray:
        ratings: np.ndarray = theta[: self.m] * self.k_to
        if self.ref_index is not None:
            shift = self.reference_rating - float(ratings[self.ref_index])
        else:  # the mean of the well-estimated models
            shift = self.base - (float(ratings[self.core].mean()) if self.core.any() else 0.0)
        shifted: np.ndarray = ratings + shift
        return shifted

    def points(self, params: np.ndarray) -> np.ndarray:
        """Every parameter in points: anchored ratings, then the scaled style coefficients."""
        return np.concatenate([self.ratings(params), params[self.m :] * self.k_to])

    def centre(self, size: int) -> np.ndarray:
        """The linear map from the fit's parameters (pivot at 0) to the anchored ones (up to the shift)."""
        centre = np.eye(size)
        if self.ref_index is None:  # ratings relative to the mean of the well-estimated models
            centre[: self.m, np.flatnonzero(self.core)] -= 1.0 / max(int(self.core.sum()), 1)
        return centre


@dataclass(frozen=True)
class _Fitted:
    """The fitted parameters (log-odds), and every parameter's point and 95% bounds in points."""

    params: np.ndarray
    point: np.ndarray
    low: np.ndarray
    high: np.ndarray


def _full_fit(designs: _Designs, pivot: int) -> tuple[np.ndarray, np.ndarray]:
    """The penalised maximum-likelihood fit and its information (free parameters): on the pairs for
    the raw model; on the votes for style control, started from the cheap raw fit."""
    raw, m = designs.raw, designs.raw.m
    if designs.on_cells:
        return penalised_fit(designs.pairs.design(raw.w), pivot, designs.penalty)
    start = np.zeros(m + designs.fit.k)
    start[:m] = penalised_fit(designs.pairs.design(raw.w), pivot, designs.penalty[:m])[0]
    return penalised_fit(designs.fit, pivot, designs.penalty, start=start)


def _sandwich_bounds(
    designs: _Designs,
    params: np.ndarray,
    info: np.ndarray,
    pivot: int,
    centre: np.ndarray,
    point: np.ndarray,
    k_to: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The normal interval from H^-1 J H^-1, J from the votes' own scores."""
    cov = centre @ sandwich_covariance(designs.fit, params, info, pivot) @ centre.T
    half = 1.959964 * np.sqrt(np.clip(np.diag(cov), 0.0, None)) * k_to
    return point - half, point + half


def _bootstrap_rounds(
    designs: _Designs,
    cells: _Cells,
    params: np.ndarray,
    info: np.ndarray,
    pivot: int,
    scale: _Scale,
    config: RatingConfig,
) -> np.ndarray:
    """Every bootstrap round's parameters in points (a row each): the raw model's rounds refitted
    together from the full fit; with style control a one-step score bootstrap, or (``exact_style_bootstrap``)
    a refit of the votes per round."""
    fit, m = designs.fit, designs.raw.m
    rng = np.random.default_rng(config.seed)
    rounds = np.empty((config.bootstrap_rounds, m + fit.k))
    if designs.on_cells:  # every round's refit at once, warm-started from the full fit
        refits = _raw_bootstrap(
            designs.raw, cells.n, designs.weighted, rng, config.bootstrap_rounds, pivot, designs.penalty, params
        )
        for i, theta in enumerate(refits):
            rounds[i] = scale.points(theta)
        return rounds
    n = len(fit.a)
    if config.exact_style_bootstrap:
        for i in range(config.bootstrap_rounds):
            w = np.bincount(rng.integers(0, n, n), minlength=n) * fit.w
            rounds[i] = scale.points(penalised_fit(fit, pivot, designs.penalty, start=params, w=w)[0])
        return rounds
    # Score bootstrap: the resampled votes' gradient at the full-data fit, through the full-data
    # information (one Newton step with the Hessian held fixed).
    free = np.ones(m + fit.k, dtype=bool)
    free[pivot] = False
    scores = fit.w * (fit.y - 1.0 / (1.0 + np.exp(-linear_predictor(fit, params))))
    bread = np.linalg.inv(info)
    for i in range(config.bootstrap_rounds):
        v = (np.bincount(rng.integers(0, n, n), minlength=n) - 1.0) * scores
        grad = np.concatenate(
            [
                np.bincount(fit.a, weights=v, minlength=m) - np.bincount(fit.b, weights=v, minlength=m),
                fit.covariates.T @ v,
            ]
        )
        theta = params.copy()
        theta[free] += bread @ grad[free]
        rounds[i] = scale.points(theta)
    return rounds


def _percentile_bounds(rounds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The 2.5% and 97.5% points at the plotting positions k / (B + 1): with B rounds the k-th
    smallest of them lies, on average, below k / (B + 1) of the distribution, so the interval holds
    95% of it on average; numpy's default positions ((k - 1) / (B - 1)) hold 93.1% with 100 rounds,
    and the intervals covered 93-94% in the simulations (bench/bench_intervals.py)."""
    low, high = np.percentile(rounds, [2.5, 97.5], axis=0, method="weibull")
    return low, high


def _provisional_floor(
    designs: _Designs,
    cells: _Cells,
    fitted: _Fitted,
    info: np.ndarray,
    pivot: int,
    centre: np.ndarray,
    config: RatingConfig,
    k_to: float,
) -> None:
    """A provisional model (fewer than min_votes votes) is never narrower than the model-based
    interval with ties: its few votes cannot show their own spread to the sandwich or the bootstrap
    (one tie scores exactly p = 1/2, and every resample of it is the same tie). The tie share is the
    arena's, by Laplace's rule. Well-voted models keep the sandwich's or the bootstrap's interval: a
    floor on them only widens (with the Fisher interval as the floor, 30% ties covered 99%).
    Widens ``fitted``'s bounds in place."""
    m = designs.raw.m
    few = cells.votes < config.min_votes
    if not few.any():
        return
    floor = model_half_widths(designs.fit, fitted.params, info, pivot, centre, cells.tie_share)[:m] * k_to
    fitted.low[:m] = np.where(few, np.minimum(fitted.low[:m], fitted.point[:m] - floor), fitted.low[:m])
    fitted.high[:m] = np.where(few, np.maximum(fitted.high[:m], fitted.point[:m] + floor), fitted.high[:m])


def _fit_with_intervals(
    designs: _Designs, cells: _Cells, standing: _Standing, scale: _Scale, config: RatingConfig
) -> _Fitted:
    """The fit and every parameter's 95% interval (module doc): the bootstrap's percentiles or the
    sandwich, then the provisional models' floor. With no votes, every model at the anchor."""
    size = designs.raw.m + designs.fit.k
    params = np.zeros(size)
    if not len(cells.n):
        point = scale.points(params)
        return _Fitted(params=params, point=point, low=point.copy(), high=point.copy())
    pivot = standing.pivot
    params, info = _full_fit(designs, pivot)
    point = scale.points(params)
    centre = scale.centre(size)
    if config.interval == "sandwich":
        low, high = _sandwich_bounds(designs, params, info, pivot, centre, point, scale.k_to)
    else:
        low, high = _percentile_bounds(_bootstrap_rounds(designs, cells, params, info, pivot, scale, config))
    fitted = _Fitted(params=params, point=point, low=low, high=high)
    _provisional_floor(designs, cells, fitted, info, pivot, centre, config, scale.k_to)
    return fitted


def _model_rows(
    arr: BattleArrays,
    cells: _Cells,
    raw: Design,
    standing: _Standing,
    fitted: _Fitted,
    shift: float,
    k_to: float,
    min_votes: int,
) -> list[ModelRating]:
    """A row per model, in the data's order: its rating and interval (an open bound instead for a
    model with only wins or only losses), its rank upper bound among the shown models, counts and note."""
    m, votes = len(arr.models), cells.votes
    bounds = open_bounds(raw, cells.n, fitted.params[:m], standing.bounded, votes) if len(cells.n) else {}
    estimable = standing.estimable
    # ranks among the shown models; a withheld model's rank is where it would stand among them
    ranks = _rank_upper_bounds(fitted.low[:m], fitted.high[:m], estimable, among=estimable & standing.shown)
    anchor_name = standing.anchor.get("model") or "the group holding the most votes"
    rows: list[ModelRating] = []
    for i, name in enumerate(arr.models):
        note = ""
        rating = float(fitted.point[i])
        ci_low: float | None = float(fitted.low[i])
        ci_high: float | None = float(fitted.high[i])
        if votes[i] == 0:
            note = "no votes"
        elif not standing.rankable[i]:
            note = f"not rankable: no chain of battles connects it to {anchor_name}"
        elif not standing.bounded[i]:
            bound = shift + bounds[i] * k_to
            if cells.wins[i]:
                rating, ci_low, ci_high = bound, bound, None
                note = (
                    f"won every battle it had ({int(votes[i])}): its maximum-likelihood rating is unbounded, so it is "
                    f"not "
                    f"ranked; with 97.5% confidence it is at least {bound:.0f}"
                )
            else:
                rating, ci_low, ci_high = bound, None, bound
                note = (
                    f"lost every battle it had ({int(votes[i])}): its maximum-likelihood rating is unbounded below, so "
                    f"it is not ranked; with 97.5% confidence it is at most {bound:.0f}"
                )
        rows.append(
            ModelRating(
                name=name,
                rating=rating,
                ci_low=ci_low,
                ci_high=ci_high,
                rank_ub=int(ranks[i]),
                votes=int(votes[i]),
                wins=int(cells.wins[i]),
                losses=int(cells.losses[i]),
                ties=int(cells.ties[i]),
                provisional=bool(votes[i] < min_votes),
                rankable=bool(standing.rankable[i]),
                note=note,
                bounded=bool(standing.bounded[i]),
            )
        )
    return rows


def _method_text(config: RatingConfig, standing: _Standing, designs: _Designs) -> str:
    """What the page says about how the ratings were computed."""
    interval = (
        f"bootstrap {config.bootstrap_rounds} rounds seed {config.seed} (percentile"
        + (", one-step score bootstrap" if config.style_control and not config.exact_style_bootstrap else "")
        + ")"
        if config.interval == "bootstrap"
        else "sandwich (normal)"
    )
    anchor = standing.anchor
    anchor_text = (
        f"{anchor['model']} fixed at {config.reference_rating:g} ({anchor['how']})"
        if standing.ref_index is not None
        else f"mean of the {int(standing.core.sum())} well-estimated models {config.base:g}"
        + (f" ({anchor['how']})" if anchor.get("how") else "")
    )
    names = designs.style_names
    return (
        f"Bradley-Terry MLE, ties as half, scale {config.scale:g}, anchor: {anchor_text}, 95% intervals: {interval}"
        + f" (provisional models, below {config.min_votes} votes: never narrower than the model-based interval with"
        + " the share of ties among all votes; open for unbounded models)"
        + (f", style control on {len(names)} z-scored features with L2 {config.l2:g}" if config.style_control else "")
        + (", inverse-propensity weights (counts and matrices are unweighted)" if designs.weighted else "")
    )


def _rate(
    battles: Sequence[BattleRecord] | BattleArrays, config: RatingConfig, withheld: frozenset[str]
) -> RatingResult:
    """:func:`rate`'s work, in order: count the votes per cell, settle which models are rankable and
    the anchor, build the likelihoods, fit with intervals, then rows, ranks, matrices and robustness."""
    if isinstance(battles, BattleArrays):
        arr = battles
    else:
        arr = BattleArrays.from_records(list(battles), config.style_features if config.style_control else ())
    m, n = len(arr.models), len(arr)
    if config.reference is not None and config.reference not in arr.models and n:
        raise ValueError(f"reference: model {config.reference!r} is not among the rated models")
    k_to = 1.0 / _LN10 * config.scale  # log-odds -> rating points

    cells = _count_cells(arr)
    standing = _standing(arr, cells, config, withheld)
    designs = _designs(arr, cells, config)
    scale = _Scale(
        m=m,
        k_to=k_to,
        ref_index=standing.ref_index,
        core=standing.core,
        reference_rating=config.reference_rating,
        base=config.base,
    )
    fitted = _fit_with_intervals(designs, cells, standing, scale, config)
    shift = float(scale.ratings(fitted.params)[0] - fitted.params[0] * k_to) if n else 0.0
    rows = _model_rows(arr, cells, designs.raw, standing, fitted, shift, k_to, config.min_votes)

    estimable, shown = standing.estimable, standing.shown
    order = sorted(
        (i for i in range(m) if shown[i]), key=lambda i: (not estimable[i], not standing.rankable[i], -rows[i].rating)
    )
    apart = sorted(
        (i for i in range(m) if not shown[i]),
        key=lambda i: (not estimable[i], not standing.rankable[i], -rows[i].rating),
    )
    coefficients = (
        [
            StyleCoefficient(
                feature=f,
                value=float(fitted.point[m + j]),
                ci_low=float(fitted.low[m + j]),
                ci_high=float(fitted.high[m + j]),
            )
            for j, f in enumerate(designs.style_names)
        ]
        if n
        else []
    )
    battle_count, won_total = cells.battle_count, cells.won_total
    win_rate = [
        [float(won_total[i, j] / battle_count[i, j]) if battle_count[i, j] else None for j in order] for i in order
    ]
    counts = [[int(battle_count[i, j]) for j in order] for i in order]
    leaders = estimable & shown
    robustness = None
    if config.robustness and n and leaders.sum() >= 2:
        public_names = [name if shown[i] else WITHHELD_NAME for i, name in enumerate(arr.models)]
        robustness = top_robustness(
            designs.raw, cells.n, cells.keys % len(OUTCOMES), standing.pivot, designs.penalty[:m], public_names, leaders
        )
    return RatingResult(
        models=[rows[i] for i in order],
        coefficients=coefficients,
        matrix_models=[arr.models[i] for i in order],
        win_rate=win_rate,
        battle_count=counts,
        n_battles=n,
        config=config.to_dict(),
        method=_method_text(config, standing, designs),
        robustness=robustness,
        anchor={**standing.anchor, "models": int(standing.core.sum())},
        withheld=[rows[i] for i in apart],
    )
