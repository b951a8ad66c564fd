"""Import of the released dataset's rows and export back: a malformed row is named and imports
nothing, imports are idempotent by conv_id, and export -> import -> export loses nothing (JSONL and
Parquet), including our own battles with their traces and exclusions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from leaderboard.arena.models import ArenaModel, Battle, Vote
from tests.arena.conftest import answer, voter_of_client

pytestmark = pytest.mark.django_db


def released_row(
    conv_id: str, *, winner: str | None = "model_a", a: str = "sonar-pro-high", b: str = "gpt-4o-search"
) -> dict:
    def messages(answer_text: str) -> list[dict]:
        return [
            {"role": "user", "content": "Who maintains dpkg?"},
            {"role": "assistant", "content": answer_text},
            {"role": "user", "content": "And apt?"},
            {"role": "assistant", "content": answer_text + " Also apt [2]."},
        ]

    def meta(side: str, answer_text: str) -> dict:
        return {
            "citation_format_standardized": side == "a",
            "client_country": "DE",
            "conv_id": conv_id,
            "formatted_messages": messages(answer_text),
            "llm_config": {"name": a if side == "a" else b, "params": {"temperature": 0.2}},
            "web_search_trace": [
                [["[1]", "https://wiki.debian.org/Teams/Dpkg"]],
                [["[1]", "https://wiki.debian.org/Teams/Dpkg"], ["[2]", "https://www.debian.org/doc/apt"]],
            ],
        }

    return {
        "model_a": a,
        "model_b": b,
        "winner": winner,
        "judge": "c0ffee" + conv_id,
        "turn": 2,
        "timestamp": "2025-03-01T12:00:00+00:00",
        "messages_a": messages("The dpkg team [1]."),
        "messages_b": messages("Debian developers [1]."),
        "system_a_metadata": meta("a", "The dpkg team [1]."),
        "system_b_metadata": meta("b", "Debian developers [1]."),
        "primary_intent": "Factual Lookup",
        "secondary_intent": None,
        "languages": ["en"],
    }


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_a_malformed_row_is_named_and_nothing_is_imported(tmp_path):
    bad = released_row("c3")
    bad["winner"] = "model_c"
    path = write_jsonl(tmp_path / "rows.jsonl", [released_row("c1"), released_row("c2"), bad])
    with pytest.raises(CommandError) as err:
        call_command("import_arena", str(path))
    assert "row 3" in str(err.value) and "winner" in str(err.value)
    assert not Battle.objects.exists() and not ArenaModel.objects.exists()


def test_import_creates_disabled_imported_models_and_is_idempotent(tmp_path):
    path = write_jsonl(
        tmp_path / "rows.jsonl",
        [released_row("c1"), released_row("c2", winner=None), released_row("c3", winner="tie (bothbad)")],
    )
    call_command("import_arena", str(path))
    call_command("import_arena", str(path))
    assert Battle.objects.count() == 3 and Vote.objects.count() == 2
    assert set(ArenaModel.objects.values_list("name", "enabled", "imported")) == {
        ("sonar-pro-high", False, True),
        ("gpt-4o-search", False, True),
    }
    battle = Battle.objects.get(conv_id="c1")
    assert (
        battle.turns.count() == 2
        and battle.turns.get(index=1).answer_a["sources"][1]["url"] == "https://www.debian.org/doc/apt"
    )
    assert battle.citation_style_b == "original" and battle.primary_intent == "Factual Lookup"


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_export_import_export_loses_nothing(tmp_path, client, make_battle, fmt):
    from evaluators.arena.dataset import read_rows

    write_jsonl(tmp_path / "in.jsonl", [released_row("c1"), released_row("c2", winner=None)])
    call_command("import_arena", str(tmp_path / "in.jsonl"))
    ours = make_battle(
        voter_of_client(client), [(answer("I am Zorblax-Quintet-7, use apt [1]."), answer("Use dpkg [1]."))]
    )
    client.post(f"/arena/b/{ours.public_id}/vote/", {"winner": "model_b"})
    first, second = tmp_path / f"first.{fmt}", tmp_path / f"second.{fmt}"
    call_command("export_arena", str(first), "--format", fmt)
    exported = [r.to_dict() for r in read_rows(first)]
    assert len(exported) == 3
    mine = next(r for r in exported if r["system_a_metadata"]["conv_id"] == ours.public_id)
    assert mine["arena"]["exclusion_reasons"] == ["self_identification"] and mine["judge"] == ours.voter_hash
    assert mine["system_a_metadata"]["answers"][0]["searches"][0]["backend"] == "local"

    Battle.objects.all().delete()
    ArenaModel.objects.all().delete()
    call_command("import_arena", str(first))
    call_command("export_arena", str(second), "--format", fmt)
    assert [r.to_dict() for r in read_rows(second)] == exported
    assert not Vote.objects.get(battle__conv_id=ours.public_id).valid
