"""The transparency report against the database: battle shares and the policy's targets worked out by
hand, model lives with a retirement (rating frozen, votes kept in the fit), excluded votes per week by
reason, rank spreads from a hand-written snapshot, pre-release testing, and the flips to swap each pair of
neighbours against a brute-force count over every subset of head-to-head votes, with a Bradley-Terry fit
written here (Zermelo's iteration), not the site's."""

from __future__ import annotations

import datetime as dt
import itertools
import random

import pytest

pytestmark = pytest.mark.django_db


def snapshot(rows, *, kind="raw", min_votes=30):
    """A rating snapshot with hand-written rows (name, rating, ci_low, ci_high, votes), under a fresh
    fingerprint (the flips are cached under it)."""
    import uuid

    from leaderboard.arena.models import RatingSnapshot

    fingerprint = uuid.uuid4().hex

    models = [
        {
            "name": n,
            "rating": r,
            "ci_low": lo,
            "ci_high": hi,
            "votes": v,
            "provisional": v < min_votes,
            "note": "",
            "rank_ub": 1,
            "bounded": True,
            "rankable": True,
        }
        for n, r, lo, hi, v in rows
    ]
    return RatingSnapshot.objects.create(
        kind=kind,
        result={"models": models},
        n_votes=sum(r[4] for r in rows) // 2,
        fingerprint=fingerprint,
        config={"min_votes": min_votes},
    )


