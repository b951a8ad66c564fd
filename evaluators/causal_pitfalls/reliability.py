"""CausalPitfalls' figures over item scores: the headline "causal reliability" (the mean of the category
means, each the plain mean of its items, as the released scorer) with a 95% interval from a bootstrap
that resamples each category's datasets, and the plain item means per slice with an interval from a
bootstrap over datasets (the items of one dataset are not independent)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from evaluators.core.stats import BOOTSTRAP_ROUNDS, draw_blocks, ratio_with_ci
from evaluators.core.types import ItemScore, MetricValue

RELIABILITY = "causal_reliability"


def dataset_of(score: ItemScore) -> str:
    """The dataset an item was asked about (its id without the difficulty): the bootstrap's cluster."""
    return score.item_id.rsplit("/", 1)[0]


def item_means(
    metric: str, scores: Sequence[ItemScore], *, seed: int, where: dict[str, str] | None = None, slices: bool = False
) -> list[MetricValue]:
    """``metric``'s plain mean over ``scores`` (the released scorer's per-difficulty figure), with a 95%
    interval from a bootstrap over datasets; with ``slices`` also per category and per difficulty."""
    if not scores:
        return []
    v, lo, hi = ratio_with_ci(
        [s.scores[metric] for s in scores], [1.0] * len(scores), [dataset_of(s) for s in scores], seed=seed
    )
    metrics = [MetricValue(metric, v, lo, hi, len(scores), dict(where or {}))]
    for dimension in ("category", "difficulty") if slices else ():
        for key in sorted({s.slices.get(dimension, "") for s in scores}):
            metrics += item_means(
                metric, [s for s in scores if s.slices.get(dimension) == key], seed=seed, where={dimension: key}
            )
    return metrics


def reliability_with_ci(
    scores: Sequence[ItemScore], *, seed: int = 0, rounds: int = BOOTSTRAP_ROUNDS
) -> tuple[float, float | None, float | None]:
    """The mean of the category means (each the plain mean of its items, as the released scorer), with a
    95% interval from a bootstrap that resamples each category's datasets (clusters of items) with
    replacement, so every round keeps every category."""
    by_category: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for score in scores:
        by_category[score.slices.get("category", "")][dataset_of(score)].append(score.scores[RELIABILITY])
    if not by_category:
        return float("nan"), None, None
    sums = {c: np.array([sum(v) for v in d.values()]) for c, d in by_category.items()}
    counts = {c: np.array([len(v) for v in d.values()], dtype=float) for c, d in by_category.items()}
    value = float(np.mean([sums[c].sum() / counts[c].sum() for c in by_category]))
    if all(len(sums[c]) < 2 for c in by_category):
        return value, None, None
    rng = np.random.default_rng(seed)
    means = np.zeros(rounds)
    for category in by_category:  # a block of rounds at a time: the same draws, flat memory
        means += np.concatenate(
            [
                sums[category][picks].sum(axis=1) / counts[category][picks].sum(axis=1)
                for picks in draw_blocks(rng, len(sums[category]), rounds)
            ]
        )
    means /= len(by_category)
    low, high = np.percentile(means, [2.5, 97.5])
    return value, float(low), float(high)
