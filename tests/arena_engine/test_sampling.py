"""Pair sampling: the distribution, the new-model boost, active sampling and the propensity."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from evaluators.arena.sampling import ModelStats, choose_pair, pair_probabilities

MODELS = [
    ModelStats("old1", votes=5000, ci_width=10.0),
    ModelStats("old2", weight=2.0, votes=4000, ci_width=12.0),
    ModelStats("old3", votes=3000, ci_width=40.0),
    ModelStats("new", votes=10),
    ModelStats("off", weight=0.0),
]


def test_probabilities_sum_to_one_and_follow_weights_and_boost():
    probs = pair_probabilities(MODELS, boost=4.0)
    assert sum(probs.values()) == pytest.approx(1.0)
    assert not any("off" in pair for pair in probs)
    assert probs[("old1", "old2")] == pytest.approx(2 * probs[("old1", "old3")])
    assert probs[("old1", "new")] == pytest.approx(4 * probs[("old1", "old3")])
    no_boost = pair_probabilities(MODELS, boost=1.0)
    assert no_boost[("old1", "new")] == pytest.approx(no_boost[("old1", "old3")])


def test_active_sampling_favours_wide_intervals():
    probs = pair_probabilities(MODELS, boost=1.0, active=True)
    assert sum(probs.values()) == pytest.approx(1.0)
    assert probs[("old1", "old3")] > probs[("old1", "old2")] / 2  # old3's interval is the widest
    # A model without an interval counts as the widest (40): (10 + 40) / 2 vs (10 + 40) / 2.
    assert probs[("old1", "new")] == pytest.approx(probs[("old1", "old3")])


def test_empirical_frequencies_match_and_propensity_is_the_unordered_pair_probability():
    rng = random.Random(42)
    probs = pair_probabilities(MODELS)
    draws = 20_000
    seen: Counter = Counter()
    left: Counter = Counter()
    for _ in range(draws):
        pair = choose_pair(MODELS, rng=rng)
        key = (pair.a, pair.b) if (pair.a, pair.b) in probs else (pair.b, pair.a)
        assert pair.propensity == probs[key]
        seen[key] += 1
        left[pair.a == key[0]] += 1
    for key, p in probs.items():
        sd = (draws * p * (1 - p)) ** 0.5
        assert abs(seen[key] - draws * p) < 4.5 * sd, (key, seen[key], draws * p)
    assert abs(left[True] - draws / 2) < 4.5 * (draws / 4) ** 0.5  # sides swapped fairly


def test_needs_two_live_models_and_unique_names():
    with pytest.raises(ValueError, match="at least two"):
        pair_probabilities([ModelStats("a"), ModelStats("b", weight=0.0)])
    with pytest.raises(ValueError, match="unique"):
        pair_probabilities([ModelStats("a"), ModelStats("a")])
    with pytest.raises(ValueError, match="negative weight"):
        pair_probabilities([ModelStats("a"), ModelStats("b", weight=-1.0)])
