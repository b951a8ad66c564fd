"""Votes and their integrity on the real Postgres: completion, ownership, one vote per battle (the
database's constraint too), CSRF, caps and rate limits, exclusions with reasons, prompt limits, and
the hidden names never leaving the server before the vote."""

from __future__ import annotations

import json

import pytest
from django.db import IntegrityError, transaction
from django.test import Client

from leaderboard.arena import services
from leaderboard.arena.models import Battle, Vote, VoteExclusion
from tests.arena.conftest import MAKER_A, MAKER_B, NAME_A, NAME_B, answer, voter_of_client

pytestmark = pytest.mark.django_db

HIDDEN = (NAME_A, NAME_B, MAKER_A, MAKER_B)


def test_a_vote_counts_and_reveals_the_names(client, make_battle):
    battle = make_battle(voter_of_client(client))
    response = client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"}, follow=True)
    assert response.status_code == 200
    page = response.content.decode()
    assert NAME_A in page and NAME_B in page and MAKER_A in page
    vote = Vote.objects.get(battle=battle)
    assert vote.valid and vote.exclusion_reasons == [] and vote.turn_count == 1
    battle.refresh_from_db()
    assert battle.locked and battle.status == "voted" and battle.features_a["citation_count"] >= 1


def test_vote_before_both_answers_are_complete_is_refused(client, make_battle):
    battle = make_battle(voter_of_client(client), done=False)
    response = client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "tie"})
    assert response.status_code == 409 and "both answers must be complete" in response.content.decode()
    assert not Vote.objects.exists()
    page = client.get(f"/arena/b/{battle.public_id}/").content.decode()
    assert "Voting opens when both answers are complete" in page and "<fieldset disabled>" in page


def test_a_second_vote_is_refused_and_changes_nothing(client, make_battle):
    battle = make_battle(voter_of_client(client))
    client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_b"})
    again = client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"})
    assert again.status_code == 409 and "already" in again.content.decode()
    api_again = client.post(f"/api/arena/battles/{battle.public_id}/vote/", {"winner": "model_a"})
    assert api_again.status_code == 409 and "already voted on" in api_again.json()["detail"]
    assert list(Vote.objects.values_list("winner", flat=True)) == ["model_b"]


def test_the_database_allows_one_vote_per_battle(make_battle, client):
    battle = make_battle(voter_of_client(client))
    Vote.objects.create(battle=battle, winner="tie", turn_count=1, voter_hash="x")
    with pytest.raises(IntegrityError), transaction.atomic():
        Vote.objects.create(battle=battle, winner="model_a", turn_count=1, voter_hash="y")
    assert Vote.objects.filter(battle=battle).count() == 1


def test_a_vote_from_another_session_is_refused(client, make_battle):
    battle = make_battle(voter_of_client(client))
    stranger = Client()
    response = stranger.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"})
    assert response.status_code == 403 and "belongs to another visitor" in response.content.decode()
    assert not Vote.objects.exists()
    assert "belongs to another visitor" in stranger.get(f"/arena/b/{battle.public_id}/").content.decode()


def test_csrf_is_enforced_on_pages_and_api(make_battle):
    client = Client(enforce_csrf_checks=True)
    battle = make_battle(voter_of_client(client))
    assert client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"}).status_code == 403
    assert client.post("/arena/", {"prompt": "hello"}).status_code == 403
    api = client.post(
        f"/api/arena/battles/{battle.public_id}/vote/", {"winner": "model_a"}, content_type="application/json"
    )
    assert api.status_code == 403 and "CSRF" in api.json()["detail"]
    assert client.post("/api/arena/battles/", {"prompt": "hi"}, content_type="application/json").status_code == 403
    assert not Vote.objects.exists()
    # with the token from the page, the same vote goes through
    token = client.cookies["csrftoken"].value
    ok = client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a", "csrfmiddlewaretoken": token})
    assert ok.status_code == 302 and Vote.objects.count() == 1


def test_self_identification_excludes_the_vote_with_its_reason(client, make_battle):
    said = answer(f"I am {NAME_A}, built by {MAKER_A}. Install packages with apt [1].")
    cites = answer(f"According to [1], {MAKER_B} is mentioned on https://plonkington.example/{NAME_B}.")
    battle = make_battle(voter_of_client(client), [(said, cites)])
    client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"})
    vote = Vote.objects.get(battle=battle)
    assert not vote.valid and vote.exclusion_reasons == ["self_identification"]
    exclusion = VoteExclusion.objects.get(vote=vote)
    assert exclusion.code == "self_identification" and "side A" in exclusion.detail and exclusion.by == "system"


def test_a_failed_answer_is_shown_and_its_vote_not_counted(client, make_battle):
    broken = answer("Debian uses ap", finish_reason="error", error=f"endpoint of {NAME_B} closed the stream")
    battle = make_battle(voter_of_client(client), [(answer("Use apt [1]."), broken)])
    page = client.get(f"/arena/b/{battle.public_id}/").content.decode()
    assert "This model failed to answer" in page and NAME_B not in page  # the error names the model: hidden
    client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"})
    vote = Vote.objects.get(battle=battle)
    assert not vote.valid and vote.exclusion_reasons == ["response_error"]
    assert "side B: answer failed" in vote.exclusions.get().detail
    assert NAME_B in client.get(f"/arena/b/{battle.public_id}/").content.decode()  # revealed, with the error


