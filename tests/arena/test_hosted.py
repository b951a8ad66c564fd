"""Hosted search models in a battle, against the scripted OpenAI-compatible server (the stand-in for
Perplexity's API): streamed ``citations`` normalized and shown as numbered links; a model whose
stream is cut mid-answer shown as failed with its name hidden and its vote kept but not counted; API
keys resolved from the environment or settings by name and never stored."""

from __future__ import annotations

import json

import pytest
from django.db import connection

from leaderboard.arena import services
from leaderboard.arena.models import ArenaModel, Battle, Turn, Vote
from leaderboard.arena.services import battles
from tests.arena.conftest import voter_of_client
from tests.support.openai_server import OpenAIServer, Reply

# generation runs both sides in threads with their own connections: they must see committed rows
pytestmark = pytest.mark.django_db(transaction=True)

KEY, KEY_REF = "sk-hosted-test-Kq81zz", "ARENA_SECRET_TEST_SONAR_KEY"
GOOD, BROKEN = "Sonarish-Pro-Hidden", "Sonarish-Cutoff-Hidden"
CITATIONS = ["https://wiki.debian.org/Apt", "https://www.debian.org/doc/manuals/debian-reference/ch02.html"]


def scripted(request: dict) -> Reply:
    if request["model"] == "cutoff":
        return Reply(
            text="Apt installs packages [1] and then the answer stops before the end",
            chunk_chars=4,
            cut_after_chunks=3,
            extra={"citations": CITATIONS},
        )
    return Reply(
        text="Use apt install [2]; apt resolves dependencies [1][2].", chunk_chars=5, extra={"citations": CITATIONS}
    )


@pytest.fixture
def sonar():
    with OpenAIServer(scripted, api_key=KEY) as server:
        yield server


def hosted(name: str, server: OpenAIServer, model: str) -> ArenaModel:
    return ArenaModel.objects.create(
        name=name,
        organization=f"{name} Org",
        responder={
            "kind": "hosted",
            "style": "perplexity",
            "base_url": server.base_url,
            "model": model,
            "api_key_ref": KEY_REF,
        },
    )


def generated_battle(client, model_a: ArenaModel, model_b: ArenaModel) -> Battle:
    """A battle whose first turn is generated here, in-process, by the task's body."""
    voter = voter_of_client(client)
    battle = Battle.objects.create(model_a=model_a, model_b=model_b, voter_hash=voter.hash, propensity=1.0)
    turn = Turn.objects.create(battle=battle, index=0, prompt="How do I install a package on Debian?")
    assert services.turn_generate(turn_id=turn.pk) != "already generated"
    return battle


def test_a_hosted_search_model_streams_numbered_citations_and_a_cut_stream_is_not_counted(client, sonar, monkeypatch):
    monkeypatch.setenv(KEY_REF, KEY)
    good, broken = hosted(GOOD, sonar, "sonar"), hosted(BROKEN, sonar, "cutoff")
    battle = generated_battle(client, good, broken)
    turn = battle.turns.get()
    assert (turn.status_a, turn.status_b) == ("complete", "failed")
    assert turn.text_a == "Use apt install [1]; apt resolves dependencies [2][1]."  # renumbered in order of first use
    assert [(s["number"], s["url"]) for s in turn.answer_a["sources"]] == [(1, CITATIONS[1]), (2, CITATIONS[0])]
    assert turn.answer_a["searches"][0]["backend"] == "perplexity (provider-side)"
    assert turn.answer_b["error"] and turn.answer_b["finish_reason"] == "error" and turn.text_b.startswith("Apt inst")
    assert all(h.get("Authorization") == f"Bearer {KEY}" for h in sonar.headers) and sonar.request_count == 2
    assert all(r["stream"] for r in sonar.requests)
    battle.refresh_from_db()
    assert battle.primary_intent == "Guidance" and battle.extra["intent_method"].startswith("rules-v1")

    page = client.get(f"/arena/b/{battle.public_id}/").content.decode()
    assert (
        f'href="{CITATIONS[1]}"' in page
        and '<ol class="answer-sources">' in page
        and f'<a href="{CITATIONS[1]}" class="cite" rel="noopener nofollow" target="_blank">[1]</a>' in page
    )
    assert "This model failed to answer" in page and "Voting opens" not in page
    for secret in (GOOD, BROKEN, f"{GOOD} Org", KEY, sonar.base_url):
        assert secret not in page
    state = json.dumps(client.get(f"/api/arena/battles/{battle.public_id}/").json())
    assert GOOD not in state and BROKEN not in state and '"error": ""' in state  # the error stays hidden until the vote

    assert client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"}).status_code == 302
    vote = Vote.objects.get()
    assert not vote.valid and vote.exclusion_reasons == ["response_error"]
    assert vote.exclusions.get().detail == "turn 1, side B: answer failed"
    revealed = client.get(f"/arena/b/{battle.public_id}/").content.decode()
    assert GOOD in revealed and BROKEN in revealed and "kept but not counted: response_error" in revealed

    # the key lives only in the environment: nowhere in the database
    with connection.cursor() as cursor:
        for table in ("arena_arenamodel", "arena_battle", "arena_turn", "arena_vote", "arena_voteexclusion"):
            cursor.execute(f"SELECT row_to_json(t)::text FROM {table} t")
            assert not [row for (row,) in cursor.fetchall() if KEY in row], table


