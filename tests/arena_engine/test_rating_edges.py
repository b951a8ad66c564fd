"""The cases a live arena meets every week: a new model with one vote, a model with only wins or only
losses, a reference that is not well estimated (or would be the alphabetically first), votes that are
mostly ties; the well-voted models' ratings must not move, unbounded models get open intervals and no
rank above estimable ones, a provisional model's interval is at least as wide as the model-based one
with ties, a well-voted one is the sandwich's or the bootstrap's, and the 95% intervals cover the truth
95% of the time on simulated arenas, with new models too. The rating work runs on one BLAS thread."""

from __future__ import annotations

import numpy as np
import pytest

from evaluators.arena import ratings
from evaluators.arena.ratings import BattleArrays, RatingConfig, rate
from tests.arena_engine.simulation import coverage, simulate

TRUE5 = np.array([1000.0, 1100.0, 900.0, 1050.0, 950.0])
BASE = simulate(TRUE5, 2_000, seed=11)  # 200 votes per pair


def with_votes(arr: BattleArrays, name: str, votes: list[tuple[int, int]]) -> BattleArrays:
    """``arr`` plus a model ``name`` with (opponent, outcome code from the new model's side) votes."""
    new = len(arr.models)
    return BattleArrays(
        arr.models + [name],
        np.r_[arr.a, [new] * len(votes)],
        np.r_[arr.b, [o for o, _ in votes]],
        np.r_[arr.outcome, [c for _, c in votes]],
    )


def by_name(result) -> dict:
    return {m.name: m for m in result.models}


CASES = {
    "one win": [(0, 0)],
    "only wins": [(i, 0) for i in range(5)] * 20,
    "only losses": [(i, 1) for i in range(5)] * 20,
    "one tie": [(0, 2)],
    "one loss": [(3, 1)],
}


@pytest.mark.parametrize("interval", ["bootstrap", "sandwich"])
@pytest.mark.parametrize(
    "anchor", [{"auto_reference": True}, {"reference": "m2"}, {}], ids=["auto", "configured", "mean"]
)
@pytest.mark.parametrize("case", list(CASES))
def test_a_new_extreme_or_one_vote_model_moves_no_well_voted_rating(interval, anchor, case):
    config = RatingConfig(interval=interval, bootstrap_rounds=60, robustness=False, **anchor)
    before = by_name(rate(BASE, config))
    after = by_name(rate(with_votes(BASE, "new", CASES[case]), config))
    for i in range(5):
        old, new = before[f"m{i}"], after[f"m{i}"]
        assert abs(new.rating - old.rating) < 1.0, (case, old.rating, new.rating)
        # a fresh draw's noise (60 rounds: a 2.5% point is the 1st-2nd of 60, its spread about 10% of the
        # width of a 50-point interval, and two draws differ by up to about 20), not 370 points
        assert abs((new.ci_high - new.ci_low) - (old.ci_high - old.ci_low)) < 20.0
        # the sandwich's ranks stay; the bootstrap draws afresh (the new votes are in the draw), so a rank
        # bound may move where this model's interval and another's nearly touch (within that noise)
        touching = any(abs(r[f"m{j}"].ci_low - r[f"m{i}"].ci_high) < 10.0 for r in (before, after) for j in range(5))
        assert new.rank_ub == old.rank_ub or (
            interval == "bootstrap" and touching and abs(new.rank_ub - old.rank_ub) == 1
        )
    assert after["new"].provisional or not after["new"].bounded  # never one of the models that set the scale


