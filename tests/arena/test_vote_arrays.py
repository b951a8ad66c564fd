"""The ratings task's votes as arrays (``vote_table``), on the real Postgres: the snapshots it writes
match a hand computation (a chain of pairs, whose maximum-likelihood differences are each pair's
observed log-odds) and an independent dense maximum-likelihood fit written here (style control), and
every group's ratings equal the previous path's (BattleRecords, a Python object per vote); reading
twice the votes adds no per-vote memory beyond the arrays (tracemalloc), where the records path does."""

from __future__ import annotations

import gc
import math
import re
import tracemalloc

import numpy as np
import pytest

from evaluators.arena.ratings import OUTCOMES, RatingConfig, RatingResult, rate
from evaluators.arena.style import STYLE_FEATURES
from leaderboard.arena import services
from leaderboard.arena.models import Battle, RatingSnapshot, Turn, TurnAttribution
from leaderboard.arena.services import ratings as ratings_service
from tests.arena.test_board import pair_rows

pytestmark = pytest.mark.django_db

POINTS = 400.0 / math.log(10.0)


def points(odds: float) -> float:
    return 400.0 * math.log10(odds)


@pytest.fixture
def chain(seed_votes, settings):
    """Alpha beats Beta 30:10 (intent Guidance, English); Beta and Gamma 20 wins, 6 losses, 4 ties
    (Analysis, German); some answers longer and one side with attributed citations."""
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 5, 20
    seed_votes(pair_rows("g", "Alpha", "Beta", 30, 10), intent="Guidance", languages=("en",))
    seed_votes(pair_rows("a", "Beta", "Gamma", 20, 6, 4), intent="Analysis", languages=("de",))
    for i, battle in enumerate(Battle.objects.order_by("pk")):
        if i % 3 == 0:  # a longer model_a answer every third battle
            battle.features_a = {**battle.features_a, "length": battle.features_a["length"] + 40}
            battle.save(update_fields=["features_a"])
    turn = Turn.objects.filter(battle__primary_intent="Analysis").order_by("pk").first()
    TurnAttribution.objects.create(turn=turn, side="b", method="test", supported=3)


def snapshots() -> dict[tuple[str, str, str], RatingResult]:
    return {
        (s.kind, s.filter_key, s.filter_value): RatingResult.from_dict(s.result) for s in RatingSnapshot.objects.all()
    }


def rating_of(result: RatingResult) -> dict[str, float]:
    return {m.name: m.rating for m in result.models}


def test_the_snapshots_match_a_hand_computation(chain):
    assert services.ratings_compute() == 2 * 5  # all, two intents and two languages; raw and style
    snaps = snapshots()
    alpha_beta, beta_gamma = points(30 / 10), points((20 + 2) / (6 + 2))  # a tie is half a win each way
    for group in (("", ""), ("intent", "Guidance"), ("language", "en")):
        r = rating_of(snaps[("raw", *group)])
        assert r["Alpha"] - r["Beta"] == pytest.approx(alpha_beta, abs=0.01)
    for group in (("", ""), ("intent", "Analysis"), ("language", "de")):
        r = rating_of(snaps[("raw", *group)])
        assert r["Beta"] - r["Gamma"] == pytest.approx(beta_gamma, abs=0.01)
    assert set(rating_of(snaps[("raw", "intent", "Guidance")])) == {"Alpha", "Beta"}
    assert snaps[("raw", "intent", "Analysis")].n_battles == 30


def dense_style_fit(
    model_a: list[str],
    model_b: list[str],
    winners: list[str],
    fa: np.ndarray,
    fb: np.ndarray,
    l2: float = 1.0,
    rating_l2: float = 1e-6,
) -> tuple[dict[str, float], np.ndarray]:
    """Penalised maximum likelihood of logit P(a wins) = r_a - r_b + z . beta written out densely
    (a column per model and per feature, ties as y = 0.5), by Newton's method to convergence."""
    names = sorted(set(model_a) | set(model_b))
    n, k = len(winners), fa.shape[1]
    diff = (fa - fb) / (fa + fb + 1.0)
    std = diff.std(axis=0)
    z = (diff - diff.mean(axis=0)) / np.where(std > 0, std, 1.0)
    x = np.zeros((n, len(names) + k))
    for i, (a, b) in enumerate(zip(model_a, model_b)):
        x[i, names.index(a)], x[i, names.index(b)] = 1.0, -1.0
    x[:, len(names) :] = z
    y = np.array([{"model_a": 1.0, "model_b": 0.0}.get(w, 0.5) for w in winners])
    penalty = np.r_[np.full(len(names), rating_l2), np.full(k, l2)]
    params = np.zeros(len(names) + k)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-x @ params))
        grad = x.T @ (y - p) - penalty * params
        hess = x.T @ (x * (p * (1 - p))[:, None]) + np.diag(penalty)
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        params += step
        if np.abs(step).max() < 1e-12:
            break
    return {name: params[i] * POINTS for i, name in enumerate(names)}, params[len(names) :] * POINTS


