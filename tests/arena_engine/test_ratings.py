"""Bradley-Terry ratings: recovery, agreement with an independent fit, edge cases, style control,
intervals, weights and the robustness figure."""

from __future__ import annotations

import json

import numpy as np
import pytest

from evaluators.arena.ratings import OUTCOMES, BattleArrays, BattleRecord, RatingConfig, RatingResult, rate
from tests.arena_engine.simulation import simulate

TRUE8 = np.array([1000.0, 1060.0, 940.0, 1150.0, 1010.0, 880.0, 1100.0, 990.0])


def by_name(result: RatingResult) -> dict:
    return {m.name: m for m in result.models}


def test_recovers_known_ratings_within_their_intervals():
    arr = simulate(TRUE8, 20_000, seed=1)
    for interval in ("bootstrap", "sandwich"):
        result = by_name(rate(arr, RatingConfig(reference="m0", interval=interval)))
        covered = [result[f"m{i}"].ci_low <= TRUE8[i] <= result[f"m{i}"].ci_high for i in range(1, 8)]
        # 7 free models at 95% each: all covered has probability ~0.70, at least 6 of 7 ~0.96.
        assert sum(covered) >= 6, (interval, covered)
        assert result["m0"].rating == pytest.approx(1000.0)
        assert max(abs(result[f"m{i}"].rating - TRUE8[i]) for i in range(8)) < 25


def test_coverage_over_repeated_simulations():
    hits = total = 0
    for seed in range(20):
        arr = simulate(TRUE8, 4_000, seed=100 + seed)
        result = by_name(rate(arr, RatingConfig(reference="m0", interval="sandwich", robustness=False)))
        hits += sum(result[f"m{i}"].ci_low <= TRUE8[i] <= result[f"m{i}"].ci_high for i in range(1, 8))
        total += 7
    # 140 intervals at 95%: expected 133; binomial sd ~2.6, so 125 is 3 sd below.
    assert hits >= 125, hits


