"""Statistics shared by evaluators: means with bootstrap 95% intervals over items, and pass@k."""
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


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k estimator (Chen et al. 2021): 1 - C(n-c, k) / C(n, k)."""
    if n <= 0 or k <= 0:
        raise ValueError("n and k must be positive")
    if k > n:
        raise ValueError(f"pass@{k} needs at least {k} samples, got {n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)
