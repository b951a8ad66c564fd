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
  ``l2`` on their coefficients, fitted on the individual votes by the same Newton steps (started from
  the raw fit), a chunk of votes at a time (``vote_fit``: no array of the votes times the features).
  The sandwich is one extra pass. The bootstrap resamples votes; refitting every round costs about
  one full fit per round (minutes on 1M votes, ``exact_style_bootstrap=True``), so by
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
here), the Newton fit and its intervals in :mod:`evaluators.arena.bradley_terry` (on the votes, with
style control: :mod:`evaluators.arena.vote_fit`, a chunk of votes at a time), the robustness search in
:mod:`evaluators.arena.robustness`, the counting and placing of the models in
:mod:`evaluators.arena.rating_parts` (the votes counted per cell, which models are rankable, bounded
and well estimated, the anchor, the rows); this module fits and assembles the result, in parts named
for their step: the likelihoods (:func:`_designs`), log-odds to anchored points (:class:`_Scale`),
the fit with its intervals (:func:`_fit_with_intervals`: :func:`_sandwich_bounds`, or
:func:`_bootstrap_rounds` and :func:`_percentile_bounds`, then :func:`_provisional_floor`), and the
method's text (:func:`_method_text`). ``rate(start=...)`` starts the full fit from an earlier one's
parameters (``RatingResult.fitted``).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evaluators.arena.bradley_terry import (
    Design,
    PairDesign,
    model_half_widths,
    pair_fits,
    penalised_fit,
    sandwich_covariance,
)
from evaluators.arena.rating_parts import Cells, Fitted, Standing, count_cells, model_rows, standing_of
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
from evaluators.arena.vote_fit import VoteDesign, exact_rounds, score_rounds, vote_fit

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
    start: Mapping[str, Mapping[str, float]] | None = None,
) -> RatingResult:
    """Ratings with 95% intervals, ranks, counts, matrices and (optionally) style coefficients; the
    models named in ``withheld`` are fitted but kept apart (module doc). The linear algebra runs on one
    BLAS thread: the work is many small solves, which threads slow down (2.7x under load), and the limit
    holds only while this call runs. ``withheld`` is not part of the config: the config is published.

    ``start``: an earlier fit's parameters (``RatingResult.fitted``, e.g. before a few more votes came):
    the full fit starts from them (models and features they do not name from the raw fit), so that it
    converges in a step or two; the optimum, and so every figure, is the same to the fit's tolerance."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _rate(battles, config or RatingConfig(), frozenset(withheld), start)


#: how a withheld model is named where the public result must mention one (a robustness search's removed votes)
WITHHELD_NAME = "a withheld model"


# ---------------------------------------------------------------- the parts of a rating, in order


@dataclass(frozen=True)
class _Designs:
    """The likelihoods the rating fits: ``raw`` on the cells (with ``pairs``, the same on unordered
    pairs), and ``fit``, the one whose parameters are reported: ``raw`` itself, or the per-vote design
    with style covariates (``style_names``); ``penalty`` on every parameter; ``weighted`` when the
    votes count their inverse-propensity weights."""

    raw: Design
    pairs: PairDesign
    fit: Design | VoteDesign
    penalty: np.ndarray
    weighted: bool
    style_names: tuple[str, ...]

    @property
    def on_cells(self) -> bool:
        return self.fit is self.raw


def _designs(arr: BattleArrays, cells: Cells, config: RatingConfig) -> _Designs:
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
    fit: Design | VoteDesign = VoteDesign.build(arr, names, weights) if config.style_control and n else raw
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


def _full_fit(designs: _Designs, pivot: int, warm: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The penalised maximum-likelihood fit and its information (free parameters): on the pairs for
    the raw model; on the votes for style control, started from the cheap raw fit. ``warm``: an earlier
    fit's parameters (NaN where it had none), the start where given."""
    raw, m, fit = designs.raw, designs.raw.m, designs.fit
    pairs = designs.pairs.design(raw.w)
    known = None if warm is None or np.isnan(warm[pivot]) else warm - warm[pivot]
    if not isinstance(fit, VoteDesign):
        start = None if known is None else np.nan_to_num(known)
        return penalised_fit(pairs, pivot, designs.penalty, start=start)
    start = np.zeros(m + fit.k)
    start[:m] = penalised_fit(pairs, pivot, designs.penalty[:m])[0]
    if known is not None:
        start = np.where(np.isnan(known), start, known)
    return vote_fit(fit, pivot, designs.penalty, start)