def test_shares_targets_lives_exclusions_and_spreads_match_the_database(seed_votes, settings, client):
    from leaderboard.arena.models import ArenaModel, Battle, Vote, VoteExclusion
    from leaderboard.arena.services import vote_exclude
    from leaderboard.arena.services.lifecycle import model_retire
    from leaderboard.arena.transparency import rank_spreads, transparency_report

    settings.ARENA_ACTIVE_SAMPLING = False
    votes = seed_votes(
        [
            ("v1", "M1", "M2", "model_a", "p1"),
            ("v2", "M1", "M2", "model_b", "p2"),
            ("v3", "M2", "M1", "tie", "p3"),
            ("v4", "M1", "M3", "model_a", "p4"),
            ("v5", "M3", "M1", "model_a", "p5"),
            ("v6", "M2", "M3", "model_b", "p6"),
        ]
    )
    M1, _M2, M3 = (ArenaModel.objects.get(name=n) for n in ("M1", "M2", "M3"))
    ArenaModel.objects.filter(name__in=["M1", "M2"]).update(organization="P")
    ArenaModel.objects.filter(name="M3").update(organization="Q")
    ArenaModel.objects.create(name="M4", organization="Q", weight=2.0)
    # an imported battle was not drawn by the sampler: it is not counted
    Battle.objects.create(model_a=M1, model_b=M3, voter_hash="x", conv_id="released-1")
    # two weeks: the first three votes on Tuesday 2026-11-03, the rest on Monday 2026-11-09
    week1, week2 = dt.datetime(2026, 11, 3, 12, tzinfo=dt.UTC), dt.datetime(2026, 11, 9, 8, tzinfo=dt.UTC)
    for i, vote in enumerate(votes):
        Vote.objects.filter(pk=vote.pk).update(
            created_at=week1 + dt.timedelta(hours=i) if i < 3 else week2 + dt.timedelta(hours=i)
        )
    vote_exclude(vote=votes[0], code=VoteExclusion.Code.SELF_IDENTIFICATION, detail="named itself")
    vote_exclude(vote=votes[0], code=VoteExclusion.Code.DAILY_CAP, detail="cap")
    vote_exclude(vote=votes[4], code=VoteExclusion.Code.ANOMALOUS_VOTER, detail="z = -5")
    snapshot([("M1", 1010.0, 980.0, 1040.0, 5), ("M2", 1000.0, 990.0, 1005.0, 40), ("M3", 950.0, 900.0, 985.0, 3)])
    model_retire(name="M3", reason="deprecated by its maker")

    report = transparency_report()
    shares = report["shares"]
    # by hand: 6 drawn battles, 12 seats; M1 sits in 5 battles, M2 in 4, M3 in 3; M4 in none
    assert shares["battles"] == 6 and shares["seats"] == 12
    by_name = {r["name"]: r for r in shares["models"]}
    assert {n: r["battles"] for n, r in by_name.items()} == {"M1": 5, "M2": 4, "M3": 3, "M4": 0}
    assert by_name["M1"]["share"] == pytest.approx(5 / 12) and by_name["M3"]["share"] == pytest.approx(3 / 12)
    assert by_name["M1"]["ci_low"] < 5 / 12 < by_name["M1"]["ci_high"]
    # the policy now: M3 is retired; weights M1 = M2 = 1, M4 = 2, all boosted alike (fewer than 300 votes).
    # Pair scores M1M2 = 1, M1M4 = 2, M2M4 = 2 (total 5): P(M1 drawn) = 3/5, so its seat share is 0.3; M4's 4/5 -> 0.4
    assert by_name["M1"]["target"] == pytest.approx(0.3) and by_name["M2"]["target"] == pytest.approx(0.3)
    assert by_name["M4"]["target"] == pytest.approx(0.4) and by_name["M3"]["target"] is None
    providers = {p["provider"]: p for p in shares["providers"]}
    assert providers["P"]["battles"] == 9 and providers["P"]["share"] == pytest.approx(9 / 12)
    assert providers["Q"]["battles"] == 3 and providers["Q"]["target"] == pytest.approx(0.4)
    assert "fewer than 300 counted votes" in report["policy"] and "multiplied by 4" in report["policy"]

    lives = {m["name"]: m for m in report["lives"]}
    assert lives["M3"]["status"] == "retired" and lives["M3"]["retire_reason"] == "deprecated by its maker"
    assert lives["M3"]["final_rating"]["raw"]["rating"] == 950.0  # frozen from the latest ratings
    # its counted votes stay in the fit: votes 4 and 6 (vote 5 was excluded)
    assert lives["M3"]["votes_in_fit"] == 2
    assert lives["M1"]["first_counted_vote_at"] == week1 + dt.timedelta(hours=1)  # vote 0 was excluded
    assert lives["M4"]["first_counted_vote_at"] is None and lives["M4"]["status"] == "drawn"
    assert not ArenaModel.objects.get(name="M3").enabled

    weeks = {w["week"]: w for w in report["exclusions"]["weeks"]}
    codes = report["exclusions"]["codes"]
    first, second = weeks[dt.date(2026, 11, 2)], weeks[dt.date(2026, 11, 9)]
    assert (first["votes"], first["excluded"], second["votes"], second["excluded"]) == (3, 1, 3, 1)
    assert first["reasons"][codes.index("self_identification")] == 1 and first["reasons"][codes.index("daily_cap")] == 1
    assert second["reasons"][codes.index("anomalous_voter")] == 1 and sum(second["reasons"]) == 1

    # rank spreads by hand: M1 [980, 1040], M2 [990, 1005], M3 [900, 985]. Best = 1 + intervals wholly above;
    # worst = 1 + the others whose upper end is above its lower end.
    spreads = {r["name"]: r for r in rank_spreads(snapshot_latest())}
    assert (spreads["M1"]["best"], spreads["M1"]["worst"]) == (1, 3)  # M3's upper end 985 is above M1's lower end 980
    assert (spreads["M2"]["best"], spreads["M2"]["worst"]) == (1, 2)
    assert (spreads["M3"]["best"], spreads["M3"]["worst"]) == (2, 3)  # M2's interval lies wholly above M3's
    assert spreads["M1"]["provisional"] and not spreads["M2"]["provisional"] and report["provisional_below"] == 30

    page = client.get("/arena/transparency/").content.decode()
    assert "deprecated by its maker" in page and "provisional" in page and "The operator does not allow it" in page
    api = client.get("/api/arena/transparency/").json()
    assert api["shares"]["battles"] == 6 and api["lives"][0]["name"] in {"M1", "M2", "M3", "M4"}