def test_unbounded_models_get_open_intervals_and_no_rank_above_estimable_ones():
    result = rate(with_votes(BASE, "champion", CASES["only wins"]), RatingConfig(auto_reference=True, robustness=False))
    rows = by_name(result)
    champion = rows["champion"]
    assert not champion.bounded and champion.ci_high is None and champion.ci_low is not None
    assert champion.rating == champion.ci_low and champion.rank_ub == 6 and result.models[-1].name == "champion"
    assert "won every battle it had (100)" in champion.note and "not ranked" in champion.note
    # the bound is the exact test inversion: at that rating, winning all 100 had a 2.5% chance
    theta = {name: rows[name].rating for name in BASE.models}
    p_all = np.prod([(1 / (1 + 10 ** ((theta[f"m{i}"] - champion.ci_low) / 400))) ** 20 for i in range(5)])
    assert p_all == pytest.approx(0.025, rel=1e-3)
    loser = by_name(rate(with_votes(BASE, "zero", CASES["only losses"]), RatingConfig(auto_reference=True)))["zero"]
    assert loser.ci_low is None and loser.ci_high == loser.rating and "at most" in loser.note
    assert rows["m1"].rank_ub == 1 and rows["m1"].bounded


def test_the_reference_is_the_best_connected_well_estimated_model_never_the_first_name():
    arena = with_votes(BASE, "a-new-model", [(0, 0)])  # alphabetically first, one vote
    result = rate(arena, RatingConfig(auto_reference=True, robustness=False))
    assert result.anchor["kind"] == "reference" and result.anchor["model"] != "a-new-model"
    assert "best-connected well-estimated model: 4 opponents" in result.anchor["how"]
    assert f"anchor: {result.anchor['model']} fixed at 1000" in result.method
    refused = rate(arena, RatingConfig(reference="a-new-model", auto_reference=True, robustness=False))
    assert refused.anchor["model"] != "a-new-model" and "is not well estimated" in refused.anchor["how"]
    mean = rate(arena, RatingConfig(reference="a-new-model", robustness=False))
    assert mean.anchor["kind"] == "mean" and mean.anchor["models"] == 5
    assert np.mean([by_name(mean)[f"m{i}"].rating for i in range(5)]) == pytest.approx(1000.0)


def test_a_withheld_model_is_fitted_but_never_shown_anchored_on_or_ranked_against():
    """Pre-release testing: m1 (planted strongest, 1100) is withheld. Its votes stay in the fit, so with
    the same anchor its row is the one it has when shown; the public part holds the other four only
    (rows, matrix, ranks, robustness leader), and it is never the anchor, configured or automatic."""
    config = RatingConfig(reference="m0", bootstrap_rounds=40, robustness=True)
    shown = rate(BASE, config)
    hidden = rate(BASE, config, withheld={"m1"})
    assert [m.name for m in hidden.withheld] == ["m1"]
    assert {m.name for m in hidden.models} == set(hidden.matrix_models) == {"m0", "m2", "m3", "m4"}
    assert len(hidden.win_rate) == len(hidden.battle_count) == 4 and all(len(r) == 4 for r in hidden.battle_count)
    m1_shown, m1_hidden = by_name(shown)["m1"], hidden.withheld[0]
    assert (m1_hidden.rating, m1_hidden.ci_low, m1_hidden.ci_high, m1_hidden.votes) == pytest.approx(
        (m1_shown.rating, m1_shown.ci_low, m1_shown.ci_high, m1_shown.votes)
    )
    for name in ("m0", "m2", "m3", "m4"):  # the other ratings do not move: the same votes, the same fit
        assert by_name(hidden)[name].rating == pytest.approx(by_name(shown)[name].rating)
    # ranks among the shown: m3 (planted 1050) leads them; m1 would rank first among them too
    assert hidden.models[0].name == "m3" and by_name(hidden)["m3"].rank_ub == 1 and m1_hidden.rank_ub == 1
    assert shown.robustness["top_model"] == "m1" and hidden.robustness["top_model"] == "m3"
    assert "m1" not in repr(hidden.public_dict()) and "withheld" not in hidden.public_dict()
    # never the anchor: not when configured (and then not named), not chosen automatically, not in the mean
    configured = rate(BASE, RatingConfig(reference="m1", auto_reference=True, robustness=False), withheld={"m1"})
    assert configured.anchor["model"] != "m1" and "m1" not in configured.anchor["how"] + configured.method
    chosen = rate(BASE, RatingConfig(auto_reference=True, robustness=False)).anchor["model"]
    assert rate(BASE, RatingConfig(auto_reference=True, robustness=False), withheld={chosen}).anchor["model"] not in (
        "",
        chosen,
    )
    mean = rate(BASE, RatingConfig(robustness=False), withheld={"m1"})
    assert mean.anchor["models"] == 4 and np.mean([m.rating for m in mean.models]) == pytest.approx(1000.0)


