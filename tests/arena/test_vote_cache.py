"""The ratings task's kept vote rows (``vote_table(cached=True)``): a new vote is read alone and appended,
and the table is then the one a full read gives (same votes, order, codes and features); a change to a
kept vote (made invalid, its features or intent edited, an attribution added: logged by the database's
triggers, migration 0012) reads that vote again, alone, and a deleted one (or kept votes gone without a
trigger: a rolled-back test's) everything; a vote closed since the last cut
with a lower id than the kept ones is merged in vote order. The
ratings after the appended votes match a hand computation (a pair's maximum-likelihood difference is
its observed log-odds, ties half a win each way)."""

from __future__ import annotations

import datetime as dt
import math

import numpy as np
import pytest
from django.db import connection

from evaluators.arena.ratings import RatingResult
from leaderboard.arena import services
from leaderboard.arena.models import Battle, RatingSnapshot, Turn, TurnAttribution, Vote, VoteChange
from leaderboard.arena.services import ratings as ratings_service
from leaderboard.arena.services import vote_copy
from tests.arena.test_board import pair_rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def reads(monkeypatch, settings, tmp_path):
    """Each read_votes call's ``after`` (None: a full read) and the rows it returned; the kept rows in a
    directory of this test's own."""
    settings.VAR_DIR = tmp_path
    calls: list[tuple[int | None, int]] = []
    original = vote_copy.read_votes

    def recording(*args, **kwargs):  # type: ignore[no-untyped-def]
        found = original(*args, **kwargs)
        calls.append((kwargs.get("after"), len(found)))
        return found

    monkeypatch.setattr(vote_copy, "read_votes", recording)
    return calls


def assert_same_table(got: ratings_service.VoteTable, want: ratings_service.VoteTable) -> None:
    g, w = got.battles, want.battles
    assert g.models == w.models
    for name in ("a", "b", "outcome", "features_a", "features_b", "weights"):
        assert np.array_equal(getattr(g, name), getattr(w, name)), name
    for key in want.groups:
        (gc, gl), (wc, wl) = got.groups[key], want.groups[key]
        assert [gl[c] if c >= 0 else None for c in gc.tolist()] == [wl[c] if c >= 0 else None for c in wc.tolist()], key
    (gc, gl), (wc, wl) = got.intent_method, want.intent_method
    assert [gl[c] for c in gc.tolist()] == [wl[c] for c in wc.tolist()]
    assert np.array_equal(got.withheld, want.withheld)


def test_a_new_vote_is_read_alone_and_the_table_is_a_full_reads(seed_votes, reads):
    seed_votes(pair_rows("g", "Alpha", "Beta", 30, 10, 4), intent="Guidance", languages=("en",))
    first = services.vote_table(cached=True)
    assert reads == [(None, 44)]
    seed_votes(pair_rows("n", "Beta", "Gamma", 2, 1), intent="Analysis", languages=("de",), intent_method="a judge")
    again = services.vote_table(cached=True)
    kept_last = max(Vote.objects.values_list("pk", flat=True)) - 3
    assert reads[1:] == [(kept_last, 3)]  # only the three new votes
    assert len(first.battles) == 44 and len(again.battles) == 47
    assert_same_table(again, services.vote_table())
    assert again.groups["intent"][1] == ["Guidance", "Analysis"]  # a label first seen in the new votes added at the end
    services.vote_table(cached=True)
    assert reads[-1] == (kept_last + 3, 0)  # nothing new: nothing read but the checksum


