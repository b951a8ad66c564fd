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
search in :mod:`evaluators.arena.robustness`; this module anchors, ranks and assembles the result.
"""
from __future__ import annotations

import math
from typing import Any, Collection, Sequence

import numpy as np

from evaluators.arena.bradley_terry import (Design, PairDesign, linear_predictor, model_half_widths, open_bounds,
                                            pair_fits, penalised_fit, sandwich_covariance)
from evaluators.arena.rating_types import (OUTCOMES, BattleArrays, BattleRecord, ModelRating, RatingConfig, RatingResult,
                                           StyleCoefficient)
from evaluators.arena.resample import multinomial_counts
from evaluators.arena.robustness import top_robustness

__all__ = ["OUTCOMES", "BattleArrays", "BattleRecord", "ModelRating", "RatingConfig", "RatingResult", "StyleCoefficient",
           "rate"]

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


def _rank_upper_bounds(low: np.ndarray, high: np.ndarray, rankable: np.ndarray, among: np.ndarray | None = None) -> np.ndarray:
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
        fa = np.asarray(arr.features_a[lo:lo + _COVARIATE_ROWS], dtype=np.float64)
        fb = np.asarray(arr.features_b[lo:lo + _COVARIATE_ROWS], dtype=np.float64)
        if not whole:
            fa, fb = fa[:, cols], fb[:, cols]
        part = x[lo:lo + _COVARIATE_ROWS]
        np.subtract(fa, fb, out=part)
        part /= fa + fb + 1.0
    mean = x.mean(axis=0)
    squares = np.zeros(len(cols))
    for lo in range(0, n, _COVARIATE_ROWS):
        deviation = x[lo:lo + _COVARIATE_ROWS] - mean
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


def _anchor(models: list[str], config: RatingConfig, votes: np.ndarray, battle_count: np.ndarray,
            core: np.ndarray, shown: np.ndarray) -> tuple[int | None, dict[str, Any]]:
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


#: a bootstrap round stops when its step is below this (log-odds, 1.7e-6 rating points at scale 400):
#: the chord steps shrink by a factor of ten or more each, so the round ends within about 1e-9 of its
#: optimum
_ROUND_TOL = 1e-8


def _raw_bootstrap(raw: Design, cell_n: np.ndarray, weighted: bool, rng: np.random.Generator, rounds: int, pivot: int,
                   penalty: np.ndarray, start: np.ndarray) -> np.ndarray:
    """The raw fit's bootstrap rounds (a row of parameters each): the votes resampled with replacement
    as multinomial counts (:func:`multinomial_counts`: exact, by its Poisson split), refitted together
    (:func:`pair_fits`). Unweighted, a vote adds only its pair and its score to the likelihood, so the
    draw is over (unordered pair, score) classes: the same distribution as over the (model_a, model_b,
    outcome) cells, with up to 8 cells per pair merged into 3. Weighted, each cell's votes have their
    own mean weight, so the draw is over the cells."""
    n = int(cell_n.sum())
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

def rate(battles: Sequence[BattleRecord] | BattleArrays, config: RatingConfig | None = None, *,
         withheld: Collection[str] = ()) -> RatingResult:
    """Ratings with 95% intervals, ranks, counts, matrices and (optionally) style coefficients; the
    models named in ``withheld`` are fitted but kept apart (module doc). The linear algebra runs on one
    BLAS thread: the work is many small solves, which threads slow down (2.7x under load), and the limit
    holds only while this call runs. ``withheld`` is not part of the config: the config is published."""
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        return _rate(battles, config or RatingConfig(), frozenset(withheld))


#: how a withheld model is named where the public result must mention one (a robustness search's removed votes)
WITHHELD_NAME = "a withheld model"


def _rate(battles: Sequence[BattleRecord] | BattleArrays, config: RatingConfig, withheld: frozenset[str]) -> RatingResult:
    if isinstance(battles, BattleArrays):
        arr = battles
    else:
        arr = BattleArrays.from_records(list(battles), config.style_features if config.style_control else ())
    m, n = len(arr.models), len(arr)
    if config.reference is not None and config.reference not in arr.models and n:
        raise ValueError(f"reference: model {config.reference!r} is not among the rated models")
    k_to = 1.0 / _LN10 * config.scale  # log-odds -> rating points

    # Every count comes from the votes per (model_a, model_b, outcome) cell: one pass over the votes.
    k_out = len(OUTCOMES)
    cell_key = (arr.a * m + arr.b) * k_out + arr.outcome
    cell_of: np.ndarray | None = None
    if m * m * k_out <= 4 * n + 1_000_000:  # small key space: counting beats sorting
        present = np.bincount(cell_key, minlength=m * m * k_out)
        cells = np.flatnonzero(present)
        cell_n = present[cells].astype(float)
    else:
        cells, cell_of, counted = np.unique(cell_key, return_inverse=True, return_counts=True)
        cell_n = counted.astype(float)
    del cell_key
    cell_a, cell_b, cell_o = cells // k_out // m, cells // k_out % m, cells % k_out
    votes = (np.bincount(cell_a, weights=cell_n, minlength=m) + np.bincount(cell_b, weights=cell_n, minlength=m)).astype(np.int64)
    wins = np.bincount(cell_a, weights=cell_n * (cell_o == 0), minlength=m) + np.bincount(cell_b, weights=cell_n * (cell_o == 1), minlength=m)
    losses = np.bincount(cell_a, weights=cell_n * (cell_o == 1), minlength=m) + np.bincount(cell_b, weights=cell_n * (cell_o == 0), minlength=m)
    ties = votes - wins - losses
    count = np.rint(np.bincount(cell_a * m + cell_b, weights=cell_n, minlength=m * m)).astype(np.int64).reshape(m, m)
    won = np.bincount(cell_a * m + cell_b, weights=cell_n * _SCORE[cell_o], minlength=m * m).reshape(m, m)
    battle_count = count + count.T
    won_total = won + (count.T - won.T)

    # Which models can be compared with the anchor at all, and which are well estimated: connected,
    # with a finite maximum-likelihood rating (not only wins or only losses) and not provisional. Only
    # those set the scale; the others are placed on it without moving it.
    played = np.unique(np.minimum(cell_a, cell_b) * m + np.maximum(cell_a, cell_b))
    comp = _components(m, played // m, played % m)
    if n == 0:
        rankable = np.zeros(m, dtype=bool)
    else:
        comp_votes = np.bincount(comp, weights=votes, minlength=m)
        configured = arr.models.index(config.reference) if config.reference in arr.models else None
        home = comp[configured] if configured is not None and votes[configured] else int(np.argmax(comp_votes))
        rankable = (comp == home) & (votes > 0)
    bounded = ~((votes > 0) & (ties == 0) & ((wins == 0) | (losses == 0)))
    shown = np.array([name not in withheld for name in arr.models], dtype=bool)
    # only shown models set the scale: a withheld one is never the anchor nor in the mean
    core = _well_estimated(rankable & shown, bounded, votes, config.min_votes)
    ref_index, anchor = _anchor(arr.models, config, votes, battle_count, core, shown)
    pivot = ref_index if ref_index is not None else int(np.argmax(np.where(core, votes, -1))) if n else 0

    weighted = bool(config.use_weights and arr.weights is not None and n)
    weights = arr.weights / arr.weights.mean() if weighted and arr.weights is not None else None

    if weights is None:
        raw = Design(m=m, a=cell_a, b=cell_b, y=_SCORE[cell_o], w=cell_n, w2=cell_n)
    else:
        if cell_of is None:  # the cells were counted: index each vote's cell
            lookup = np.zeros(m * m * k_out, dtype=np.int64)
            lookup[cells] = np.arange(len(cells))
            cell_of = lookup[(arr.a * m + arr.b) * k_out + arr.outcome]
        raw = Design(m=m, a=cell_a, b=cell_b, y=_SCORE[cell_o], w=np.bincount(cell_of, weights=weights, minlength=len(cells)),
                     w2=np.bincount(cell_of, weights=weights * weights, minlength=len(cells)))
    pairs_of = PairDesign(raw)  # the raw likelihood on (unordered) pairs: 4,950 rows for 100 models
    names = config.style_features if config.style_control else ()
    if config.style_control and n:
        ones = np.ones(n) if weights is None else weights
        design = Design(m=m, a=arr.a, b=arr.b, y=_SCORE[arr.outcome], w=ones, w2=ones * ones, x=_style_covariates(arr, names))
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
            start[:m] = penalised_fit(pairs_of.design(raw.w), pivot, penalty[:m])[0]
        params, info = penalised_fit(pairs_of.design(raw.w) if design is raw else design, pivot, penalty, start=start)
        point = np.concatenate([anchored(params), params[m:] * k_to])
        centre = np.eye(m + design.k)
        if ref_index is None:  # ratings relative to the mean of the well-estimated models
            centre[:m, np.flatnonzero(core)] -= 1.0 / max(int(core.sum()), 1)
        if config.interval == "sandwich":
            cov = centre @ sandwich_covariance(design, params, info, pivot) @ centre.T
            half = 1.959964 * np.sqrt(np.clip(np.diag(cov), 0.0, None)) * k_to
            low, high = point - half, point + half
        else:
            rng = np.random.default_rng(config.seed)
            rounds = np.empty((config.bootstrap_rounds, m + design.k))
            if design is raw:  # every round's refit at once, warm-started from the full fit
                refits = _raw_bootstrap(raw, cell_n, weighted, rng, config.bootstrap_rounds, pivot, penalty, params)
            linearized = design is not raw and not config.exact_style_bootstrap
            if linearized:
                free = np.ones(m + design.k, dtype=bool)
                free[pivot] = False
                scores = design.w * (design.y - 1.0 / (1.0 + np.exp(-linear_predictor(design, params))))
                bread = np.linalg.inv(info)
            for i in range(config.bootstrap_rounds):
                if design is raw:
                    theta = refits[i]
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
                    theta, _ = penalised_fit(design, pivot, penalty, start=params, w=w)
                rounds[i] = np.concatenate([anchored(theta), theta[m:] * k_to])
            # the 2.5% and 97.5% points at the plotting positions k / (B + 1): with B rounds the k-th
            # smallest of them lies, on average, below k / (B + 1) of the distribution, so the interval
            # holds 95% of it on average; numpy's default positions ((k - 1) / (B - 1)) hold 93.1% with
            # 100 rounds, and the intervals covered 93-94% in the simulations (bench/bench_intervals.py)
            low, high = np.percentile(rounds, [2.5, 97.5], axis=0, method="weibull")
        # A provisional model (fewer than min_votes votes) is never narrower than the model-based
        # interval with ties: its few votes cannot show their own spread to the sandwich or the
        # bootstrap (one tie scores exactly p = 1/2, and every resample of it is the same tie). The
        # tie share is the arena's, by Laplace's rule ((ties + 1) / (votes + 2)). Well-voted models
        # keep the sandwich's or the bootstrap's interval: a floor on them only widens (with the
        # Fisher interval as the floor, 30% ties covered 99%).
        tie_share = (float(cell_n[cell_o >= 2].sum()) + 1.0) / (n + 2.0)
        few = votes < config.min_votes
        if few.any():
            floor = model_half_widths(design, params, info, pivot, centre, tie_share)[:m] * k_to
            low[:m] = np.where(few, np.minimum(low[:m], point[:m] - floor), low[:m])
            high[:m] = np.where(few, np.maximum(high[:m], point[:m] + floor), high[:m])
    else:
        point = np.concatenate([anchored(params), params[m:]])
        low, high = point.copy(), point.copy()
    bounds = open_bounds(raw, cell_n, params[:m], bounded, votes) if n else {}

    estimable = rankable & bounded
    # ranks among the shown models; a withheld model's rank is where it would stand among them
    ranks = _rank_upper_bounds(low[:m], high[:m], estimable, among=estimable & shown)
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
    order = sorted((i for i in range(m) if shown[i]), key=lambda i: (not estimable[i], not rankable[i], -rows[i].rating))
    apart = sorted((i for i in range(m) if not shown[i]), key=lambda i: (not estimable[i], not rankable[i], -rows[i].rating))
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
              + f" (provisional models, below {config.min_votes} votes: never narrower than the model-based interval with"
              + " the share of ties among all votes; open for unbounded models)"
              + (f", style control on {len(names)} z-scored features with L2 {config.l2:g}" if config.style_control else "")
              + (", inverse-propensity weights (counts and matrices are unweighted)" if weighted else ""))
    leaders = estimable & shown
    robustness = None
    if config.robustness and n and leaders.sum() >= 2:
        public_names = [name if shown[i] else WITHHELD_NAME for i, name in enumerate(arr.models)]
        robustness = top_robustness(raw, cell_n, cells % len(OUTCOMES), pivot, penalty[:m], public_names, leaders)
    return RatingResult(models=[rows[i] for i in order], coefficients=coefficients, matrix_models=[arr.models[i] for i in order],
                        win_rate=win_rate, battle_count=counts, n_battles=n, config=config.to_dict(), method=method,
                        robustness=robustness, anchor={**anchor, "models": int(core.sum())}, withheld=[rows[i] for i in apart])
