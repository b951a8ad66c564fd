"""The prompt-conditioned leaderboard and its held-out evaluation, on prompt vectors from
:mod:`evaluators.arena.topics` (numpy only).

* **Prompt-conditioned fit** (:func:`conditioned_rating`): for a query vector, each battle's weight
  is the cosine kernel exp(-(1 - s) / bandwidth) for the ``neighbours`` most similar battles with
  cosine s at least ``min_similarity`` (0 for the rest); the ratings are the arena's own
  Bradley-Terry fit (:func:`evaluators.arena.ratings.rate`) with those weights, sandwich intervals.
  The effective number of votes is Kish's (sum w)^2 / sum w^2; below ``min_effective`` the fit
  declines to rank and says why.
* **Held-out evaluation** (:func:`held_out`): a seeded split of the battles into train and test;
  each test vote's log-likelihood (ties as half a win each way, as in the fit) and accuracy (the
  predicted winner won: 1, a tie: 1/2, as Prompt-to-Leaderboard scores ties) under the global fit on
  the train votes, the fit on the train votes of the vote's intent (the global one where the intent
  has too few), and the prompt-conditioned fit on the train votes nearest its prompt (the global one
  where it declines). All three are the ratings' penalised Newton fit with the same light L2 prior
  (:data:`EVALUATION_L2`). P2L reports the same comparison: held-out Bradley-Terry loss and accuracy
  of the prompt's leaderboard against the "marginal" (global) one fitted on the training votes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from evaluators.arena.bradley_terry import Design, PairDesign, penalised_fit
from evaluators.arena.rating_types import BattleArrays, RatingConfig, RatingResult
from evaluators.arena.topics import one_blas_thread

_SCORE = np.array([1.0, 0.0, 0.5, 0.5])  # model_a's share of the win per outcome code (OUTCOMES' order)


@dataclass(frozen=True)
class Kernel:
    neighbours: int = 2000
    min_similarity: float = 0.2
    bandwidth: float = 0.2
    min_effective: float = 30.0


@one_blas_thread
def conditioned_weights(x: np.ndarray, query: np.ndarray, kernel: Kernel = Kernel()) -> np.ndarray:
    """Each battle's kernel weight for the query (module doc); zeros where it is not a neighbour."""
    sim = x @ query.astype(x.dtype)
    w = np.zeros(len(x))
    near = np.flatnonzero(sim >= kernel.min_similarity)
    if len(near) > kernel.neighbours:
        near = near[np.argpartition(-sim[near], kernel.neighbours - 1)[: kernel.neighbours]]
    w[near] = np.exp(-(1.0 - sim[near]) / kernel.bandwidth)
    return w


def effective_votes(w: np.ndarray) -> float:
    """Kish's effective sample size (sum w)^2 / sum w^2 (0 without weight)."""
    total, squares = float(w.sum()), float(np.dot(w, w))
    return total * total / squares if squares > 0 else 0.0


@dataclass
class Conditioned:
    """A prompt-conditioned ranking, or why there is none (``declined``)."""

    effective_votes: float
    neighbours: int
    result: RatingResult | None
    declined: str = ""


def conditioned_rating(
    battles: BattleArrays,
    x: np.ndarray,
    query: np.ndarray,
    kernel: Kernel = Kernel(),
    config: RatingConfig | None = None,
) -> Conditioned:
    """The arena's Bradley-Terry fit on the battles near the query, weighted by the kernel, with
    sandwich intervals; declines below ``kernel.min_effective`` effective votes."""
    from evaluators.arena.ratings import rate

    if not np.any(query):
        return Conditioned(
            0.0, 0, None, "none of the question's words appear in the voted battles' prompts, so no battle is near it"
        )
    w = conditioned_weights(x, query, kernel)
    rows = np.flatnonzero(w > 0)
    n_eff = effective_votes(w)
    if n_eff < kernel.min_effective:
        return Conditioned(
            n_eff,
            len(rows),
            None,
            f"only {n_eff:.0f} effective votes are near this question (the fit needs {kernel.min_effective:.0f}); "
            "try a question closer to what people have asked, or read the whole board",
        )
    subset = battles.subset(rows)
    subset.weights = w[rows]
    base = config or RatingConfig()
    cfg = RatingConfig(
        **{
            **base.to_dict(),
            "interval": "sandwich",
            "use_weights": True,
            "robustness": False,
            "style_control": False,
            "style_features": tuple(base.style_features),
            "reference": base.reference if base.reference in subset.models else None,
        }
    )
    result = rate(subset, cfg)
    # rate() reads any vote weights as inverse propensities; here they are the kernel's
    result.method = result.method.replace(
        ", inverse-propensity weights (counts and matrices are unweighted)",
        ", each vote weighted by the kernel (counts are unweighted)",
    )
    return Conditioned(n_eff, len(rows), result)


