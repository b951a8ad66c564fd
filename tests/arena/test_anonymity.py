"""Nothing public tells a voter who is in their battle (issue 44): every public arena figure counts a battle
only once it is closed and a delay has passed, at a fixed boundary (``selectors.public_cut``); a pre-release
variant's record cannot be rebuilt from any public response; each side's latency stays hidden until the vote.

The tests run with the site's own delay (``leaderboard.settings``, not the 0 the other tests use) and move
the clock the public figures read (``selectors.clock``) instead of sleeping. When a battle enters is worked
out here from the rule as the transparency page states it: closed at ``c`` (seconds since the epoch), it
counts from the second multiple of the delay ``D`` after ``c``, ``(floor(c / D) + 2) * D``, and not a
microsecond before."""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from typing import Any

import pytest

from tests.arena.conftest import NAME_A, NAME_B, voter_of_client

pytestmark = pytest.mark.django_db

SLUG_A = "zorblax-quintet-7"


@pytest.fixture
def real_delay(settings) -> int:
    """The site's configured delay, in place of the tests' 0."""
    import leaderboard.settings as site

    settings.ARENA_PUBLIC_DELAY_SECONDS = site.ARENA_PUBLIC_DELAY_SECONDS
    assert settings.ARENA_PUBLIC_DELAY_SECONDS >= 60
    return int(settings.ARENA_PUBLIC_DELAY_SECONDS)


class Clock:
    """The present as the public figures read it, set by the test."""

    def __init__(self, now: dt.datetime) -> None:
        self.now = now

    def __call__(self) -> dt.datetime:
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    from django.utils import timezone

    moved = Clock(timezone.now())
    monkeypatch.setattr("leaderboard.arena.selectors.clock", moved, raising=False)
    return moved


def enters_at(closed: dt.datetime, delay: int) -> dt.datetime:
    """When a battle closed at ``closed`` enters the public figures, by the stated rule."""
    return dt.datetime.fromtimestamp((math.floor(closed.timestamp() / delay) + 2) * delay, tz=dt.UTC)


def _seed_public_history(seed_votes, user, delay: int, now: dt.datetime) -> None:
    """Twelve voted battles between the two contestants, long public (3 delays and a day old), with their
    citation attributions; and contestant A's catalog record (linked by staff), for its model page."""
    from leaderboard.arena.models import ArenaModel, Turn, TurnAttribution, Vote
    from leaderboard.catalog.models import Model

    rows = [(f"voter-{i}", NAME_A, NAME_B, "model_a" if i % 3 else "model_b", f"old prompt {i}") for i in range(12)]
    votes = seed_votes(rows)
    Vote.objects.filter(pk__in=[v.pk for v in votes]).update(created_at=now - dt.timedelta(seconds=3 * delay, days=1))
    for turn in Turn.objects.filter(battle__vote__in=votes):
        for side in ("a", "b"):
            TurnAttribution.objects.create(turn=turn, side=side, method="test labels", supported=2, irrelevant=1)
    model = Model.objects.create(name=NAME_A, slug=SLUG_A, organization="Quuxworks Ltd", owner=user)
    ArenaModel.objects.filter(name=NAME_A).update(
        catalog_model=model
    )  # staff link the contestant to its catalog record


PUBLIC_URLS = (
    "/api/arena/transparency/",
    "/api/arena/ratings/",
    "/api/arena/ratings/?intent=Guidance",
    "/api/arena/ratings/?language=en",
    f"/api/models/{SLUG_A}/profile/",
)


MODEL_PAGE = f"/models/{SLUG_A}/"


def public_responses(client) -> dict[str, bytes]:
    """The public answers, byte for byte; of the model page (whose forms carry a fresh CSRF token on each
    render), its citation statistics' paragraph."""
    found = {}
    for url in PUBLIC_URLS:
        response = client.get(url)
        assert response.status_code == 200, url
        found[url] = response.content
    page = client.get(MODEL_PAGE)
    assert page.status_code == 200
    found[MODEL_PAGE] = re.search(rb'<p class="meta" id="arena-attribution">.*?</p>', page.content, re.S).group(0)
    return found