def _warm(arr: BattleArrays, names: tuple[str, ...], start: Mapping[str, Mapping[str, float]] | None) -> Any:
    """An earlier fit's parameters (``rate(start=...)``) in this fit's order, NaN for what it did not fit."""
    if not start:
        return None
    models, coefficients = start.get("models", {}), start.get("coefficients", {})
    return np.array([models.get(name, np.nan) for name in arr.models] + [coefficients.get(f, np.nan) for f in names])


def _fitted(arr: BattleArrays, names: tuple[str, ...], params: np.ndarray) -> dict[str, dict[str, float]]:
    """``RatingResult.fitted``: the parameters by model and feature name."""
    m = len(arr.models)
    return {
        "models": {name: float(params[i]) for i, name in enumerate(arr.models)},
        "coefficients": {f: float(params[m + j]) for j, f in enumerate(names)},
    }


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
    cells: Cells,
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
    if not isinstance(fit, VoteDesign):  # every round's refit at once, warm-started from the full fit
        refits = _raw_bootstrap(
            designs.raw, cells.n, designs.weighted, rng, config.bootstrap_rounds, pivot, designs.penalty, params
        )
    elif config.exact_style_bootstrap:
        refits = exact_rounds(fit, params, pivot, designs.penalty, rng, config.bootstrap_rounds)
    else:  # the score bootstrap: one Newton step per round with the Hessian held fixed
        refits = score_rounds(fit, params, info, pivot, rng, config.bootstrap_rounds)
    rounds = np.empty((config.bootstrap_rounds, m + fit.k))
    for i, theta in enumerate(refits):
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
    cells: Cells,
    fitted: Fitted,
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
    designs: _Designs, cells: Cells, standing: Standing, scale: _Scale, config: RatingConfig, warm: Any
) -> Fitted:
    """The fit and every parameter's 95% interval (module doc): the bootstrap's percentiles or the
    sandwich, then the provisional models' floor. With no votes, every model at the anchor."""
    size = designs.raw.m + designs.fit.k
    params = np.zeros(size)
    if not len(cells.n):
        point = scale.points(params)
        return Fitted(params=params, point=point, low=point.copy(), high=point.copy())
    pivot = standing.pivot
    params, info = _full_fit(designs, pivot, warm)
    point = scale.points(params)
    centre = scale.centre(size)
    if config.interval == "sandwich":
        low, high = _sandwich_bounds(designs, params, info, pivot, centre, point, scale.k_to)
    else:
        low, high = _percentile_bounds(_bootstrap_rounds(designs, cells, params, info, pivot, scale, config))
    fitted = Fitted(params=params, point=point, low=low, high=high)
    _provisional_floor(designs, cells, fitted, info, pivot, centre, config, scale.k_to)
    return fitted


def _method_text(config: RatingConfig, standing: Standing, designs: _Designs) -> str:
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
    battles: Sequence[BattleRecord] | BattleArrays,
    config: RatingConfig,
    withheld: frozenset[str],
    start: Mapping[str, Mapping[str, float]] | None = None,
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

    cells = count_cells(arr)
    standing = standing_of(arr, cells, config, withheld)
    designs = _designs(arr, cells, config)
    scale = _Scale(
        m=m,
        k_to=k_to,
        ref_index=standing.ref_index,
        core=standing.core,
        reference_rating=config.reference_rating,
        base=config.base,
    )
    fitted = _fit_with_intervals(designs, cells, standing, scale, config, _warm(arr, designs.style_names, start))
    shift = float(scale.ratings(fitted.params)[0] - fitted.params[0] * k_to) if n else 0.0
    rows = model_rows(arr, cells, designs.raw, standing, fitted, shift, k_to, config.min_votes)

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
        fitted=_fitted(arr, designs.style_names, fitted.params) if n else {},
    )
