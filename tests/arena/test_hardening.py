"""The arena's hardening, on the real Postgres and S3 (moto's server): a turn left "streaming" by a
killed worker is taken over by the redelivered task or failed by the periodic pass (and the old
worker's late writes change nothing); per-address limits that clearing cookies does not reset, in
the vote's one read; vote downloads written once per ratings and filtered like the board; key
references limited to a fixed prefix; abandoned battles closed; inverse-propensity weights
switchable; and battle pages that create no session for a visitor without one."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from leaderboard.arena import services
from leaderboard.arena.identity import Voter
from leaderboard.arena.models import Battle, RatingSnapshot, Turn, Vote
from leaderboard.arena.presentation import TIMED_OUT_NOTE
from leaderboard.arena.services import battles, contestants
from tests.arena.conftest import answer, voter_of_client
from tests.arena.test_board import pair_rows
from tests.arena.test_flow import arena_models  # noqa: F401  (a fixture: extractive contestants over a small local index)


def _stale_turn(battle: Battle, *, seconds_ago: float, status_b: str = "streaming") -> Turn:
    turn = Turn.objects.create(
        battle=battle,
        index=battle.turns.count(),
        prompt="How do I install a package with apt?",
        text_a="Use apt ins",
        status_a="streaming",
        status_b=status_b,
        claimed_at=timezone.now() - dt.timedelta(seconds=seconds_ago),
    )
    return turn


# --- 1. a turn stuck "streaming" -------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # generation runs both sides in threads with their own connections
def test_a_redelivered_task_takes_over_a_stale_claim_but_not_a_fresh_one(arena_models, settings):
    settings.ARENA_GENERATION_TIME_LIMIT = 60
    battle = Battle.objects.create(model_a=arena_models[0], model_b=arena_models[1], voter_hash="v", propensity=1.0)
    fresh = _stale_turn(battle, seconds_ago=5)
    assert services.turn_generate(turn_id=fresh.pk) == "already generated"  # its worker may still be at it
    fresh.refresh_from_db()
    assert (fresh.status_a, fresh.status_b) == ("streaming", "streaming")

    Turn.objects.filter(pk=fresh.pk).update(
        claimed_at=timezone.now() - dt.timedelta(seconds=61)
    )  # its worker was killed
    assert services.turn_generate(turn_id=fresh.pk) == "complete/complete"
    fresh.refresh_from_db()
    assert "apt install" in fresh.text_a and fresh.answer_a["sources"] and fresh.answer_b["sources"]
    assert services.turn_generate(turn_id=fresh.pk) == "already generated"  # a finished turn is left alone


@pytest.mark.django_db
def test_the_periodic_pass_fails_a_side_streaming_past_the_limit_and_its_vote_is_kept_not_counted(
    client, make_battle, settings
):
    settings.ARENA_GENERATION_TIME_LIMIT = 60
    voter = voter_of_client(client)
    battle = make_battle(voter)
    Turn.objects.filter(battle=battle).delete()
    stuck = _stale_turn(battle, seconds_ago=120, status_b="complete")
    Turn.objects.filter(pk=stuck.pk).update(answer_b=answer("Use apt install [1]."), text_b="Use apt install [1].")
    other = make_battle(voter, done=False)
    Turn.objects.filter(battle=other).update(claimed_at=timezone.now())  # streaming, but within the limit
    old_claim = stuck.claimed_at

    assert services.arena_maintain()["stale_answers"] == 1
    stuck.refresh_from_db()
    assert (stuck.status_a, stuck.status_b) == ("failed", "complete") and stuck.claimed_at is None
    assert stuck.answer_a["finish_reason"] == "timeout" and "time limit of 60 s" in stuck.answer_a["error"]
    assert stuck.text_a == "Use apt ins"  # what it had streamed stays visible
    assert Turn.objects.get(battle=other).status_a == "streaming"
    assert services.turns_fail_stale() == 0  # a second pass changes nothing

    # the old generation, still running somewhere, can no longer write
    battles._Stream(stuck.pk, "a", old_claim)("more text")
    assert battles._claimed_side(stuck.pk, "a", old_claim).update(status_a="complete") == 0
    stuck.refresh_from_db()
    assert stuck.status_a == "failed" and stuck.text_a == "Use apt ins"

    page = client.get(f"/arena/b/{battle.public_id}/").content.decode()
    assert TIMED_OUT_NOTE in page and "Voting opens" not in page and 'name="winner"' in page
    assert 'hx-trigger="every 300ms"' not in page  # the panes stop polling
    assert client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_b"}).status_code == 302
    vote = Vote.objects.get(battle=battle)
    assert not vote.valid and vote.exclusion_reasons == ["response_error"]


def test_a_networked_responders_timeout_is_capped_at_the_generation_limit(settings):
    settings.ARENA_GENERATION_TIME_LIMIT = 45
    assert contestants.responder_deadline({"kind": "hosted", "timeout_s": 600})["timeout_s"] == 45
    assert contestants.responder_deadline({"kind": "search_tool"})["timeout_s"] == 45
    assert contestants.responder_deadline({"kind": "hosted", "timeout_s": 10})["timeout_s"] == 10
    assert "timeout_s" not in contestants.responder_deadline({"kind": "extractive"})


# --- 2. per-address limits -------------------------------------------------------------------------


@pytest.mark.django_db
def test_clearing_cookies_does_not_reset_the_addresss_prompt_rate(contestants, settings):
    settings.ARENA_ACTIONS_PER_MINUTE, settings.ARENA_ACTIONS_PER_MINUTE_PER_IP = 30, 2
    first, fresh_cookies, elsewhere = Voter("voter-1", "ip-1"), Voter("voter-2", "ip-1"), Voter("voter-3", "ip-2")
    battle = services.battle_create(prompt="How do I install a package?", voter=first)
    services.battle_create(prompt="How do I remove a package?", voter=first)
    with pytest.raises(services.RateLimited, match="from your network address") as refused:
        services.battle_create(prompt="How do I purge a package?", voter=fresh_cookies)
    assert refused.value.status == 429
    with pytest.raises(services.RateLimited, match="from your network address"):
        services.turn_add(battle=battle, prompt="And then?", voter=first)
    services.battle_create(prompt="How do I purge a package?", voter=elsewhere)  # another address is not affected


@pytest.mark.django_db
def test_votes_over_the_addresss_daily_cap_are_kept_not_counted_in_one_read_and_one_write(make_battle, settings):
    settings.ARENA_VOTES_PER_DAY, settings.ARENA_VOTES_PER_DAY_PER_IP = 200, 2
    voters = [Voter(f"cookie-{i}", "shared-ip") for i in range(3)]  # a new session for every vote
    battles = [make_battle(v) for v in voters]
    elsewhere = Voter("cookie-x", "other-ip")
    other = make_battle(elsewhere)
    for voter, battle in zip(voters[:2], battles):
        assert services.vote_cast(battle=battle.public_id, winner="model_a", voter=voter).valid
    with CaptureQueriesContext(connection) as queries:
        over = services.vote_cast(battle=battles[2].public_id, winner="model_a", voter=voters[2])
    statements = [
        q["sql"] for q in queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))
    ]  # the test's transaction
    assert len(statements) == 2, [sql[:80] for sql in statements]  # still one read and one write
    over = Vote.objects.get(pk=over.pk)
    assert not over.valid and over.exclusion_reasons == ["daily_cap"] and over.ip_hash == "shared-ip"
    assert over.exclusions.get().detail == "vote 3 in 24 h from this network address; the address cap is 2"
    assert services.vote_cast(battle=other.public_id, winner="tie", voter=elsewhere).valid


@pytest.mark.django_db
def test_both_caps_at_once_give_one_reason_naming_both(make_battle, settings):
    settings.ARENA_VOTES_PER_DAY, settings.ARENA_VOTES_PER_DAY_PER_IP = 1, 1
    voter = Voter("cookie", "ip")
    first, second = make_battle(voter), make_battle(voter)
    services.vote_cast(battle=first, winner="model_a", voter=voter)
    over = services.vote_cast(battle=second, winner="model_a", voter=voter)
    assert over.exclusion_reasons == ["daily_cap"]
    assert (
        over.exclusions.get().detail
        == "vote 2 in 24 h; the cap is 1; vote 2 in 24 h from this network address; the address cap is 1"
    )


# --- 3. downloads written with the ratings ---------------------------------------------------------


def _download(client: Client, url: str) -> list[dict]:
    response = client.get(url)
    assert response.status_code == 200, response.content[:300]
    return [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines() if line]


@pytest.mark.django_db
def test_the_download_is_written_once_per_ratings_and_filtered_like_the_board(client, seed_votes, settings):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 1, 5
    seed_votes(pair_rows("g", "Alpha-Strong", "Beta-Middle", 4, 2, tag="how"), intent="Guidance", languages=("en",))
    seed_votes(pair_rows("a", "Beta-Middle", "Gamma-Weak", 1, 2, tag="cmp"), intent="Analysis", languages=("de",))
    assert client.get("/arena/votes.jsonl").status_code == 404  # before the first ratings: nothing is built here
    assert client.get("/api/arena/ratings/votes/?fmt=jsonl").status_code == 404

    services.ratings_compute()
    with CaptureQueriesContext(connection) as queries:
        rows = _download(client, "/arena/votes.jsonl")
    assert not [q for q in queries if "arena_vote" in q["sql"] or "arena_turn" in q["sql"]]  # served, not rebuilt
    assert len(rows) == 9 and {r["judge"] for r in rows} == {f"g{i}" for i in range(6)} | {f"a{i}" for i in range(3)}
    analysis = _download(client, "/arena/votes.jsonl?intent=Analysis")
    assert len(analysis) == 3 and {r["primary_intent"] for r in analysis} == {"Analysis"}
    assert len(_download(client, "/api/arena/ratings/votes/?fmt=jsonl&language=en")) == 6
    parquet = client.get("/arena/votes.parquet?language=de")
    assert parquet.status_code == 200 and b"".join(parquet.streaming_content)[:4] == b"PAR1"
    assert client.get("/arena/votes.jsonl?intent=Nothing").status_code == 404

    html = client.get("/arena/leaderboard/?intent=Analysis").content.decode()
    assert 'href="/arena/votes.jsonl?intent=Analysis"' in html and "the votes behind this board" in html

    seed_votes(pair_rows("n", "Alpha-Strong", "Gamma-Weak", 1, 0, tag="new"), intent="Analysis", languages=("de",))
    assert len(_download(client, "/arena/votes.jsonl")) == 9  # what the ratings on the page were computed from
    services.ratings_compute()
    assert len(_download(client, "/arena/votes.jsonl")) == 10


# --- 4. key references ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_key_reference_outside_the_prefix_is_refused_at_use_in_settings_and_in_the_admin(
    settings, staff_client, monkeypatch
):
    monkeypatch.setenv("ARENA_SECRET_OK_KEY", "sk-fine")
    assert contestants._secret("ARENA_SECRET_OK_KEY") == "sk-fine"
    for ref in ("SECRET_KEY", "AWS_SECRET_ACCESS_KEY", "DATABASE_URL", "ARENA_SECRET_"):
        with pytest.raises(services.ArenaRefused, match=r"must|is not allowed") as refused:
            contestants._secret(ref)
        assert "ARENA_SECRET_" in str(refused.value) and settings.SECRET_KEY not in str(refused.value)

    settings.ARENA_MODELS = json.dumps(
        [
            {
                "name": "exfil",
                "responder": {
                    "kind": "hosted",
                    "style": "openai",
                    "base_url": "http://x.test/v1",
                    "model": "m",
                    "api_key_ref": "SECRET_KEY",
                },
            }
        ]
    )
    with pytest.raises(services.ArenaRefused, match="'SECRET_KEY' is not allowed"):
        services.arena_models_seed()

    response = staff_client.post(
        "/admin/arena/arenamodel/add/",
        {
            "name": "exfil",
            "organization": "",
            "description": "",
            "weight": "1.0",
            "enabled": "on",
            "responder": json.dumps(
                {
                    "kind": "hosted",
                    "style": "openai",
                    "base_url": "http://127.0.0.1:9/v1",
                    "model": "m",
                    "api_key_ref": "SECRET_KEY",
                }
            ),
        },
    )
    assert (
        response.status_code == 200
        and "starts with ARENA_SECRET_ or LEADERBOARD_ARENA_SECRET_" in response.content.decode()
    )


# --- 5. abandoned battles ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_an_abandoned_battle_takes_no_votes_or_turns(client, make_battle):
    battle = make_battle(voter_of_client(client))
    assert services.battle_abandon_stale(older_than=dt.timedelta(0)) == 1
    response = client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"})
    assert response.status_code == 409 and "is abandoned" in response.content.decode()
    assert client.post(f"/api/arena/battles/{battle.public_id}/turns/", {"prompt": "more?"}).status_code == 409
    assert not Vote.objects.exists() and battle.turns.count() == 1
    assert client.get(f"/api/arena/battles/{battle.public_id}/").json()["can_vote"] is False
    assert 'id="closed"' in client.get(f"/arena/b/{battle.public_id}/").content.decode()


# --- 6. inverse-propensity weights --------------------------------------------------------------------


@pytest.mark.django_db
def test_propensity_weights_can_be_switched_on_and_the_page_says_so(client, seed_votes, settings):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 1, 5
    seed_votes(pair_rows("g", "Alpha-Strong", "Beta-Middle", 4, 2))
    services.ratings_compute()
    assert not RatingSnapshot.objects.get(kind="raw", filter_key="").config["use_weights"]
    assert "inverse-propensity weighting is off" in client.get("/arena/leaderboard/").content.decode()

    settings.ARENA_PROPENSITY_WEIGHTS = True
    assert services.ratings_compute() > 0  # the setting is part of the fingerprint
    assert RatingSnapshot.objects.filter(kind="raw", filter_key="").first().config["use_weights"]
    assert "each vote weighted by the inverse of the probability" in client.get("/arena/leaderboard/").content.decode()


# --- 7. no session for a reader ---------------------------------------------------------------------


@pytest.mark.django_db
def test_reading_a_battle_creates_no_session_for_a_visitor_without_one(client, make_battle):
    battle = make_battle(voter_of_client(client))
    sessions = Session.objects.count()
    reader = Client()
    for url in (
        f"/arena/b/{battle.public_id}/",
        f"/arena/b/{battle.public_id}/controls/",
        f"/arena/b/{battle.public_id}/turns/0/a/",
    ):
        assert reader.get(url).status_code == 200
    assert Session.objects.count() == sessions and not reader.cookies.get("sessionid")
    assert "belongs to another visitor" in reader.get(f"/arena/b/{battle.public_id}/").content.decode()
    assert 'name="winner"' in client.get(f"/arena/b/{battle.public_id}/").content.decode()  # the owner still votes