def test_battle_seats_votes_in_the_fit_and_flips_are_counted_per_setting(seed_votes, settings, client):
    """Search battles are the report's own; the plain-chat setting's are counted apart, against their own
    target (drawn among the models that can answer without search). Pooled, M2 would sit in 8 of 18."""
    from django.db.models import Q

    from leaderboard.arena.models import ArenaModel, Battle
    from leaderboard.arena.transparency import transparency_report

    settings.ARENA_ACTIVE_SAMPLING = False
    seed_votes(
        [
            ("s1", "M1", "M2", "model_a", "p1"),
            ("s2", "M2", "M1", "model_b", "p2"),
            ("s3", "M1", "M2", "model_b", "p3"),
            ("s4", "M1", "M3", "model_a", "p4"),
        ]
    )
    seed_votes(
        [
            ("c1", "M1", "M2", "model_b", "q1"),
            ("c2", "M2", "M1", "model_a", "q2"),
            ("c3", "M2", "M4", "model_a", "q3"),
            ("c4", "M4", "M2", "model_a", "q4"),
            ("c5", "M2", "M4", "tie", "q5"),
        ],
        setting="chat",
    )
    ArenaModel.objects.filter(name__in=["M1", "M2", "M4"]).update(
        responder={"kind": "chat"}
    )  # M3 answers only with search
    snapshot([("M1", 1010.0, 980.0, 1040.0, 4), ("M2", 990.0, 960.0, 1020.0, 3)])

    report = transparency_report()
    search, chat = report["shares"], report["chat_shares"]
    # by hand: search 4 battles (M1 in 4, M2 in 3, M3 in 1); chat 5 battles (M1 in 2, M2 in 5, M4 in 3)
    assert (search["setting"], search["battles"], search["seats"]) == ("search", 4, 8)
    assert (chat["setting"], chat["battles"], chat["seats"]) == ("chat", 5, 10)
    assert {r["name"]: r["battles"] for r in search["models"]} == {"M1": 4, "M2": 3, "M3": 1, "M4": 0}
    assert {r["name"]: r["battles"] for r in chat["models"]} == {"M1": 2, "M2": 5, "M4": 3}
    for part in (search, chat):  # and from the database, setting by setting
        drawn = Battle.objects.filter(setting=part["setting"], conv_id__isnull=True)
        assert part["battles"] == drawn.count()
        for row in part["models"]:
            assert row["battles"] == drawn.filter(Q(model_a__name=row["name"]) | Q(model_b__name=row["name"])).count()
            assert row["share"] == pytest.approx(row["battles"] / part["seats"])
    # the targets: search draws among all four (each in 3 of 6 equal pairs: seat share 1/4); chat among
    # M1, M2 and M4 (each in 2 of 3 pairs: 1/3), and never M3
    assert {r["name"]: r["target"] for r in search["models"]} == pytest.approx(
        {"M1": 0.25, "M2": 0.25, "M3": 0.25, "M4": 0.25}
    )
    assert {r["name"]: r["target"] for r in chat["models"]} == pytest.approx({"M1": 1 / 3, "M2": 1 / 3, "M4": 1 / 3})

    lives = {m["name"]: m for m in report["lives"]}
    assert {n: (m["votes_in_fit"], m["chat_votes_in_fit"]) for n, m in lives.items()} == {
        "M1": (4, 2),
        "M2": (3, 5),
        "M3": (1, 0),
        "M4": (0, 3),
    }
    # the flips order the search board on the search votes: M1 and M2 met 3 times there (5 with chat's)
    (pair,) = report["flips"]["pairs"]
    assert {pair["upper"], pair["lower"]} == {"M1", "M2"} and pair["head_to_head"] == 3

    api = client.get("/api/arena/transparency/").json()
    assert api["shares"]["battles"] == 4 and api["chat_shares"]["battles"] == 5
    page = client.get("/arena/transparency/").content.decode()
    assert (
        'id="shares-models"' in page
        and 'id="chat-shares-models"' in page
        and "4 battles drawn in the Search Arena" in page
    )
    assert "5 battles drawn in the plain-chat setting" in page


