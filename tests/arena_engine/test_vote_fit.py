"""The style-controlled fit on the votes, a chunk at a time (``evaluators.arena.vote_fit``): a hand-computed
fit through many chunks and through a subset that shares its table's features; the score bootstrap's
rounds drawn in batches equal to one round at a time and to the dense formula; the fit holds no array of
the votes times the features in float64 (tracemalloc); a fit started from an earlier one (``rate(start=)``)
equals the cold fit in fewer passes."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

from evaluators.arena import vote_fit
from evaluators.arena.ratings import BattleArrays, RatingConfig, rate
from tests.arena_engine.simulation import simulate

TRUE4 = np.array([1000.0, 1060.0, 940.0, 1150.0])


def hand_votes() -> BattleArrays:
    """A and B, one feature: 40 votes with A's answer longer (f_a = 2, f_b = 0: covariate 2/3, z-scored +1),
    A winning 30; 40 with B's longer (covariate -2/3, z = -1), A winning 20. Unpenalised, theta + beta =
    ln 3 and theta - beta = ln 1, so theta = beta = ln(3) / 2: 200 log10(3) points each. Ten votes of
    an unrelated pair C-D come first, to be left out by the subset."""
    a, b, out, fa, fb = [], [], [], [], []
    for _ in range(10):
        a, b, out, fa, fb = a + [2], b + [3], out + [0], fa + [1.0], fb + [0.0]
    for longer, wins in ((0, 30), (1, 20)):
        for i in range(40):
            a.append(0), b.append(1), out.append(0 if i < wins else 1)
            fa.append(2.0 if longer == 0 else 0.0), fb.append(0.0 if longer == 0 else 2.0)
    return BattleArrays(
        ["A", "B", "C", "D"],
        np.array(a),
        np.array(b),
        np.array(out),
        np.array(fa, dtype=np.float32)[:, None],
        np.array(fb, dtype=np.float32)[:, None],
        ("length",),
    )


def test_a_hand_computed_style_fit_through_many_chunks_and_a_shared_subset(monkeypatch):
    monkeypatch.setattr(vote_fit, "CHUNK", 7)  # 80 votes: 12 chunks, the last one short
    table = hand_votes()
    subset = table.subset(np.arange(len(table)) >= 10, share_features=True)
    assert subset.features_a is table.features_a and subset.feature_rows.tolist() == list(range(10, 90))
    config = RatingConfig(style_control=True, style_features=("length",), l2=1e-9, interval="sandwich", min_votes=1)
    result = rate(subset, config)
    rating = {m.name: m.rating for m in result.models}
    expected = 200.0 * math.log10(3.0)
    assert rating["A"] - rating["B"] == pytest.approx(expected, abs=1e-3)
    assert result.coefficients[0].value == pytest.approx(expected, abs=1e-3)
    # the same votes copied into a table of their own rate the same
    copied = rate(table.subset(np.arange(len(table)) >= 10), config)
    assert [m.rating for m in copied.models] == pytest.approx([m.rating for m in result.models], abs=1e-9)
    assert copied.models[0].ci_high == pytest.approx(result.models[0].ci_high, abs=1e-9)


def planted(n: int, seed: int) -> BattleArrays:
    arr = simulate(TRUE4, n, seed=seed)
    rng = np.random.default_rng(seed)
    fa = rng.integers(0, 600, (n, 2)).astype(np.float32)
    fb = rng.integers(0, 600, (n, 2)).astype(np.float32)
    return BattleArrays(arr.models, arr.a, arr.b, arr.outcome, fa, fb, ("length", "citation_count"))


def dense_score_rounds(arr: BattleArrays, result_params: np.ndarray, info: np.ndarray, pivot: int, rounds: int):
    """The score bootstrap written out densely (the covariates as one float64 matrix), round by round."""
    m = len(arr.models)
    diff = (arr.features_a.astype(float) - arr.features_b) / (arr.features_a.astype(float) + arr.features_b + 1.0)
    x = (diff - diff.mean(axis=0)) / diff.std(axis=0)
    y = np.array([1.0, 0.0, 0.5, 0.5])[arr.outcome]
    eta = result_params[arr.a] - result_params[arr.b] + x @ result_params[m:]
    scores = y - 1.0 / (1.0 + np.exp(-eta))
    free = np.arange(len(result_params)) != pivot
    rng = np.random.default_rng(0)
    out = []
    for _ in range(rounds):
        v = (np.bincount(rng.integers(0, len(y), len(y)), minlength=len(y)) - 1.0) * scores
        grad = np.r_[np.bincount(arr.a, v, m) - np.bincount(arr.b, v, m), x.T @ v]
        theta = result_params.copy()
        theta[free] += np.linalg.inv(info) @ grad[free]
        out.append(theta)
    return np.array(out)


def test_score_rounds_in_batches_equal_one_round_at_a_time_and_the_dense_formula(monkeypatch):
    arr = planted(3_000, seed=3)
    design = vote_fit.VoteDesign.build(arr, arr.feature_names, None)
    penalty = np.r_[np.full(4, 1e-6), np.ones(2)]
    params, info = vote_fit.vote_fit(design, 0, penalty, np.zeros(6))
    monkeypatch.setattr(vote_fit, "CHUNK", 1_000)
    batched = vote_fit.score_rounds(design, params, info, 0, np.random.default_rng(0), 50)
    monkeypatch.setattr(vote_fit, "_COUNT_BYTES", 1)  # one round a batch
    single = vote_fit.score_rounds(design, params, info, 0, np.random.default_rng(0), 50)
    np.testing.assert_allclose(batched, single, rtol=0, atol=1e-12)
    np.testing.assert_allclose(batched, dense_score_rounds(arr, params, info, 0, 50), rtol=0, atol=1e-10)


def test_the_fit_holds_no_float64_array_of_the_votes_times_the_features(monkeypatch):
    monkeypatch.setattr(vote_fit, "CHUNK", 2_048)
    n, k = 200_000, 8
    arr = simulate(TRUE4, n, seed=5)
    rng = np.random.default_rng(5)
    names = tuple(f"f{j}" for j in range(k))
    fa, fb = rng.integers(0, 9, (n, k)).astype(np.float32), rng.integers(0, 9, (n, k)).astype(np.float32)
    arr = BattleArrays(arr.models, arr.a.astype(np.int32), arr.b.astype(np.int32), arr.outcome, fa, fb, names)
    config = RatingConfig(style_control=True, style_features=names, interval="sandwich", robustness=False)
    rate(arr, config)  # imports and caches warmed
    tracemalloc.start()
    try:
        rate(arr, config)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # one float64 matrix of the covariates alone is n * k * 8 bytes (12.8 MB); the fit takes less than half
    assert peak < n * k * 8 / 2, peak


@pytest.mark.parametrize("style", [False, True])
def test_a_fit_started_from_the_last_one_equals_the_cold_fit_in_fewer_passes(monkeypatch, style):
    before = planted(4_000, seed=7)
    after = BattleArrays(  # one more vote
        before.models,
        np.r_[before.a, 1],
        np.r_[before.b, 2],
        np.r_[before.outcome, 0],
        np.r_[before.features_a, np.float32([[100.0, 3.0]])],
        np.r_[before.features_b, np.float32([[20.0, 0.0]])],
        before.feature_names,
    )
    config = RatingConfig(style_control=style, style_features=before.feature_names, bootstrap_rounds=20)
    last = rate(before, config)
    assert set(last.fitted["models"]) == set(before.models)
    passes = []
    real = vote_fit._derivatives
    monkeypatch.setattr(vote_fit, "_derivatives", lambda *args: passes.append(1) or real(*args))
    cold = rate(after, config)
    cold_passes, passes[:] = len(passes), []
    warm = rate(after, config, start=last.fitted)
    for got, want in zip(warm.models, cold.models):
        assert got.name == want.name
        assert got.rating == pytest.approx(want.rating, abs=1e-6)
        assert (got.ci_low, got.ci_high) == pytest.approx((want.ci_low, want.ci_high), abs=1e-6)
    assert [c.value for c in warm.coefficients] == pytest.approx([c.value for c in cold.coefficients], abs=1e-6)
    if style:
        assert len(passes) < cold_passes, (len(passes), cold_passes)
    assert "fitted" not in warm.to_dict() and "fitted" not in warm.public_dict()
