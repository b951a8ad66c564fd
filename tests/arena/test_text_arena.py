"""Import of a released Text Arena battles file into the plain-chat setting, and export back in its schema,
on a fixture written here in the released layouts (tests/arena/fixtures/text_arena_battles.jsonl): FastChat's
conv_release rows (judge, anony, language names, epoch tstamp, num_tokens per message, moderation tags),
the 100k release's (judge_hash, conversations and tags as JSON text, conv_metadata, dedup_tag, category_tag),
the 140k release's (``id``, content as parts, no judge or anony) and the Search Arena paper's (an intent);
ties, both-bad, a vote cast with the names shown and a high-frequency prompt's unsampled battle."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from evaluators.arena.text_arena import read_rows
from leaderboard.arena import services
from leaderboard.arena.models import ArenaModel, Battle, RatingSnapshot, Vote
from tests.arena.conftest import answer, voter_of_client

pytestmark = pytest.mark.django_db

FIXTURE = Path(__file__).parent / "fixtures" / "text_arena_battles.jsonl"


def key(row: dict) -> str:
    return row.get("question_id") or row["id"]


def rows_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_text_arena_file_round_trips_through_the_chat_setting(tmp_path, settings):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 1, 10
    call_command("import_arena", str(FIXTURE), "--schema", "text-arena")
    battles = {b.conv_id: b for b in Battle.objects.select_related("vote", "model_a", "model_b")}
    assert len(battles) == 6 and {b.setting for b in battles.values()} == {"chat"}
    assert set(ArenaModel.objects.values_list("name", "imported", "enabled")) == {
        ("quillfeather-13b", True, False),
        ("brambleworth-7b", True, False),
        ("thornhollow-34b", True, False),
    }

    first = battles["5f9c1d2e7a3b4c8d9e0f1a2b3c4d5e6f"]
    assert first.vote.winner == "model_a" and first.vote.valid and first.voter_hash == "arena_user_7Hq2mZ"
    assert first.created_at == dt.datetime(2023, 4, 24, 15, 53, 11, 132200, tzinfo=dt.UTC)  # 1682351591.1322 by hand
    assert first.languages == ["en"] and first.turns.get().text_a.startswith("Grey rain on the leaves")
    assert first.turns.get().answer_a["sources"] == [] and first.features_a["citation_count"] == 0

    german = battles["b7e3a9c1d4f2468a9b0c1d2e3f405162"]  # a tie over two turns, its conversation given as JSON text
    assert (
        german.vote.winner == "tie" and german.vote.valid and german.vote.turn_count == 2 and german.languages == ["de"]
    )
    assert [t.prompt for t in german.turns.order_by("index")] == ["Wie koche ich Reis?", "Und Vollkornreis?"]
    assert german.voter_hash == "9d1f4c2ab7e04f55"  # judge_hash

    shown = battles["0a1b2c3d4e5f60718293a4b5c6d7e8f9"]
    assert (
        shown.vote.winner == "tie (bothbad)"
        and not shown.vote.valid
        and shown.vote.exclusion_reasons == ["not_anonymous"]
    )
    unsampled = battles["ffeeddccbbaa99887766554433221100"]
    assert (
        not unsampled.vote.valid
        and unsampled.vote.exclusion_reasons == ["duplicate_flood"]
        and unsampled.languages == []
    )
    assert "dedup_tag.sampled false" in unsampled.vote.exclusions.get().detail
    parts = battles["3c9e2f10-5b7a-4d8e-9a61-0f2b3c4d5e6f"]  # content as parts, no judge and no anony: anonymous
    assert (
        parts.vote.valid
        and parts.turns.get().prompt == "Name three prime numbers."
        and parts.turns.get().text_b == "2, 3 and 5."
    )
    assert battles["77aa88bb99cc00dd11ee22ff33004411"].primary_intent == "Factual Lookup"
    assert Vote.objects.filter(valid=True).count() == 4

    # the imported votes rate in the chat setting only: the Search Arena's own board has none
    services.ratings_compute(force=True)
    chat = RatingSnapshot.objects.get(kind="raw", filter_key="setting", filter_value="chat")
    assert chat.n_votes == 4 and not RatingSnapshot.objects.filter(filter_key="").exists()

    out = tmp_path / "out.jsonl"
    call_command("export_arena", str(out), "--schema", "text-arena")
    exported, given = {key(r): r for r in rows_of(out)}, {key(r): r for r in rows_of(FIXTURE)}
    assert exported == given  # every field, tag and quirk as it came
    assert {k: list(r) for k, r in exported.items()} == {
        k: list(r) for k, r in given.items()
    }  # and the fields in their order
    # in time order; the row without a time stamp was imported now, so it comes last
    assert [key(r) for r in rows_of(out)] == [
        key(r) for r in sorted(given.values(), key=lambda r: r.get("tstamp", float("inf")))
    ]

    call_command("import_arena", str(out), "--schema", "text-arena")  # idempotent by question_id
    assert Battle.objects.count() == 6


def test_a_bad_text_arena_row_is_named_and_nothing_is_imported(tmp_path):
    rows = rows_of(FIXTURE)
    rows[2]["conversation_b"] = [{"role": "user", "content": "What is 17 * 23?"}, {"role": "user", "content": "again"}]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(CommandError, match=r"row 3: field 'conversation_b\[1\]\.role': expected 'assistant'"):
        call_command("import_arena", str(bad), "--schema", "text-arena")
    rows[2] = {**rows_of(FIXTURE)[2], "winner": "model_c"}
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(CommandError, match=r"row 3: field 'winner': 'model_c' is not one of"):
        call_command("import_arena", str(bad), "--schema", "text-arena")
    rows[2] = {**rows_of(FIXTURE)[0]}
    bad.write_text("".join(json.dumps(r) + "\n" for r in rows))
    with pytest.raises(
        CommandError, match=r"row 3: field 'question_id': '5f9c1d2e7a3b4c8d9e0f1a2b3c4d5e6f' repeats row 1"
    ):
        call_command("import_arena", str(bad), "--schema", "text-arena")
    assert not Battle.objects.exists() and not ArenaModel.objects.exists()
    array = tmp_path / "clean_battle_conv_20230630.json"  # FastChat writes a JSON array
    array.write_text(json.dumps(rows_of(FIXTURE)[:2], indent=2))
    assert [r.question_id for r in read_rows(array)] == [
        "5f9c1d2e7a3b4c8d9e0f1a2b3c4d5e6f",
        "b7e3a9c1d4f2468a9b0c1d2e3f405162",
    ]


def test_our_own_chat_battles_export_in_the_text_arena_schema(client, make_battle, tmp_path):
    voter = voter_of_client(client)
    battle = make_battle(voter, [(answer("Grey rain falls.", urls=()), answer("Rain.", urls=()))])
    Battle.objects.filter(pk=battle.pk).update(setting="chat")
    battle.turns.update(language="en")
    assert client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_b"}).status_code == 302
    searched = make_battle(voter)  # a Search Arena battle: never in the Text Arena export
    client.post(f"/arena/b/{searched.public_id}/vote/", {"winner": "model_a"})
    out = tmp_path / "ours.jsonl"
    call_command("export_arena", str(out), "--schema", "text-arena")
    (row,) = rows_of(out)
    battle.refresh_from_db()
    assert row == {
        "question_id": battle.public_id,
        "model_a": battle.model_a.name,
        "model_b": battle.model_b.name,
        "winner": "model_b",
        "judge": voter.hash,
        "conversation_a": [
            {"role": "user", "content": "How do I install a package? (0)"},
            {"role": "assistant", "content": "Grey rain falls."},
        ],
        "conversation_b": [
            {"role": "user", "content": "How do I install a package? (0)"},
            {"role": "assistant", "content": "Rain."},
        ],
        "turn": 1,
        "anony": True,
        "language": "English",
        "tstamp": battle.created_at.timestamp(),
    }
    assert read_rows(out)[0].anony  # and it reads back as a released row