def snapshot_latest():
    from leaderboard.arena.selectors import latest_snapshots

    return latest_snapshots().raw


def test_retiring_needs_a_reason_and_happens_once():
    from leaderboard.arena.models import ArenaModel
    from leaderboard.arena.services import ArenaRefused
    from leaderboard.arena.services.lifecycle import model_retire

    ArenaModel.objects.create(name="Old")
    with pytest.raises(ArenaRefused, match="reason"):
        model_retire(name="Old", reason="  ")
    with pytest.raises(ArenaRefused, match="no arena model"):
        model_retire(name="Missing", reason="gone")
    model_retire(name="Old", reason="replaced")
    with pytest.raises(ArenaRefused, match="already retired"):
        model_retire(name="Old", reason="again")


def test_prerelease_variants_are_drawn_only_when_allowed_and_scored_at_release(settings, client):
    from leaderboard.arena.models import ArenaModel
    from leaderboard.arena.services.battles import sampler_models
    from leaderboard.arena.services.lifecycle import prerelease_release

    for name, org, pre in (
        ("Public-1", "Acme", False),
        ("Public-2", "Other", False),
        ("codename-x", "Acme", True),
        ("codename-y", "Acme", True),
    ):
        ArenaModel.objects.create(name=name, organization=org, prerelease=pre)
    snapshot(
        [
            ("codename-x", 1030.0, 1000.0, 1060.0, 50),
            ("codename-y", 990.0, 960.0, 1020.0, 50),
            ("Public-1", 1000.0, 990.0, 1010.0, 80),
            ("Public-2", 980.0, 970.0, 990.0, 80),
        ]
    )
    settings.ARENA_PRERELEASE_TESTING = False
    assert {m.name for m in sampler_models()} == {"Public-1", "Public-2"}
    settings.ARENA_PRERELEASE_TESTING = True
    assert {m.name for m in sampler_models()} == {"Public-1", "Public-2", "codename-x", "codename-y"}
    before = client.get("/arena/transparency/").content.decode()
    assert "codename-x" not in before and "codename-y" not in before  # anonymous while tested
    prerelease_release(name="codename-x")
    after = client.get("/api/arena/transparency/").json()["prerelease"]
    acme = next(p for p in after["providers"] if p["provider"] == "Acme")
    released = {r["name"]: r for r in acme["released"]}
    assert (
        acme["testing"] == 0 and released["codename-x"]["was_released"] and not released["codename-y"]["was_released"]
    )
    assert released["codename-y"]["final_rating"]["raw"]["rating"] == 990.0  # the variant not released is published too
    assert ArenaModel.objects.get(name="codename-y").retired_at is not None


# --- flips to swap --------------------------------------------------------------------------------


def zermelo(models, votes, rounds=5000):
    """Bradley-Terry strengths by Zermelo's iteration, ties as half a win each way; log-strengths."""
    import math

    wins = dict.fromkeys(models, 0.0)
    games = {}
    for a, b, winner in votes:
        score = {"model_a": 1.0, "model_b": 0.0}.get(winner, 0.5)
        wins[a] += score
        wins[b] += 1.0 - score
        games[frozenset((a, b))] = games.get(frozenset((a, b)), 0) + 1
    p = dict.fromkeys(models, 1.0)
    for _ in range(rounds):
        new = {
            m: wins[m] / sum(n / (p[m] + p[o]) for pair, n in games.items() if m in pair for o in pair - {m})
            for m in models
        }
        scale = math.exp(sum(math.log(v) for v in new.values()) / len(new))
        new = {m: v / scale for m, v in new.items()}
        if max(abs(new[m] - p[m]) for m in models) < 1e-13:
            p = new
            break
        p = new
    return {m: math.log(v) for m, v in p.items()}


