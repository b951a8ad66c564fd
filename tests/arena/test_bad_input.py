"""Bad input from the issue, on pages and the API: votes on battles that are not complete, not yours
or already voted; replayed and forged requests (odd battle ids, winners not in the list, bodies of
the wrong shape); and malformed rows in an imported dataset, each refused with the row and field
named and nothing imported. Nothing is lost and nothing is counted twice."""

from __future__ import annotations

import json
import re

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from leaderboard.arena.models import ArenaModel, Battle, Turn, Vote
from tests.arena.conftest import NAME_A, voter_of_client
from tests.arena.test_transfer import released_row, write_jsonl

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("winner", ["model_c", "", "MODEL_A", "tie (bothbad) ", "model_a\x00", "x" * 5000])
def test_a_forged_winner_is_refused_naming_the_field(client, make_battle, winner):
    battle = make_battle(voter_of_client(client))
    page = client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": winner})
    assert (
        page.status_code == 400
        and "winner: choose one of model_a, model_b, tie, tie (bothbad)" in page.content.decode()
    )
    api = client.post(
        f"/api/arena/battles/{battle.public_id}/vote/", {"winner": winner}, content_type="application/json"
    )
    assert api.status_code == 400 and "winner" in api.json()
    assert not Vote.objects.exists() and not Battle.objects.get().locked


@pytest.mark.parametrize(
    "body", ['["model_a"]', '"model_a"', "{}", '{"winner": null}', '{"winner": ["model_a"]}', "not json"]
)
def test_an_api_vote_body_of_the_wrong_shape_is_refused(client, make_battle, body):
    battle = make_battle(voter_of_client(client))
    response = client.post(f"/api/arena/battles/{battle.public_id}/vote/", body, content_type="application/json")
    assert response.status_code == 400 and response.json()
    assert not Vote.objects.exists()


@pytest.mark.parametrize("public_id", ["nonexistent", "A" * 300, "..", "%00", "1%20OR%201=1", "%E2%80%AE", "b/../x"])
def test_a_forged_battle_id_is_not_found_and_changes_nothing(client, make_battle, public_id):
    battle = make_battle(voter_of_client(client))
    for path in (
        f"/arena/b/{public_id}/",
        f"/arena/b/{public_id}/vote/",
        f"/arena/b/{public_id}/turn/",
        f"/api/arena/battles/{public_id}/",
        f"/api/arena/battles/{public_id}/vote/",
        f"/api/arena/battles/{public_id}/turns/",
    ):
        response = (
            client.post(path, {"winner": "model_a", "prompt": "hi"})
            if path.endswith(("vote/", "turn/", "turns/"))
            else client.get(path)
        )
        assert response.status_code in (404, 405), (path, response.status_code)
        assert NAME_A.encode() not in response.content
    assert not Vote.objects.exists() and Turn.objects.filter(battle=battle).count() == 1


def test_a_replayed_vote_is_refused_and_counted_once(client, make_battle):
    battle = make_battle(voter_of_client(client))
    first = client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"})
    assert first.status_code == 302
    for _ in range(3):
        replay = client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"})
        assert replay.status_code == 409
        api = client.post(
            f"/api/arena/battles/{battle.public_id}/vote/", {"winner": "model_a"}, content_type="application/json"
        )
        assert api.status_code == 409
    assert Vote.objects.count() == 1 and Vote.objects.get().winner == "model_a"


def test_a_vote_replayed_from_another_session_with_its_csrf_token_is_refused(make_battle):
    """The battle id and a CSRF token captured from the owner's page do not let another browser vote."""
    owner = Client(enforce_csrf_checks=True)
    battle = make_battle(voter_of_client(owner))
    token = owner.get(f"/arena/b/{battle.public_id}/") and owner.cookies["csrftoken"].value
    thief = Client(enforce_csrf_checks=True)
    stolen = thief.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_b", "csrfmiddlewaretoken": token})
    assert stolen.status_code == 403 and not Vote.objects.exists()
    thief.cookies["csrftoken"] = token  # even with the owner's cookie too: the session differs
    again = thief.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_b", "csrfmiddlewaretoken": token})
    assert again.status_code == 403 and "belongs to another visitor" in again.content.decode()
    assert not Vote.objects.exists()


def test_a_replayed_follow_up_while_answers_stream_is_refused(client, make_battle):
    battle = make_battle(voter_of_client(client), done=False)
    response = client.post(f"/arena/b/{battle.public_id}/turn/", {"prompt": "and then?"})
    assert response.status_code == 409 and "wait until both answers are complete" in response.content.decode()
    api = client.post(
        f"/api/arena/battles/{battle.public_id}/turns/", {"prompt": "and then?"}, content_type="application/json"
    )
    assert api.status_code == 409
    assert battle.turns.count() == 1


def test_a_vote_on_a_battle_with_no_answers_yet_is_refused(client, contestants):
    voter = voter_of_client(client)
    battle = Battle.objects.create(model_a=contestants[0], model_b=contestants[1], voter_hash=voter.hash)
    Turn.objects.create(battle=battle, index=0, prompt="hello")  # pending on both sides
    response = client.post(
        f"/api/arena/battles/{battle.public_id}/vote/", {"winner": "tie"}, content_type="application/json"
    )
    assert response.status_code == 409 and "both answers must be complete" in response.json()["detail"]
    assert not Vote.objects.exists()