def test_a_key_reference_resolves_from_settings_too(client, sonar, settings, monkeypatch):
    monkeypatch.delenv(KEY_REF, raising=False)
    setattr(settings, KEY_REF, KEY)
    battle = generated_battle(client, hosted(GOOD, sonar, "sonar"), hosted(BROKEN, sonar, "sonar"))
    assert {battle.turns.get().status_a, battle.turns.get().status_b} == {"complete"}


def test_a_missing_key_fails_the_side_naming_the_reference_not_the_model(client, sonar, monkeypatch):
    monkeypatch.delenv(KEY_REF, raising=False)
    battle = generated_battle(client, hosted(GOOD, sonar, "sonar"), hosted(BROKEN, sonar, "sonar"))
    turn = battle.turns.get()
    assert (turn.status_a, turn.status_b) == ("failed", "failed") and sonar.request_count == 0
    assert KEY_REF in turn.answer_a["error"] and "does not exist" in turn.answer_a["error"]
    page = client.get(f"/arena/b/{battle.public_id}/").content.decode()
    assert "This model failed to answer" in page and GOOD not in page and KEY_REF not in page


def test_a_plain_text_key_is_refused_in_settings_and_in_the_admin(db, settings, django_user_model, client):
    settings.ARENA_MODELS = json.dumps(
        [{"name": "leaky", "responder": {"kind": "hosted", "style": "openai", "api_key": KEY}}]
    )
    with pytest.raises(services.ArenaRefused, match="api_key_ref") as refused:
        services.arena_models_seed()
    assert refused.value.field == "responder" and KEY not in str(refused.value)
    assert not ArenaModel.objects.filter(name="leaky").exists()

    staff = django_user_model.objects.create_user(
        "op", password="a-long-test-password", is_staff=True, is_superuser=True
    )
    client.force_login(staff)
    response = client.post(
        "/admin/arena/arenamodel/add/",
        {
            "name": "leaky",
            "organization": "",
            "description": "",
            "weight": "1.0",
            "enabled": "on",
            "responder": json.dumps(
                {"kind": "hosted", "style": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m", "api_key": KEY}
            ),
        },
    )
    assert response.status_code == 200 and "api_key_ref" in response.content.decode()
    assert not ArenaModel.objects.filter(name="leaky").exists()


def test_a_configured_intent_judge_classifies_the_battle_and_is_named(client, sonar, monkeypatch, settings):
    """LEADERBOARD_ARENA_INTENT_JUDGE names a judge of LEADERBOARD_JUDGES: the battle's intent is its
    answer (constrained to the classes), the call is kept with the battle, and the method names the judge."""

    def judge_reply(request: dict) -> Reply:
        return Reply(text=json.dumps({"primary": "Factual Lookup", "secondary": "Explanation"}))

    monkeypatch.setenv(KEY_REF, KEY)
    with OpenAIServer(judge_reply) as judge_server:
        settings.JUDGES = json.dumps(
            {
                "intent": {
                    "name": "intent-judge",
                    "revision": "2026-11",
                    "prompt_version": "v1",
                    "base_url": judge_server.base_url,
                    "model": "judge",
                }
            }
        )
        settings.ARENA_INTENT_JUDGE = "intent"
        battles._intent_judges.clear()
        battle = generated_battle(client, hosted(GOOD, sonar, "sonar"), hosted("Other-Hidden", sonar, "sonar"))
        assert judge_server.request_count == 1
    battle.refresh_from_db()
    assert (battle.primary_intent, battle.secondary_intent) == ("Factual Lookup", "Explanation")
    assert battle.extra["intent_method"] == "judge intent-judge@2026-11 (prompt v1)"
    assert battle.extra["intent_judge_call"]["raw_answer"]

    settings.ARENA_INTENT_JUDGE = "missing"  # a key the setting lacks: rules, and the method says why
    battle = generated_battle(client, hosted("Third-Hidden", sonar, "sonar"), hosted("Fourth-Hidden", sonar, "sonar"))
    battle.refresh_from_db()
    assert (
        battle.extra["intent_method"].startswith("rules-v1")
        and "intent judge not usable" in battle.extra["intent_method"]
    )
    battles._intent_judges.clear()