@pytest.mark.parametrize("change", ["invalid", "deleted", "vanished", "features", "intent", "attribution"])
def test_a_changed_kept_vote_is_read_again_alone(seed_votes, reads, change):
    votes = seed_votes(pair_rows("g", "Alpha", "Beta", 6, 4, 2))
    services.vote_table(cached=True)
    vote = votes[3]
    if change == "invalid":
        Vote.objects.filter(pk=vote.pk).update(valid=False)
    elif change == "deleted":
        Vote.objects.filter(pk=vote.pk).delete()
    elif change == "vanished":  # gone without the trigger seeing it (as by a rollback or a TRUNCATE)
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # (no pending foreign-key checks: ALTER TABLE refuses them)
            cursor.execute("ALTER TABLE arena_vote DISABLE TRIGGER arena_vote_changed")
            cursor.execute("DELETE FROM arena_vote WHERE id = %s", [vote.pk])
            cursor.execute("ALTER TABLE arena_vote ENABLE TRIGGER arena_vote_changed")
        assert not VoteChange.objects.exists()
    elif change == "features":
        battle = Battle.objects.get(pk=vote.battle_id)
        battle.features_a = {**battle.features_a, "paper_response_length": 999}
        battle.save(update_fields=["features_a"])
    elif change == "intent":
        Battle.objects.filter(pk=vote.battle_id).update(primary_intent="Analysis")
    else:
        TurnAttribution.objects.create(
            turn=Turn.objects.get(battle_id=vote.battle_id), side="a", method="test", supported=2
        )
    again = services.vote_table(cached=True)
    gone = change in ("invalid", "deleted", "vanished")
    if change in ("deleted", "vanished"):  # fewer votes below the kept ids: everything read again
        assert reads[-1] == (None, 11)
    else:
        assert reads[-1] == (votes[-1].pk, 0 if gone else 1)  # the changed vote alone (when it still counts)
    assert len(again.battles) == (11 if gone else 12)
    assert_same_table(again, services.vote_table())
    if change == "features":
        assert again.battles.features_a[3, again.battles.feature_names.index("paper_response_length")] == 999


def test_a_vote_closed_since_the_last_cut_is_merged_in_vote_order(seed_votes, reads):
    early = seed_votes(pair_rows("g", "Alpha", "Beta", 5, 5))
    late = seed_votes(pair_rows("h", "Alpha", "Beta", 3, 0))
    seed_votes(pair_rows("i", "Beta", "Alpha", 2, 2))
    now = dt.datetime.now(dt.UTC)
    Vote.objects.filter(pk__in=[v.pk for v in late]).update(created_at=now)  # cast after the first cut
    Vote.objects.exclude(pk__in=[v.pk for v in late]).update(created_at=now - dt.timedelta(hours=1))
    VoteChange.objects.update(
        at=now - dt.timedelta(hours=1)
    )  # these edits (logged by the triggers) long before the read
    before = services.vote_table(cut=now - dt.timedelta(minutes=1), cached=True)
    assert len(before.battles) == 14 and reads[-1] == (None, 14)
    after = services.vote_table(cut=now + dt.timedelta(minutes=1), cached=True)
    assert reads[-1] == (
        max(v.pk for v in early + late) + 4,
        3,
    )  # only the three closed since, though their ids are lower
    assert_same_table(after, services.vote_table(cut=now + dt.timedelta(minutes=1)))


def test_ratings_after_appended_votes_match_a_hand_computation(seed_votes, reads, settings):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 5, 20
    seed_votes(pair_rows("g", "Alpha", "Beta", 30, 10))
    seed_votes(pair_rows("a", "Beta", "Gamma", 20, 6, 4), intent="Analysis")
    services.ratings_compute()
    seed_votes(pair_rows("m", "Alpha", "Beta", 10, 0, tag="more"))  # Alpha now 40:10 against Beta
    assert services.ratings_compute() > 0
    assert [after for after, _ in reads if after is not None] and reads[-2][
        1
    ] == 10  # the search setting's read: the new votes
    result = RatingResult.from_dict(
        RatingSnapshot.objects.filter(kind="raw", filter_key="").order_by("-pk").first().result
    )
    rating = {m.name: m.rating for m in result.models}
    assert rating["Alpha"] - rating["Beta"] == pytest.approx(400 * math.log10(40 / 10), abs=0.01)
    assert rating["Beta"] - rating["Gamma"] == pytest.approx(400 * math.log10((20 + 2) / (6 + 2)), abs=0.01)