def mm_fit(arr: BattleArrays, reference: int) -> np.ndarray:
    """Zermelo / Hunter's MM iterations for Bradley-Terry on the same counts (ties as half a win):
    gamma_i <- W_i / sum_j n_ij / (gamma_i + gamma_j). An algorithm independent of the Newton fit."""
    m = len(arr.models)
    score = np.array([1.0, 0.0, 0.5, 0.5])[arr.outcome]
    n = np.zeros((m, m))
    np.add.at(n, (arr.a, arr.b), 1)
    n = n + n.T
    wins = np.bincount(arr.a, weights=score, minlength=m) + np.bincount(arr.b, weights=1 - score, minlength=m)
    gamma = np.ones(m)
    for _ in range(20_000):
        new = wins / (n / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new /= new[reference]
        if np.max(np.abs(new - gamma)) < 1e-13:
            break
        gamma = new
    return 1000.0 + 400.0 * np.log10(gamma)


def test_agrees_with_independent_mm_fit_within_a_tenth_of_a_point():
    arr = simulate(TRUE8, 20_000, seed=2)
    ours = by_name(rate(arr, RatingConfig(reference="m0", interval="sandwich")))
    theirs = mm_fit(arr, 0)
    for i in range(8):
        assert abs(ours[f"m{i}"].rating - theirs[i]) < 0.1


def test_reference_anchor_and_mean_anchor():
    arr = simulate(TRUE8, 5_000, seed=3)
    anchored = by_name(rate(arr, RatingConfig(reference="m3", reference_rating=1234.0, interval="sandwich")))
    assert anchored["m3"].rating == 1234.0 and anchored["m3"].ci_low == anchored["m3"].ci_high == 1234.0
    free = rate(arr, RatingConfig(base=1500.0, interval="sandwich"))
    assert np.mean([m.rating for m in free.models]) == pytest.approx(1500.0)
    gaps = {m.name: m.rating - by_name(free)["m3"].rating for m in free.models}
    for name, gap in gaps.items():
        assert gap == pytest.approx(anchored[name].rating - 1234.0, abs=1e-3)  # pivots differ; tiny L2
    with pytest.raises(ValueError, match="reference"):
        rate(arr, RatingConfig(reference="nobody"))


def test_ties_only_give_equal_finite_ratings():
    records = [
        BattleRecord("x", "y", "tie"),
        BattleRecord("y", "z", "tie (bothbad)"),
        BattleRecord("z", "x", "tie"),
    ] * 30
    result = rate(records, RatingConfig(reference="x"))
    for m in result.models:
        assert m.rating == pytest.approx(1000.0, abs=1e-6) and m.ties == 60 and m.wins == m.losses == 0
        assert m.note == ""


def test_disconnected_model_is_finite_and_marked_not_rankable():
    arr = simulate(TRUE8[:4], 2_000, seed=4)
    island = BattleArrays(
        arr.models + ["p", "q"], np.r_[arr.a, [4, 5, 4]], np.r_[arr.b, [5, 4, 5]], np.r_[arr.outcome, [0, 1, 0]]
    )
    result = by_name(rate(island, RatingConfig(reference="m0")))
    for name in ("p", "q"):
        assert not result[name].rankable and "no chain of battles connects it to m0" in result[name].note
        assert np.isfinite([result[name].rating, result[name].ci_low, result[name].ci_high]).all()
        assert result[name].rank_ub == 5  # after the four rankable models
    assert all(result[f"m{i}"].rankable for i in range(4))
    assert [m.name for m in rate(island, RatingConfig(reference="m0")).models][-2:] in (["p", "q"], ["q", "p"])


def test_model_with_one_winning_vote_is_provisional_unbounded_and_not_ranked():
    arr = simulate(TRUE8[:4], 2_000, seed=5)
    plus = BattleArrays(arr.models + ["new"], np.r_[arr.a, [4]], np.r_[arr.b, [0]], np.r_[arr.outcome, [0]])
    result = by_name(rate(plus, RatingConfig(reference="m0", min_votes=50)))
    new = result["new"]
    assert new.votes == 1 and new.wins == 1 and new.provisional and new.rankable and not new.bounded
    # one win over m0 (1000): below 1000 - 400 log10(39) = 364 that win had under 2.5% chance
    assert new.ci_high is None and new.rating == new.ci_low == pytest.approx(1000 - 400 * np.log10(39), abs=0.5)
    assert "unbounded" in new.note and new.rank_ub == 5  # after the four estimable models
    assert not result["m1"].provisional and result["m1"].bounded


def test_empty_input_and_json_round_trip():
    empty = rate([], RatingConfig())
    assert empty.models == [] and empty.n_battles == 0 and empty.robustness is None
    result = rate(simulate(TRUE8, 3_000, seed=6), RatingConfig(reference="m0", bootstrap_rounds=20))
    text = json.dumps(result.to_dict(), allow_nan=False)
    again = RatingResult.from_dict(json.loads(text))
    assert again == result
    assert RatingConfig.from_dict(result.config) == RatingConfig(reference="m0", bootstrap_rounds=20)
    assert "Bradley-Terry MLE, ties as half" in result.method and "bootstrap 20 rounds seed 0" in result.method


def test_counts_matrices_and_rank_upper_bounds():
    records = (
        [BattleRecord("a", "b", "model_a")] * 30
        + [BattleRecord("b", "a", "model_a")] * 10
        + [BattleRecord("a", "c", "tie")] * 4
        + [BattleRecord("c", "b", "model_b")] * 6
    )
    result = rate(records, RatingConfig(reference="b", interval="sandwich"))
    rows = by_name(result)
    assert (rows["a"].votes, rows["a"].wins, rows["a"].losses, rows["a"].ties) == (44, 30, 10, 4)
    i, j, k = (result.matrix_models.index(x) for x in "abc")
    assert result.battle_count[i][j] == result.battle_count[j][i] == 40
    assert result.win_rate[i][j] == pytest.approx(0.75) and result.win_rate[j][i] == pytest.approx(0.25)
    assert (
        result.win_rate[i][k] == pytest.approx(0.5) and result.battle_count[i][i] == 0 and result.win_rate[i][i] is None
    )
    for m in result.models:
        assert m.rank_ub == 1 + sum(o.ci_low > m.ci_high for o in result.models)


def test_bad_inputs_name_the_problem():
    with pytest.raises(ValueError, match="winner 'a'"):
        rate([BattleRecord("x", "y", "a")])
    with pytest.raises(ValueError, match="vote 0: model_a and model_b are the same"):
        BattleArrays(["x", "y"], [0], [0], [0])
    with pytest.raises(ValueError, match="outcome"):
        BattleArrays(["x", "y"], [0], [1], [7])
    with pytest.raises(ValueError, match="interval"):
        RatingConfig(interval="jackknife")
    assert OUTCOMES == ("model_a", "model_b", "tie", "tie (bothbad)")


def test_sandwich_and_bootstrap_intervals_roughly_agree():
    arr = simulate(TRUE8, 20_000, seed=7)
    boot = by_name(rate(arr, RatingConfig(reference="m0", bootstrap_rounds=200)))
    sand = by_name(rate(arr, RatingConfig(reference="m0", interval="sandwich")))
    for i in range(1, 8):
        w_boot = boot[f"m{i}"].ci_high - boot[f"m{i}"].ci_low
        w_sand = sand[f"m{i}"].ci_high - sand[f"m{i}"].ci_low
        assert 0.7 < w_boot / w_sand < 1.3, (i, w_boot, w_sand)


def with_features(arr: BattleArrays, fa: np.ndarray, fb: np.ndarray, names: tuple[str, ...]) -> BattleArrays:
    return BattleArrays(arr.models, arr.a, arr.b, arr.outcome, fa, fb, names)


def test_style_control_recovers_a_planted_length_effect():
    rng = np.random.default_rng(8)
    n = 30_000
    # Model m3's answers are long, everyone else's short: raw ratings credit m3 for its length.
    true = TRUE8.copy()
    m = len(true)
    base_len = np.where(np.arange(m) == 3, 900.0, 300.0)
    a = rng.integers(0, m, n)
    b = (a + rng.integers(1, m, n)) % m
    la, lb = base_len[a] * rng.lognormal(0, 0.3, n), base_len[b] * rng.lognormal(0, 0.3, n)
    diff = (la - lb) / (la + lb + 1)
    beta = 1.5  # log-odds per unit of the normalised difference
    logit = (true[a] - true[b]) * np.log(10) / 400 + beta * diff
    p = 1 / (1 + np.exp(-logit))
    tie = rng.random(n) < 0.2
    outcome = np.where(tie, 2, np.where(rng.random(n) < (np.clip(p, 0.1, 0.9) - 0.1) / 0.8, 0, 1))
    names = ("length", "noise")
    noise_a, noise_b = rng.random(n), rng.random(n)
    arr = with_features(
        BattleArrays([f"m{i}" for i in range(m)], a, b, outcome), np.c_[la, noise_a], np.c_[lb, noise_b], names
    )
    config = {"reference": "m0", "interval": "sandwich", "style_features": names}
    raw = by_name(rate(arr, RatingConfig(**config)))
    styled_result = rate(arr, RatingConfig(style_control=True, **config))
    styled = by_name(styled_result)
    coef = {c.feature: c for c in styled_result.coefficients}
    expected = beta * diff.std() * 400 / np.log(10)  # rating points per standard deviation
    assert coef["length"].value > 0 and 0.7 * expected < coef["length"].value < 1.3 * expected
    assert coef["length"].ci_low < coef["length"].value < coef["length"].ci_high
    assert coef["noise"].ci_low < 0 < coef["noise"].ci_high
    assert raw["m3"].rating - true[3] > 40  # inflated by length
    assert abs(styled["m3"].rating - true[3]) < 25  # style control removes it


def test_style_control_with_noise_features_leaves_ratings_unchanged():
    arr = simulate(TRUE8, 20_000, seed=10)
    rng = np.random.default_rng(11)
    names = ("length", "citation_count")
    arr = with_features(arr, rng.gamma(2, 100, (len(arr), 2)), rng.gamma(2, 100, (len(arr), 2)), names)
    raw = by_name(rate(arr, RatingConfig(reference="m0", interval="sandwich", style_features=names)))
    styled = by_name(
        rate(arr, RatingConfig(reference="m0", interval="sandwich", style_features=names, style_control=True))
    )
    for name in raw:
        assert abs(raw[name].rating - styled[name].rating) < 3.0


def test_style_control_bootstrap_score_and_exact_agree_with_sandwich():
    arr = simulate(TRUE8[:4], 4_000, seed=12)
    with pytest.raises(ValueError, match="style features"):
        rate(arr, RatingConfig(style_control=True))
    rng = np.random.default_rng(0)
    arr = with_features(arr, rng.gamma(2, 100, (4_000, 1)), rng.gamma(2, 100, (4_000, 1)), ("length",))
    widths = {}
    for label, extra in (
        ("score", {}),
        ("exact", {"exact_style_bootstrap": True}),
        ("sandwich", {"interval": "sandwich"}),
    ):
        result = rate(
            arr,
            RatingConfig(
                reference="m0",
                style_control=True,
                style_features=("length",),
                bootstrap_rounds=200,
                robustness=False,
                **extra,
            ),
        )
        widths[label] = [m.ci_high - m.ci_low for m in sorted(result.models, key=lambda m: m.name)][1:]
        widths[label].append(result.coefficients[0].ci_high - result.coefficients[0].ci_low)
    for label in ("score", "exact"):
        for got, want in zip(widths[label], widths["sandwich"]):
            assert 0.75 < got / want < 1.3, (label, widths)
    records = [BattleRecord(a, b, w, {"length": 10.0}, {}) for a, b, w in (("x", "y", "model_a"), ("y", "x", "tie"))]
    assert BattleArrays.from_records(records, ("length",)).features_b.tolist() == [[0.0], [0.0]]


def test_inverse_propensity_weights_equal_replicated_votes():
    arr = simulate(TRUE8[:4], 3_000, seed=13)
    weights = np.where(arr.a == 1, 3.0, 1.0)  # votes with m1 on the left were drawn 3x less often
    weighted = by_name(
        rate(
            BattleArrays(arr.models, arr.a, arr.b, arr.outcome, weights=weights),
            RatingConfig(reference="m0", use_weights=True, interval="sandwich"),
        )
    )
    unweighted = by_name(
        rate(
            BattleArrays(arr.models, arr.a, arr.b, arr.outcome, weights=weights),
            RatingConfig(reference="m0", use_weights=False, interval="sandwich"),
        )
    )
    rep = np.r_[np.arange(len(arr)), np.repeat(np.flatnonzero(arr.a == 1), 2)]
    replicated = by_name(
        rate(
            BattleArrays(arr.models, arr.a[rep], arr.b[rep], arr.outcome[rep]),
            RatingConfig(reference="m0", interval="sandwich"),
        )
    )
    for name in weighted:
        assert weighted[name].rating == pytest.approx(replicated[name].rating, abs=1e-6)
    assert abs(weighted["m1"].rating - unweighted["m1"].rating) > 1e-3


def test_robustness_small_for_a_near_tie_large_for_a_clear_leader():
    close = simulate(np.array([1000.0, 1001.0, 900.0, 850.0]), 4_000, seed=14)
    clear = simulate(np.array([1000.0, 1200.0, 900.0, 850.0]), 4_000, seed=14)
    near = rate(close, RatingConfig(reference="m0", interval="sandwich")).robustness
    far = rate(clear, RatingConfig(reference="m0", interval="sandwich")).robustness
    assert far["top_model"] == "m1"
    assert near["votes_to_flip_top"] is not None and near["votes_to_flip_top"] < 100
    assert far["votes_to_flip_top"] is None or far["votes_to_flip_top"] > 5 * near["votes_to_flip_top"]
    assert 0 < near["share_to_flip_top"] < 0.1 and near["new_top_model"] != near["top_model"]
    # Removing exactly the listed votes changes the leader.
    keep = np.ones(len(close), dtype=bool)
    for cell in near["removed_votes"]:
        a, b, o = (
            close.models.index(cell["model_a"]),
            close.models.index(cell["model_b"]),
            OUTCOMES.index(cell["winner"]),
        )
        where = np.flatnonzero((close.a == a) & (close.b == b) & (close.outcome == o))
        keep[where[: cell["count"]]] = False
    assert sum(c["count"] for c in near["removed_votes"]) == near["votes_to_flip_top"] == (~keep).sum()
    smaller = BattleArrays(close.models, close.a[keep], close.b[keep], close.outcome[keep])
    assert (
        rate(smaller, RatingConfig(reference="m0", interval="sandwich", robustness=False)).models[0].name
        == near["new_top_model"]
    )