@pytest.mark.parametrize(
    "prompt, message",
    [
        (None, "prompt"),
        (12, "prompt: must be text"),
        (True, "prompt: must be text"),
        (["hi"], "prompt: must be text"),
        ("   ", "prompt: is empty"),
        ("x" * 30_001, "over the limit of 30,000"),
        ("bad\ud800text", "Surrogate characters are not allowed"),
        ("a\x07b", "binary or control characters"),
    ],
)
def test_the_api_refuses_bad_prompts(client, contestants, prompt, message):
    response = client.post(
        "/api/arena/battles/",
        json.dumps({"prompt": prompt}) if prompt != "bad\ud800text" else '{"prompt": "bad\\ud800text"}',
        content_type="application/json",
    )
    assert response.status_code == 400 and message in json.dumps(response.json())
    assert not Battle.objects.exists()


# --- malformed rows in an imported dataset ---------------------------------------------------------


def _mutate(path: str, value):
    def apply(row: dict) -> dict:
        target = row
        keys = path.split(".")
        for key in keys[:-1]:
            target = target.setdefault(key, {})
        if value is KeyError:
            target.pop(keys[-1], None)
        else:
            target[keys[-1]] = value
        return row

    return apply


def _no_conv_id(row: dict) -> dict:
    row["system_a_metadata"]["conv_id"] = row["system_b_metadata"]["conv_id"] = None
    return row


@pytest.mark.parametrize(
    "mutate, field",
    [
        (_mutate("model_a", KeyError), "'model_a': missing"),
        (_mutate("model_b", ""), "'model_b': empty"),
        (_mutate("model_b", "sonar-pro-high"), "'model_b': the same model as model_a"),
        (_mutate("winner", "model_c"), "'winner'"),
        (_mutate("turn", -1), "'turn'"),
        (_mutate("messages_a", "hello"), "'messages_a': expected a list"),
        (_mutate("messages_b", [{"content": "no role"}]), "'messages_b[0].role': missing"),
        (_mutate("system_a_metadata.web_search_trace", [[["[1]"]]]), "web_search_trace[0][0]"),
        (_mutate("timestamp", "yesterday-ish"), "'timestamp'"),
        (_no_conv_id, "'system_a_metadata.conv_id': missing"),
        (_mutate("system_b_metadata.conv_id", "other"), "'system_b_metadata.conv_id': 'other' differs"),
        (_mutate("arena", "yes"), "'arena': expected an object"),
        (_mutate("arena.propensity", 0), "'arena.propensity'"),
        (_mutate("arena.exclusion_reasons", "self_identification"), "'arena.exclusion_reasons'"),
        (_mutate("arena.exclusion_reasons", ["made_up"]), "'arena.exclusion_reasons'"),
        (_mutate("arena.statuses", [["complete"]]), "'arena.statuses'"),
        (_mutate("arena.valid", "yes"), "'arena.valid'"),
    ],
)
def test_a_malformed_row_names_its_row_and_field_and_imports_nothing(tmp_path, mutate, field):
    rows = [released_row("c1"), released_row("c2"), mutate(released_row("c3"))]
    path = write_jsonl(tmp_path / "rows.jsonl", rows)
    with pytest.raises(CommandError) as err:
        call_command("import_arena", str(path))
    assert "row 3" in str(err.value) and field in str(err.value)
    assert not Battle.objects.exists() and not ArenaModel.objects.exists() and not Vote.objects.exists()


def test_not_json_and_unknown_formats_are_named(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(released_row("c1")) + '\n{"model_a": \n')
    with pytest.raises(CommandError, match=r"rows.jsonl row 2: not valid JSON"):
        call_command("import_arena", str(path))
    (tmp_path / "rows.csv").write_text("model_a,model_b\n")
    with pytest.raises(CommandError, match="unknown format"):
        call_command("import_arena", str(tmp_path / "rows.csv"))
    with pytest.raises(CommandError, match="no such file"):
        call_command("import_arena", str(tmp_path / "missing.jsonl"))
    assert not Battle.objects.exists()


def test_a_conversation_repeated_in_one_file_is_refused(tmp_path):
    path = write_jsonl(
        tmp_path / "rows.jsonl", [released_row("c1"), released_row("c2"), released_row("c1", winner="model_b")]
    )
    with pytest.raises(CommandError, match=re.escape("row 3: field 'system_a_metadata.conv_id': 'c1' repeats row 1")):
        call_command("import_arena", str(path))
    assert not Battle.objects.exists()


def test_our_own_export_imported_back_is_not_counted_twice(tmp_path, client, make_battle):
    battle = make_battle(voter_of_client(client))
    client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"})
    call_command("export_arena", str(tmp_path / "ours.jsonl"), "--format", "jsonl")
    call_command("import_arena", str(tmp_path / "ours.jsonl"))
    assert Battle.objects.count() == 1 and Vote.objects.count() == 1


def test_an_imported_vote_with_no_recorded_validity_counts(tmp_path):
    row = released_row("c1")
    row["arena"] = {"valid": None, "exclusion_reasons": []}
    call_command("import_arena", str(write_jsonl(tmp_path / "rows.jsonl", [row])))
    assert Vote.objects.get().valid
