"""The cluster bootstrap (``ratio_with_ci``): its value by hand, and its rounds drawn a block at a time
giving exactly the intervals of drawing them all at once (the generator's stream does not depend on how
it is cut), so a release of many clusters holds one block of draws, not all of them."""

from __future__ import annotations

import numpy as np
import pytest

from evaluators.core import stats
from evaluators.core.stats import draw_blocks, ratio_with_ci


def test_a_ratio_by_hand():
    # clusters a: 1 + 0 of 2, b: 3 of 4 -> 4 / 6; one cluster alone gives no interval
    value, low, high = ratio_with_ci([1.0, 0.0, 3.0], [1.0, 1.0, 4.0], ["a", "a", "b"], seed=1)
    assert value == pytest.approx(4 / 6) and low <= value <= high
    assert ratio_with_ci([1.0, 0.0], [1.0, 1.0], ["a", "a"]) == (0.5, None, None)


@pytest.mark.parametrize("clusters", [2, 131, 1000, 5724])
def test_blocks_of_rounds_are_the_rounds_drawn_at_once(clusters):
    whole = np.random.default_rng(9).integers(0, clusters, size=(1000, clusters))
    blocks = list(draw_blocks(np.random.default_rng(9), clusters, 1000))
    assert len(blocks) == -(-1000 // max(1, stats.DRAW_BLOCK // clusters))
    assert (np.concatenate(blocks) == whole).all()


def test_the_interval_is_the_same_however_the_rounds_are_cut(monkeypatch):
    rng = np.random.default_rng(2)
    values = list(rng.random(3000) * 9)
    clusters = [f"task{k // 5}" for k in range(3000)]  # 600 clusters: over 2^17 draws, 218 rounds a block
    blocked = ratio_with_ci(values, [1.0] * 3000, clusters, seed=4)
    monkeypatch.setattr(stats, "DRAW_BLOCK", 10**9)  # every round in one block
    assert ratio_with_ci(values, [1.0] * 3000, clusters, seed=4) == blocked
    monkeypatch.setattr(stats, "DRAW_BLOCK", 1)  # one round a block
    assert ratio_with_ci(values, [1.0] * 3000, clusters, seed=4) == blocked
