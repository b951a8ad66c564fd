"""Statistics shared by evaluators: means with bootstrap 95% intervals over items (or over clusters of
items that are not independent), and pass@k. A bootstrap draws its rounds a block at a time
(``draw_blocks``), so its memory stays flat however many clusters a release has."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from math import comb

import numpy as np

BOOTSTRAP_ROUNDS = 1000
#: most draws a bootstrap block holds (rounds x clusters): 1 MB of indices, where all 1,000 rounds of
#: PoliCon's 5,724 tasks at once were 46 MB (and as much again for each array they index)
DRAW_BLOCK = 1 << 17


def draw_blocks(rng: np.random.Generator, clusters: int, rounds: int) -> Iterator[np.ndarray]:
    """``rng.integers(0, clusters, size=(rounds, clusters))`` a block of rounds at a time: the same
    numbers, whatever the block size (the generator's stream does not depend on how it is cut), with
    at most ``DRAW_BLOCK`` draws a block (one round a block above that many clusters)."""
    step = max(1, DRAW_BLOCK // max(clusters, 1))
    for start in range(0, rounds, step):
        yield rng.integers(0, clusters, size=(min(step, rounds - start), clusters))


def mean_with_ci(
    values: Sequence[float], *, seed: int = 0, rounds: int = BOOTSTRAP_ROUNDS
) -> tuple[float, float | None, float | None]:
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


def ratio_with_ci(
    numerators: Sequence[float],
    denominators: Sequence[float],
    clusters: Sequence[str],
    *,
    seed: int = 0,
    rounds: int = BOOTSTRAP_ROUNDS,
) -> tuple[float, float | None, float | None]:
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
    ratios = []
    for draws in draw_blocks(np.random.default_rng(seed), len(keys), rounds):
        sums_bottom = bottom[draws].sum(axis=1)
        ratios.append(top[draws].sum(axis=1)[sums_bottom > 0] / sums_bottom[sums_bottom > 0])
    low, high = np.percentile(np.concatenate(ratios), [2.5, 97.5])
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
