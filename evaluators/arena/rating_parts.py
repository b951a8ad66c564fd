"""The parts of an arena rating that count the votes and place the models (:mod:`evaluators.arena.ratings`
fits and assembles): the votes counted per cell (:func:`count_cells`), which models are rankable,
bounded and well estimated and the anchor (:func:`standing_of`), and a row per model from the fit
(:func:`model_rows`, with :func:`rank_upper_bounds`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from evaluators.arena.bradley_terry import Design, open_bounds
from evaluators.arena.rating_types import OUTCOMES, BattleArrays, ModelRating, RatingConfig

_SCORE = np.array([1.0, 0.0, 0.5, 0.5])  # model_a's share of the win per outcome code


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


def rank_upper_bounds(
    low: np.ndarray, high: np.ndarray, rankable: np.ndarray, among: np.ndarray | None = None
) -> np.ndarray:
    """1 + the models of ``among`` (default: the rankable ones) whose lower bound is above this one's
    upper bound, for each rankable model; the others rank after all of ``among``."""
    ranks = np.empty(len(low), dtype=np.int64)
    ok = np.flatnonzero(rankable if among is None else among)
    for i in range(len(low)):
        ranks[i] = 1 + int(np.sum(low[ok] > high[i])) if rankable[i] else len(ok) + 1
    return ranks


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


@dataclass(frozen=True)
class Cells:
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


def count_cells(arr: BattleArrays) -> Cells:
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
    return Cells(
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
class Standing:
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


def standing_of(arr: BattleArrays, cells: Cells, config: RatingConfig, withheld: frozenset[str]) -> Standing:
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
    return Standing(
        rankable=rankable, bounded=bounded, shown=shown, core=core, ref_index=ref_index, anchor=anchor, pivot=pivot
    )


@dataclass(frozen=True)
class Fitted:
    """The fitted parameters (log-odds), and every parameter's point and 95% bounds in points."""

    params: np.ndarray
    point: np.ndarray
    low: np.ndarray
    high: np.ndarray


def model_rows(
    arr: BattleArrays,
    cells: Cells,
    raw: Design,
    standing: Standing,
    fitted: Fitted,
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
    ranks = rank_upper_bounds(fitted.low[:m], fitted.high[:m], estimable, among=estimable & standing.shown)
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
