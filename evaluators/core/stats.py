"""Statistics shared by evaluators: means with bootstrap 95% intervals over items (or over clusters of
items that are not independent), and pass@k."""
from __future__ import annotations

from math import comb
from typing import Sequence

import numpy as np

BOOTSTRAP_ROUNDS = 1000


def mean_with_ci(values: Sequence[float], *, seed: int = 0, rounds: int = BOOTSTRAP_ROUNDS) -> tuple[float, float | None, float | None]:
    """Mean and percentile-bootstrap 95% interval over items. One item gives no interval."""
    data = np.asarray(values, dtype=float)
    if data.size == 0:
        return float("nan"), None, None
    mean = float(data.mean())
    if data.size == 1:
        return mean, None, None
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, data.size, size=(rounds, data.size))
    means = data[indices].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    return mean, float(low), float(high)


def ratio_with_ci(numerators: Sequence[float], denominators: Sequence[float], clusters: Sequence[str], *, seed: int = 0,
                  rounds: int = BOOTSTRAP_ROUNDS) -> tuple[float, float | None, float | None]:
    """sum(numerators) / sum(denominators) with a percentile-bootstrap 95% interval that resamples
    whole clusters (items sharing a cluster key are not independent: PoliCon's five objectives of one
    task). A mean over items is the case of denominators all 1. One cluster gives no interval."""
    if not (len(numerators) == len(denominators) == len(clusters)):
        raise ValueError("numerators, denominators and clusters must have the same length")
    keys = sorted(set(clusters))
    if not keys:
        return float("nan"), None, None
    index = {key: i for i, key in enumerate(keys)}
    top = np.zeros(len(keys))
    bottom = np.zeros(len(keys))
    for n, d, c in zip(numerators, denominators, clusters):
        top[index[c]] += n
        bottom[index[c]] += d
    total = bottom.sum()
    value = float(top.sum() / total) if total else float("nan")
    if len(keys) == 1 or not total:
        return value, None, None
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(keys), size=(rounds, len(keys)))
    sums_bottom = bottom[draws].sum(axis=1)
    ratios = top[draws].sum(axis=1)[sums_bottom > 0] / sums_bottom[sums_bottom > 0]
    low, high = np.percentile(ratios, [2.5, 97.5])
    return value, float(low), float(high)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k estimator (Chen et al. 2021): 1 - C(n-c, k) / C(n, k)."""
    if n <= 0 or k <= 0:
        raise ValueError("n and k must be positive")
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)