def test_daily_cap_keeps_the_vote_but_does_not_count_it(client, make_battle, settings):
    settings.ARENA_VOTES_PER_DAY = 1
    voter = voter_of_client(client)
    first, second = make_battle(voter), make_battle(voter)
    client.post(f"/arena/b/{first.public_id}/vote/", {"winner": "model_a"})
    client.post(f"/arena/b/{second.public_id}/vote/", {"winner": "model_a"})
    assert Vote.objects.get(battle=first).valid
    over = Vote.objects.get(battle=second)
    assert not over.valid and over.exclusion_reasons == ["daily_cap"]


def test_rate_limit_refuses_with_429(client, make_battle, settings):
    settings.ARENA_ACTIONS_PER_MINUTE = 1
    voter = voter_of_client(client)
    first, second = make_battle(voter), make_battle(voter)
    assert client.post(f"/arena/b/{first.public_id}/vote/", {"winner": "tie"}).status_code == 302
    response = client.post(f"/arena/b/{second.public_id}/vote/", {"winner": "tie"})
    assert response.status_code == 429 and "too many votes" in response.content.decode()
    assert not Vote.objects.filter(battle=second).exists()


@pytest.mark.parametrize(
    "prompt, message",
    [
        ("   ", "prompt: is empty"),
        ("x" * 30_001, "over the limit of 30,000"),
        ("hello\x00world", "binary or control characters"),
    ],
)
def test_bad_prompts_are_refused_with_a_clear_message(client, contestants, prompt, message):
    response = client.post("/arena/", {"prompt": prompt})
    assert response.status_code == 400 and message in response.content.decode()
    assert not Battle.objects.exists()


def test_turn_limit_and_locked_battles(client, make_battle, settings):
    settings.ARENA_MAX_TURNS = 1
    voter = voter_of_client(client)
    battle = make_battle(voter)
    with pytest.raises(services.ArenaRefused, match="limit of 1 turns"):
        services.turn_add(battle=battle, prompt="and then?", voter=voter)
    services.vote_cast(battle=battle, winner="tie", voter=voter)
    with pytest.raises(services.AlreadyVoted):
        services.turn_add(battle=battle, prompt="and then?", voter=voter)


def test_names_never_leave_the_server_before_the_vote(client, make_battle):
    """Every page, partial and API response of an open battle (and the error answers) is free of the
    hidden names and makers, in bodies and headers; after the vote they appear."""
    battle = make_battle(voter_of_client(client), [(answer("Use apt [1]."), answer("Try dpkg [1]."))])
    pid = battle.public_id
    responses = [
        client.get("/arena/"),
        client.get(f"/arena/b/{pid}/"),
        client.get(f"/arena/b/{pid}/turns/0/a/"),
        client.get(f"/arena/b/{pid}/turns/0/b/"),
        client.get(f"/arena/b/{pid}/controls/", HTTP_HX_REQUEST="true"),
        client.get(f"/arena/b/{pid}/turns/0/a/", HTTP_HX_REQUEST="true"),
        client.get(f"/arena/b/{pid}/turns/9/a/"),
        client.get(f"/api/arena/battles/{pid}/"),
        client.get("/api/arena/battles/nonexistent/"),
        client.post(f"/arena/b/{pid}/vote/", {"winner": "nobody"}),
        client.post(f"/arena/b/{pid}/turn/", {"prompt": ""}),
        Client().post(f"/arena/b/{pid}/vote/", {"winner": "model_a"}),
        Client().post(f"/api/arena/battles/{pid}/vote/", {"winner": "model_a"}),
        client.post(f"/api/arena/battles/{pid}/vote/", {"winner": "nobody"}),
        client.post(f"/api/arena/battles/{pid}/turns/", {"prompt": ""}),
        client.get("/arena/leaderboard/"),
        client.get("/api/arena/ratings/"),
        client.get("/api/arena/ratings/votes/"),
        client.get("/arena/votes.jsonl"),
        client.get("/api/schema/"),
    ]
    for response in responses:
        body = b"".join(response.streaming_content) if response.streaming else response.content
        text = body.decode(errors="replace") + json.dumps(dict(response.headers))
        for name in HIDDEN:
            assert name not in text, f"{name} leaked in {response.request['PATH_INFO']} ({response.status_code})"
    assert client.get(f"/api/arena/battles/{pid}/").json()["turns"][0]["answer_a"]["text"] == "Use apt [1]."

    client.post(f"/arena/b/{pid}/vote/", {"winner": "model_b"})
    state = client.get(f"/api/arena/battles/{pid}/").json()
    assert state["reveal"]["a"]["name"] == NAME_A and state["reveal"]["b"]["organization"] == MAKER_B
    assert NAME_B in client.get(f"/arena/b/{pid}/turns/0/b/").content.decode()