K = 400 / np.log(10)  # rating points per unit of log-odds


def pair_votes(outcomes: list[tuple[int, int, int, int]]) -> BattleArrays:
    """Models x, y, z with (a, b, outcome code, how many) votes."""
    a = [row[0] for row in outcomes for _ in range(row[3])]
    b = [row[1] for row in outcomes for _ in range(row[3])]
    codes = [row[2] for row in outcomes for _ in range(row[3])]
    return BattleArrays(["x", "y", "z"][: 1 + max(a + b)], a, b, codes)


@pytest.mark.parametrize("interval", ["bootstrap", "sandwich"])
def test_a_well_voted_models_interval_is_the_sandwich_with_ties_not_the_fisher_one(interval):
    """y against x (the reference): 60 wins, 20 losses, 40 ties; 120 votes, not provisional. By hand:
    p = (60 + 40/2) / 120 = 2/3, so y is 1000 + 400 log10 2 = 1120.4. H = 120 p (1 - p) = 80/3; the
    scores' squared residuals J = 60 (1/3)^2 + 20 (2/3)^2 + 40 (1/2 - 2/3)^2 = 50/3 (= 120 (p (1 - p)
    - t/4) with the tie share t = 1/3); variance J / H^2 = 0.0234375 log-odds^2, half-width
    1.959964 x 0.153093 x 173.7178 = 52.12 points. The Fisher interval (1 / H: 65.93 points) counts
    each tie as if it were a coin flip between a win and a loss."""
    result = rate(
        pair_votes([(1, 0, 0, 60), (1, 0, 1, 20), (1, 0, 2, 40)]),
        RatingConfig(reference="x", interval=interval, bootstrap_rounds=400, robustness=False),
    )
    y = by_name(result)["y"]
    assert y.rating == pytest.approx(1000 + 400 * np.log10(2), abs=0.01)
    half = 1.959964 * np.sqrt((50 / 3) / (80 / 3) ** 2) * K
    assert half == pytest.approx(52.12, abs=0.01)
    if interval == "sandwich":
        assert (y.ci_high - y.ci_low) / 2 == pytest.approx(half, rel=1e-4)
    else:  # 400 resamples of 120 votes: the percentile interval within a few points of it
        assert (y.ci_high - y.ci_low) / 2 == pytest.approx(half, rel=0.12)
        assert (y.ci_high - y.ci_low) / 2 < 60.0  # the Fisher floor gave 65.9


@pytest.mark.parametrize("interval", ["bootstrap", "sandwich"])
def test_a_provisional_models_interval_is_never_narrower_than_the_model_based_one_with_ties(interval):
    """y's one vote is a tie with x (the reference); x and z have 8 wins each and 4 ties. The sandwich
    sees no spread in y's tie (its score is exactly p = 1/2) and every resample of it is the same tie,
    so y, provisional, gets the model-based interval with the arena's tie share. By hand: ties 5 of
    21 votes, t = (5 + 1) / (21 + 2) = 6/23 (Laplace's rule); y plays only the reference, so H = 1/4
    and J = 1/4 - t/4; variance J / H^2 = 4 (1 - 6/23) = 68/23, half-width
    1.959964 x 1.71945 x 173.7178 = 585.4 points (the Fisher floor: 1.959964 x 2 x 173.7178 = 681)."""
    arena = pair_votes([(0, 2, 0, 8), (0, 2, 1, 8), (0, 2, 2, 4), (1, 0, 2, 1)])
    y = by_name(rate(arena, RatingConfig(reference="x", interval=interval, robustness=False)))["y"]
    assert y.provisional and y.rating == pytest.approx(1000.0, abs=1e-3)
    half = 1.959964 * np.sqrt(4 * (1 - 6 / 23)) * K
    assert half == pytest.approx(585.4, abs=0.1)
    assert (y.ci_low, y.ci_high) == pytest.approx((1000.0 - half, 1000.0 + half), abs=0.05)