def _row(snapshots: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    snapshot = next(s for s in snapshots if s["kind"] == kind)
    return next(m for m in snapshot["result"]["models"] if m["name"] == name)


def test_starting_answering_and_voting_change_no_public_figure_until_the_delay_has_passed(
    seed_votes, make_battle, contestants, user, client, real_delay, clock
):
    from leaderboard.arena import services
    from leaderboard.arena.models import Battle, TurnAttribution

    _seed_public_history(seed_votes, user, real_delay, clock.now)
    services.ratings_compute()
    voter = voter_of_client(client)  # the voter reads every page in their own session (never a cached page)
    before = public_responses(client)
    shares = {m["name"]: m["battles"] for m in json.loads(before["/api/arena/transparency/"])["shares"]["models"]}
    assert shares == {NAME_A: 12, NAME_B: 12}
    # 12 answers of A, each with 2 supported and 1 irrelevant citation checked
    assert b"(36 in 12 answers" in before[MODEL_PAGE]
    assert _row(json.loads(before["/api/arena/ratings/"]), "raw", NAME_A)["votes"] == 12

    # the voter starts a battle; both answers come in and are attributed (A's pane cites 3 times, B's once)
    battle = make_battle(voter)
    Battle.objects.filter(pk=battle.pk).update(primary_intent="Guidance", languages=["en"])
    turn = battle.turns.get()
    TurnAttribution.objects.create(turn=turn, side="a", method="test labels", supported=3)
    TurnAttribution.objects.create(turn=turn, side="b", method="test labels", supported=1)
    assert public_responses(client) == before

    # the vote (A is better): the ratings task runs and nothing public moves
    vote = services.vote_cast(battle=battle, winner="model_a", voter=voter)
    assert services.ratings_compute() == 0
    assert public_responses(client) == before

    # a microsecond before the boundary the rule names, still nothing; the periodic pass finds no change
    entry = enters_at(vote.created_at, real_delay)
    assert real_delay <= (entry - vote.created_at).total_seconds() <= 2 * real_delay
    clock.now = entry - dt.timedelta(microseconds=1)
    assert services.ratings_compute() == 0
    assert public_responses(client) == before

    # at the boundary the battle is in every figure at once
    clock.now = entry
    assert services.ratings_compute() > 0
    after = public_responses(client)
    assert all(after[url] != before[url] for url in [*PUBLIC_URLS, MODEL_PAGE])
    report = json.loads(after["/api/arena/transparency/"])
    assert {m["name"]: m["battles"] for m in report["shares"]["models"]} == {NAME_A: 13, NAME_B: 13}
    assert {life["name"]: life["votes_in_fit"] for life in report["lives"]} == {NAME_A: 13, NAME_B: 13}
    ratings = json.loads(after["/api/arena/ratings/"])
    # the old battles: A won the 8 whose index is not a multiple of 3, B the 4 others; now A won one more
    assert {k: _row(ratings, "raw", NAME_A)[k] for k in ("votes", "wins", "losses")} == {
        "votes": 13,
        "wins": 9,
        "losses": 4,
    }
    assert all(s["n_votes"] == 13 for s in json.loads(after["/api/arena/ratings/?intent=Guidance"]))
    assert all(s["n_votes"] == 13 for s in json.loads(after["/api/arena/ratings/?language=en"]))
    assert b"(39 in 13 answers" in after[MODEL_PAGE]  # 36 + the 3 of A's pane, in 12 + 1 answers
    assert json.loads(after[f"/api/models/{SLUG_A}/profile/"])["arena"]["votes"] == 13


def test_an_open_battle_never_counts_however_long_it_waits(make_battle, contestants, client, real_delay, clock):
    """An open battle is in no figure, whatever the clock; once abandoned (a day after it started) it is
    counted from then, at the boundary, like a voted one."""
    from django.utils import timezone

    from leaderboard.arena import services
    from leaderboard.arena.models import Battle

    before = client.get("/api/arena/transparency/").content
    battle = make_battle(voter_of_client(client))
    clock.now += dt.timedelta(days=3)
    assert client.get("/api/arena/transparency/").content == before  # still open
    started = timezone.now() - dt.timedelta(days=2)
    Battle.objects.filter(pk=battle.pk).update(created_at=started)
    assert services.battle_abandon_stale() == 1
    entry = enters_at(started + dt.timedelta(days=1), real_delay)
    clock.now = entry - dt.timedelta(microseconds=1)
    assert client.get("/api/arena/transparency/").content == before
    clock.now = entry
    shares = client.get("/api/arena/transparency/").json()["shares"]
    assert shares["battles"] == 1 and {m["name"]: m["battles"] for m in shares["models"]} == {NAME_A: 1, NAME_B: 1}


def test_the_cut_is_a_fixed_boundary_a_delay_behind(settings):
    """Hand-worked: with a delay of 3600 s, at 10:59:59 UTC the cut is 09:00, at 11:00:00 it is 10:00."""
    from leaderboard.arena.selectors import public_cut

    settings.ARENA_PUBLIC_DELAY_SECONDS = 3600
    day = dt.datetime(2026, 3, 14, tzinfo=dt.UTC)
    assert public_cut(day.replace(hour=10, minute=59, second=59)) == day.replace(hour=9)
    assert public_cut(day.replace(hour=11)) == day.replace(hour=10)
    assert public_cut(day.replace(hour=11, microsecond=1)) == day.replace(hour=10)
    settings.ARENA_PUBLIC_DELAY_SECONDS = 0
    assert public_cut(day.replace(hour=11, minute=7)) == day.replace(hour=11, minute=7)


VARIANT = "Quasar-Heron-Prerelease"


def _download_rows(client, url: str) -> list[dict[str, Any]] | None:
    response = client.get(url)
    if response.status_code == 404:
        return None
    assert response.status_code == 200, url
    return [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines() if line]


def _records(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Each model's votes, wins and losses among the counted rows of a votes download."""
    found: dict[str, dict[str, int]] = {}
    for row in rows:
        if not row["arena"]["valid"]:
            continue
        for side, other in (("a", "b"), ("b", "a")):
            mine = found.setdefault(row[f"model_{side}"], {"votes": 0, "wins": 0, "losses": 0})
            mine["votes"] += 1
            mine["wins"] += row["winner"] == f"model_{side}"
            mine["losses"] += row["winner"] == f"model_{other}"
    return found


def test_a_prerelease_variants_record_cannot_be_rebuilt_from_the_public_ratings(
    seed_votes, client, settings, real_delay, clock
):
    """Every board's counts are those of its votes download; the variant's battles (here all it had were
    "Analysis" prompts) make no board, no count and no download until its provider releases it."""
    from leaderboard.arena import services
    from leaderboard.arena.models import ArenaModel, Vote

    settings.ARENA_PRERELEASE_TESTING = True
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 1, 10
    ArenaModel.objects.create(name=VARIANT, organization="Acme", prerelease=True)
    public = [(f"v{i}", "Open-One", "Open-Two", "model_a" if i % 4 else "tie", f"guide {i}") for i in range(8)]
    public += [(f"w{i}", "Open-Two", "Open-Three", "model_b" if i % 2 else "model_a", f"guide b {i}") for i in range(6)]
    # the variant beat Open-One 5 times and lost to Open-Two twice, all on Analysis prompts
    hidden = [(f"x{i}", VARIANT, "Open-One", "model_a", f"analyse {i}") for i in range(5)]
    hidden += [(f"y{i}", "Open-Two", VARIANT, "model_a", f"analyse b {i}") for i in range(2)]
    votes = seed_votes(public) + seed_votes(hidden, intent="Analysis")
    Vote.objects.filter(pk__in=[v.pk for v in votes]).update(
        created_at=clock.now - dt.timedelta(seconds=3 * real_delay)
    )
    services.ratings_compute()

    ratings = client.get("/api/arena/ratings/").json()
    downloaded = _download_rows(client, "/arena/votes.jsonl")
    assert downloaded is not None and len(downloaded) == 14
    # hand-counted from the public rows: Open-One 8 votes (6 wins, 2 ties), Open-Two 14 (6 losses and 2 ties
    # against Open-One; 3 wins and 3 losses against Open-Three), Open-Three 6 (3 wins, 3 losses)
    expected = {
        "Open-One": {"votes": 8, "wins": 6, "losses": 0},
        "Open-Two": {"votes": 14, "wins": 3, "losses": 9},
        "Open-Three": {"votes": 6, "wins": 3, "losses": 3},
    }
    assert _records(downloaded) == expected
    for kind in ("raw", "style"):
        for name, record in expected.items():
            assert {k: _row(ratings, kind, name)[k] for k in record} == record, (kind, name)
    assert all(s["n_votes"] == 14 for s in ratings)
    guidance = client.get("/api/arena/ratings/?intent=Guidance").json()
    assert {m["name"]: m["votes"] for m in guidance[0]["result"]["models"]} == {
        "Open-One": 8,
        "Open-Two": 14,
        "Open-Three": 6,
    }
    # the Analysis prompts were all the variant's: no board, no download
    assert client.get("/api/arena/ratings/?intent=Analysis").json() == []
    assert _download_rows(client, "/arena/votes.jsonl?intent=Analysis") is None
    assert "Analysis" not in client.get("/arena/leaderboard/").content.decode()
    report = client.get("/api/arena/transparency/").json()
    assert {life["name"]: life["votes_in_fit"] for life in report["lives"]} == {
        "Open-One": 8,
        "Open-Two": 14,
        "Open-Three": 6,
    }
    assert sum(w["votes"] for w in report["exclusions"]["weeks"]) == 14
    assert [p["testing"] for p in report["prerelease"]["providers"] if p["provider"] == "Acme"] == [1]


def test_latency_and_other_per_side_details_are_hidden_until_the_vote(make_battle, client):
    from leaderboard.arena import services

    voter = voter_of_client(client)
    battle = make_battle(voter)
    state = client.get(f"/api/arena/battles/{battle.public_id}/").json()
    sides = [state["turns"][0][f"answer_{s}"] for s in ("a", "b")]
    assert [side["latency_s"] for side in sides] == [None, None]
    assert [side["searches"] for side in sides] == [[], []] and [side["error"] for side in sides] == ["", ""]
    pane = client.get(f"/arena/b/{battle.public_id}/turns/0/a/").content.decode()
    assert "latency" not in pane.lower() and "0.1 s" not in pane

    services.vote_cast(battle=battle, winner="tie", voter=voter)
    state = client.get(f"/api/arena/battles/{battle.public_id}/").json()
    # the answers of conftest.answer: 0.1 s each
    assert [state["turns"][0][f"answer_{s}"]["latency_s"] for s in ("a", "b")] == [0.1, 0.1]


def test_the_transparency_page_and_api_state_the_rule_with_the_sites_delay(client, settings):
    settings.ARENA_PUBLIC_DELAY_SECONDS = 3600
    page = client.get("/arena/transparency/").content.decode()
    rule = client.get("/api/arena/transparency/").json()["public_rule"]
    assert "at the second 60 minutes boundary (UTC) after its closing: between 60 minutes and twice that" in rule
    assert "pre-release variants still under test are in no public count" in rule
    assert rule.replace("'", "&#x27;") in page


def test_the_voter_is_told_when_their_vote_reaches_the_public_figures(make_battle, client, real_delay):
    from leaderboard.arena import services
    from leaderboard.arena.models import Vote

    voter = voter_of_client(client)
    battle = make_battle(voter)
    vote = services.vote_cast(battle=battle, winner="model_a", voter=voter)
    # cast at 10:17:30 UTC: with the site's delay of an hour, the cut passes it at the second full hour after, 12:00
    assert real_delay == 3600
    Vote.objects.filter(pk=vote.pk).update(created_at=dt.datetime(2026, 12, 6, 10, 17, 30, tzinfo=dt.UTC))
    page = client.get(f"/arena/b/{battle.public_id}/").content.decode()
    told = re.search(r'<span id="counts-from">(.*?)</span>', page, re.S)
    assert told is not None
    assert "it reaches the public ratings and counts at 2026-12-06 12:00 UTC" in told.group(1)