def test_the_next_fit_starts_from_the_kept_one_and_gives_the_cold_figures(seed_votes, reads, settings, monkeypatch):
    """Each board's fit is kept beside the vote rows; after more votes the task starts every board's fit
    from it (``rate(start=...)``) and writes the snapshots a cold start writes (to 1e-6 points); the
    hand computation of the previous test holds for the warm one."""
    from evaluators.arena import ratings as engine
    from leaderboard.arena.services import rating_starts

    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 5, 20
    seed_votes(pair_rows("g", "Alpha", "Beta", 30, 10), intent="Guidance")
    seed_votes(pair_rows("a", "Beta", "Gamma", 20, 6, 4), intent="Analysis")
    services.ratings_compute()
    seed_votes(pair_rows("m", "Alpha", "Beta", 10, 0, tag="more"), intent="Guidance")  # Alpha now 40:10
    starts: list[object] = []
    real = engine.rate
    monkeypatch.setattr(engine, "rate", lambda *a, **k: starts.append(k.get("start")) or real(*a, **k))

    def boards() -> dict[tuple[str, str, str], RatingResult]:
        latest = RatingSnapshot.objects.order_by("-pk")[: 2 * 4]  # all votes, two intents, a language; raw, style
        return {(s.kind, s.filter_key, s.filter_value): RatingResult.from_dict(s.result) for s in latest}

    services.ratings_compute()
    warm = boards()
    assert len(starts) == 8 and all(start and start["models"] for start in starts)
    assert set(starts[1]["coefficients"]) == set(ratings_service.style_definition())  # the style board's start
    rating = {m.name: m.rating for m in warm[("raw", "", "")].models}
    assert rating["Alpha"] - rating["Beta"] == pytest.approx(400 * math.log10(40 / 10), abs=0.01)
    for path in rating_starts.vote_cache_dir().glob("fits-*.json"):
        path.unlink()
    starts.clear()
    services.ratings_compute(force=True)
    assert starts == [None] * 8
    for board, cold in boards().items():
        got = warm[board]
        assert [m.name for m in got.models] == [m.name for m in cold.models], board
        for new, old in zip(got.models, cold.models):
            assert (new.rating, new.ci_low, new.ci_high) == pytest.approx(
                (old.rating, old.ci_low, old.ci_high), abs=1e-6
            )
        assert [c.value for c in got.coefficients] == pytest.approx([c.value for c in cold.coefficients], abs=1e-6)


def test_the_orm_read_gives_the_copys_rows(seed_votes):
    """The read for databases other than PostgreSQL (``vote_copy._read_orm``) against the binary COPY,
    on the same votes: imported and unrecorded intent methods, no language, an attribution, a propensity."""
    from leaderboard.arena.services.attribution import battle_attribution_features

    votes = seed_votes(pair_rows("g", "Alpha", "Beta", 4, 3, 2), intent="Guidance", languages=("en",))
    seed_votes(pair_rows("a", "Beta", "Gamma", 2, 2), intent="", languages=(), intent_method="")
    Battle.objects.filter(pk=votes[0].battle_id).update(conv_id="imported-1", extra={}, propensity=0.25)
    TurnAttribution.objects.create(
        turn=Turn.objects.get(battle_id=votes[1].battle_id), side="b", method="test", supported=3
    )
    names = ("paper_response_length", "supported_citations", "citation_count")
    attributed = battle_attribution_features()
    copied = vote_copy.read_votes("search", None, names, attributed=attributed)
    orm = vote_copy._read_orm("search", None, names, after=None, old_cut=None, again=None, attributed=attributed)
    assert (
        copied.labels
        == orm.labels
        == {
            "intent": ["Guidance"],
            "language": ["en"],
            "method": [vote_copy.IMPORTED_INTENT_METHOD, "rules-v1 (keyword rules, no model)", "not recorded"],
        }
    )
    for name, value in copied.arrays().items():
        assert np.array_equal(value, orm.arrays()[name]), name
    assert copied.weight[0] == 4.0 and copied.fb[1, 1] == 3.0