def brute_force_flips(models, votes, upper, lower):
    """The fewest head-to-head votes to flip towards ``lower`` (an upper win or a tie becomes a lower
    win) for ``lower`` to be rated at or above ``upper``: every subset, smallest first."""
    flippable = [
        i
        for i, (a, b, w) in enumerate(votes)
        if {a, b} == {upper, lower} and not ((a == lower and w == "model_a") or (b == lower and w == "model_b"))
    ]
    for size in range(len(flippable) + 1):
        for chosen in itertools.combinations(flippable, size):
            changed = [
                (a, b, ("model_a" if a == lower else "model_b") if i in chosen else w)
                for i, (a, b, w) in enumerate(votes)
            ]
            fitted = zermelo(models, changed)
            if fitted[lower] >= fitted[upper]:
                return size
    return None


def test_flips_to_swap_match_a_brute_force_count_on_simulated_votes(seed_votes, client):
    from leaderboard.arena.transparency import neighbour_flips

    rng = random.Random(7)
    strength = {"Alpha": 0.9, "Bravo": 0.5, "Charlie": 0.3, "Delta": -0.4}
    names = list(strength)
    votes = []
    for _ in range(44):
        a, b = rng.sample(names, 2)
        p = 1 / (1 + pow(2.718281828, strength[b] - strength[a]))
        draw = rng.random()
        votes.append((a, b, "tie" if draw < 0.12 else "model_a" if draw < 0.12 + 0.88 * p else "model_b"))
    seed_votes([(f"voter{i}", a, b, w, f"prompt {i}") for i, (a, b, w) in enumerate(votes)])
    fitted = zermelo(names, votes)
    order = sorted(names, key=lambda m: -fitted[m])
    snapshot([(m, 1000 + 100 * fitted[m], 990 + 100 * fitted[m], 1010 + 100 * fitted[m], 20) for m in order])

    pairs = neighbour_flips()["pairs"]
    assert [(p["upper"], p["lower"]) for p in pairs] == list(itertools.pairwise(order))
    expected = [brute_force_flips(names, votes, upper, lower) for upper, lower in itertools.pairwise(order)]
    assert [p["needed"] for p in pairs] == expected
    assert any(n is not None and n > 0 for n in expected)  # a real search, not all zeros or impossible
    for p in pairs:  # the head-to-head record, counted here
        h2h = [(a, b, w) for a, b, w in votes if {a, b} == {p["upper"], p["lower"]}]
        upper_wins = sum(
            1 for a, b, w in h2h if (a == p["upper"] and w == "model_a") or (b == p["upper"] and w == "model_b")
        )
        assert (p["upper_wins"], p["ties"], p["head_to_head"]) == (
            upper_wins,
            sum(1 for *_, w in h2h if w == "tie"),
            len(h2h),
        )
    page = client.get("/arena/transparency/").content.decode()
    assert "flips to swap" in page and all(p["upper"] in page for p in pairs)


def test_staff_retire_from_the_admin_and_the_command(staff_client):
    from io import StringIO

    from django.core.management import CommandError, call_command

    from leaderboard.arena.models import ArenaModel

    old = ArenaModel.objects.create(name="Old-1", retire_reason="superseded by Old-2")
    ArenaModel.objects.create(name="Old-3")
    response = staff_client.post("/admin/arena/arenamodel/", {"action": "retire", "_selected_action": [old.pk]})
    assert response.status_code == 302
    old.refresh_from_db()
    assert old.retired_at is not None and not old.enabled and old.retire_reason == "superseded by Old-2"
    with pytest.raises(CommandError, match="reason"):
        call_command("arena_retire", "Old-3")
    out = StringIO()
    call_command("arena_retire", "Old-3", "--reason", "its API was shut down", stdout=out)
    assert (
        "retired Old-3" in out.getvalue()
        and ArenaModel.objects.get(name="Old-3").retire_reason == "its API was shut down"
    )
    assert staff_client.get("/admin/arena/turnattribution/").status_code == 200