def test_style_snapshot_matches_a_dense_fit_and_every_group_matches_the_records_path(chain, settings):
    settings.ARENA_STYLE_DEFINITION = "ours"  # the records path fits this site's own features (RatingConfig's default)
    services.ratings_compute()
    snaps = snapshots()

    # the independent dense fit, from the rows as stored (features plus the attribution counts)
    battles = list(Battle.objects.order_by("vote__pk").select_related("vote", "model_a", "model_b"))
    attributed = {battle.pk: 3.0 for battle in battles if TurnAttribution.objects.filter(turn__battle=battle).exists()}
    fa = np.array([[b.features_a.get(f, 0.0) for f in STYLE_FEATURES] for b in battles])
    fb = np.array([[b.features_b.get(f, 0.0) for f in STYLE_FEATURES] for b in battles])
    fb[:, STYLE_FEATURES.index("supported_citations")] = [attributed.get(b.pk, 0.0) for b in battles]
    assert fb[:, STYLE_FEATURES.index("supported_citations")].sum() == 3.0
    expected, coefficients = dense_style_fit(
        [b.model_a.name for b in battles], [b.model_b.name for b in battles], [b.vote.winner for b in battles], fa, fb
    )
    got = snaps[("style", "", "")]
    r = rating_of(got)
    for a, b in (("Alpha", "Beta"), ("Beta", "Gamma")):
        assert r[a] - r[b] == pytest.approx(expected[a] - expected[b], abs=0.01)
    by_feature = {c.feature: c.value for c in got.coefficients}
    assert by_feature["length"] == pytest.approx(coefficients[STYLE_FEATURES.index("length")], abs=0.01)
    assert by_feature["length"] != 0.0

    # the previous path: BattleRecords per group, rated with the snapshot's configuration
    records = services.battle_records()
    for (kind, key, value), result in snaps.items():
        subset = [r for r in records if not key or getattr(r, key) == value]
        stored = RatingSnapshot.objects.get(kind=kind, filter_key=key, filter_value=value).config
        config = RatingConfig.from_dict({k: v for k, v in stored.items() if k not in ("intent_methods", "public_cut")})
        before = rate(subset, config)
        assert [m.name for m in result.models] == [m.name for m in before.models], (kind, key, value)
        for new, old in zip(result.models, before.models):
            assert (new.votes, new.wins, new.losses, new.ties, new.rank_ub) == (
                old.votes,
                old.wins,
                old.losses,
                old.ties,
                old.rank_ub,
            )
            assert new.rating == pytest.approx(old.rating, abs=1e-6)
            assert new.ci_low == pytest.approx(old.ci_low, abs=1e-6) and new.ci_high == pytest.approx(
                old.ci_high, abs=1e-6
            )
        assert [c.value for c in result.coefficients] == pytest.approx([c.value for c in before.coefficients], abs=1e-6)
        assert result.battle_count == before.battle_count


def test_a_vote_with_an_unknown_winner_is_named(chain):
    from leaderboard.arena.models import Vote

    vote = Vote.objects.order_by("pk").last()
    Vote.objects.filter(pk=vote.pk).update(winner="both")
    with pytest.raises(
        ValueError, match=re.escape(f"vote {vote.pk}: winner 'both' is not one of {', '.join(OUTCOMES)}")
    ):
        services.vote_table()


def peak_beyond_arrays(read) -> tuple[int, int]:
    """(peak bytes traced while ``read`` runs, minus the arrays it returns; number of votes)."""
    gc.collect()
    tracemalloc.start()
    try:
        found = read()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    if isinstance(found, list):  # the records path: everything it holds is per-vote overhead
        return peak, len(found)
    arr = found.battles
    arrays = sum(
        x.nbytes
        for x in (arr.a, arr.b, arr.outcome, arr.features_a, arr.features_b, arr.weights, found.intent_method[0])
    )
    arrays += sum(codes.nbytes for codes, _ in found.groups.values())
    return peak - arrays, len(arr)


def test_twice_the_votes_add_no_memory_beyond_the_arrays(seed_votes, monkeypatch):
    monkeypatch.setattr(ratings_service, "_CHUNK", 100)
    rows = pair_rows("m", "Alpha", "Beta", 300, 200, 100)
    seed_votes(rows)
    small, n_small = peak_beyond_arrays(services.vote_table)
    records_small, _ = peak_beyond_arrays(services.battle_records)
    seed_votes(rows)
    large, n_large = peak_beyond_arrays(services.vote_table)
    records_large, _ = peak_beyond_arrays(services.battle_records)
    assert (n_small, n_large) == (600, 1200)
    # the array path: the same overhead (a chunk of rows, the model names) at either size
    assert large - small < 50 * n_small, (small, large)
    # the records path, for contrast: a few kilobytes more per added vote (what the arrays replace)
    assert records_large - records_small > 1_000 * n_small, (records_small, records_large)