@pytest.mark.parametrize("interval", ["bootstrap", "sandwich"])
def test_an_arena_of_only_ties_rates_every_model_equal_with_no_spread(interval):
    """Every vote a tie: each resample is all ties again and every score sits at p = 1/2, so the
    well-voted models' intervals are the point 1000 (the fitted model, with ties as half, is pinned)."""
    ties = BattleArrays(["x", "y", "z"], [0, 1, 2] * 200, [1, 2, 0] * 200, [2] * 600)
    rows = by_name(rate(ties, RatingConfig(reference="x", interval=interval, min_votes=10)))
    for name in ("y", "z"):
        assert rows[name].rating == pytest.approx(1000.0, abs=1e-6)
        assert rows[name].ci_high - rows[name].ci_low < 1e-3 and rows[name].rank_ub == 1


@pytest.mark.parametrize("tie", [0.0, 0.3])
def test_the_95_percent_intervals_cover_the_true_ratings_95_percent_of_the_time(tie):
    """100 simulated arenas of 20 models with 4,000 votes (400 a model), true ratings N(1000, 80), rated
    as the site rates them (bootstrap, 100 rounds, the mean of the models at 1000): 2,000 intervals.
    At a true 95% the count of those holding the truth is about Binomial(2000, 0.95): mean 1900,
    standard deviation 9.7 (the intervals of one arena share its anchor, so a little more: 12 over
    seeds 0-11). The band 1860-1940 is 4.1 binomial standard deviations each side (3.3 of the
    observed), so a calibrated rule leaves it for fewer than 1 seed in 1,000; it is 93%-97% as a rate.
    With the Fisher floor 30% ties covered 98.1% (1962)."""
    c = coverage(models=20, votes=4_000, tie=tie, arenas=100, seed=0)
    assert c.intervals == 2_000
    assert 1_860 <= c.hits <= 1_940, c
    assert c.rank_holds >= 0.95 * c.intervals  # a rank upper bound from the intervals holds at least as often


def test_new_models_intervals_cover_their_true_rating_on_simulated_arenas():
    hits = total = 0
    for seed in range(25):
        rng = np.random.default_rng(1000 + seed)
        arena = simulate(TRUE5, 2_000, seed=2000 + seed)
        truth = list(TRUE5)
        for k in range(8):
            rating = float(rng.normal(1000, 150))
            count = int(rng.integers(1, 21))
            opponents = rng.integers(0, 5, count)
            p = 1 / (1 + 10 ** ((TRUE5[opponents] - rating) / 400))
            tie = rng.random(count) < 0.2
            won = rng.random(count) < np.clip((p - 0.1) / 0.8, 0, 1)
            codes = np.where(tie, 2, np.where(won, 0, 1))
            arena = with_votes(arena, f"new{k}", list(zip(opponents.tolist(), codes.tolist())))
            truth.append(rating)
        result = rate(arena, RatingConfig(auto_reference=True, bootstrap_rounds=50, seed=seed, robustness=False))
        rows = by_name(result)
        shift = 1000.0 - truth[arena.models.index(result.anchor["model"])]
        for k in range(8):
            row = rows[f"new{k}"]
            true = truth[5 + k] + shift
            low = -np.inf if row.ci_low is None else row.ci_low
            high = np.inf if row.ci_high is None else row.ci_high
            hits += low <= true <= high
            total += 1
    assert hits / total >= 0.90, (hits, total)


def test_the_rating_work_runs_on_one_blas_thread_and_gives_it_back(monkeypatch):
    from threadpoolctl import threadpool_info

    seen = []
    original = ratings._rate

    def spy(battles, config, *rest):
        seen.extend(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")
        return original(battles, config, *rest)

    monkeypatch.setattr(ratings, "_rate", spy)
    before = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    rate(BASE, RatingConfig(reference="m0", bootstrap_rounds=5))
    assert seen and set(seen) == {1}
    assert [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"] == before