# ---------------------------------------------------------------- held-out evaluation

#: the L2 penalty (in votes) on the log-odds of the three fits compared held out: a light prior, the same
#: for all, so that a model with only wins in a small neighbourhood predicts finitely
EVALUATION_L2 = 0.5


def _log_odds(battles: BattleArrays, rows: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Bradley-Terry log-odds of every model (0 for one without votes in ``rows``), by the ratings'
    own penalised Newton fit (penalty :data:`EVALUATION_L2`)."""
    m = len(battles.models)
    theta = np.zeros(m)
    if not len(rows):
        return theta
    w = np.ones(len(rows)) if weights is None else weights
    cells = Design(m=m, a=battles.a[rows], b=battles.b[rows], y=_SCORE[battles.outcome[rows]], w=w, w2=w * w)
    played = np.bincount(cells.a, minlength=m) + np.bincount(cells.b, minlength=m)
    pivot = int(np.argmax(played))
    params, _ = penalised_fit(PairDesign(cells).design(w), pivot, np.full(m, EVALUATION_L2))
    theta[played > 0] = params[played > 0]
    return theta


def _scores(theta_a: np.ndarray, theta_b: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    eta = theta_a - theta_b
    loglik = y * eta - np.logaddexp(0.0, eta)
    accuracy = np.where(y == 0.5, 0.5, np.where(eta == 0, 0.5, ((eta > 0) == (y == 1.0)).astype(float)))
    return loglik, accuracy


@dataclass
class HeldOut:
    """Mean held-out log-likelihood and accuracy per method, and how the split was made."""

    split: str
    test_votes: int
    methods: dict[str, dict[str, float]]
    conditioned_declined: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "split": self.split,
            "test_votes": self.test_votes,
            "methods": self.methods,
            "conditioned_declined": self.conditioned_declined,
        }


@one_blas_thread
def held_out(
    battles: BattleArrays,
    x: np.ndarray,
    intents: np.ndarray,
    *,
    test_share: float = 0.2,
    max_test: int = 500,
    seed: int = 0,
    kernel: Kernel = Kernel(),
) -> HeldOut:
    """The comparison of the module doc. ``intents``: a code per battle (-1: none). At most
    ``max_test`` test votes are scored (each needs its own conditioned fit)."""
    n = len(battles)
    rng = np.random.default_rng(seed)
    order = rng.permutation(n)
    n_test = round(test_share * n)
    test, train = order[:n_test][:max_test], order[n_test:]
    y = _SCORE[battles.outcome]
    global_theta = _log_odds(battles, train)
    intent_theta: dict[int, np.ndarray] = {}
    for code in np.unique(intents[train]):
        rows = train[intents[train] == code]
        if code >= 0 and effective_votes(np.ones(len(rows))) >= kernel.min_effective:
            intent_theta[int(code)] = _log_odds(battles, rows)
    a, b = battles.a[test], battles.b[test]
    g = _scores(global_theta[a], global_theta[b], y[test])
    per_intent = (
        np.array([intent_theta.get(int(intents[i]), global_theta)[battles.a[i]] for i in test]),
        np.array([intent_theta.get(int(intents[i]), global_theta)[battles.b[i]] for i in test]),
    )
    pi = _scores(per_intent[0], per_intent[1], y[test])
    xt = x[train]
    ca, cb = np.empty(len(test)), np.empty(len(test))
    declined = 0
    for j, i in enumerate(test):
        w = conditioned_weights(xt, x[i], kernel) if np.any(x[i]) else np.zeros(len(train))
        if effective_votes(w) < kernel.min_effective:
            declined += 1
            theta = global_theta
        else:
            near = np.flatnonzero(w > 0)
            theta = _log_odds(battles, train[near], w[near])
        ca[j], cb[j] = theta[battles.a[i]], theta[battles.b[i]]
    c = _scores(ca, cb, y[test])
    methods = {
        name: {
            "log_likelihood": float(s[0].mean()) if len(test) else 0.0,
            "accuracy": float(s[1].mean()) if len(test) else 0.0,
        }
        for name, s in (("global", g), ("per intent", pi), ("prompt-conditioned", c))
    }
    split = f"seeded random split (seed {seed}): {len(train)} train votes, {n_test} test votes" + (
        f", of which {len(test)} drawn at random are scored" if n_test > len(test) else ""
    )
    return HeldOut(split=split, test_votes=len(test), methods=methods, conditioned_declined=declined)
