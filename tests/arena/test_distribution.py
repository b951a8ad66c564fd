"""The prompt distribution on the findings page and in the API, against counts made here by hand, and the
attribution backfill command: batches with progress, resumable, never attributing a side twice."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.management import call_command

from tests.arena.conftest import answer, voter_of_client

pytestmark = pytest.mark.django_db


def test_the_distribution_counts_what_the_counted_votes_asked(seed_votes, client):
    from leaderboard.arena.models import Battle, Turn, VoteExclusion
    from leaderboard.arena.services import vote_exclude

    factual = seed_votes(
        [
            ("v1", "A", "B", "model_a", "one two three"),
            ("v2", "A", "B", "model_b", "a b c d e f g"),
            ("v3", "B", "A", "tie", " ".join(["w"] * 12)),
        ],
        intent="Factual Lookup",
        languages=("en",),
    )
    analysis = seed_votes([("v4", "A", "B", "model_a", " ".join(["x"] * 25))], intent="Analysis", languages=("de",))
    excluded = seed_votes([("v5", "A", "B", "model_a", "not counted at all")], intent="Guidance", languages=("fr",))
    vote_exclude(vote=excluded[0], code=VoteExclusion.Code.STAFF, detail="test")
    # a three-turn and an eight-turn conversation
    for battle_id, n in ((factual[0].battle_id, 3), (analysis[0].battle_id, 8)):
        Turn.objects.bulk_create([Turn(battle_id=battle_id, index=i, prompt=f"follow-up {i}") for i in range(1, n)])
    monday = dt.datetime(2026, 11, 2, 9, tzinfo=dt.UTC)
    Battle.objects.filter(pk__in=[v.battle_id for v in factual[:2]]).update(created_at=monday)
    Battle.objects.filter(pk__in=[factual[2].battle_id, analysis[0].battle_id]).update(
        created_at=monday + dt.timedelta(days=8)
    )

    data = client.get("/api/arena/distribution/").json()
    assert data["n"] == 4  # the excluded vote's conversation is not counted
    assert [(r["value"], r["count"]) for r in data["intents"]] == [("Factual Lookup", 3), ("Analysis", 1)]
    assert (
        data["intents"][0]["share"] == pytest.approx(0.75)
        and data["intents"][0]["ci_low"] < 0.75 < data["intents"][0]["ci_high"]
    )
    assert [(r["value"], r["count"]) for r in data["languages"]] == [("English (en)", 3), ("German (de)", 1)]
    assert {r["value"]: r["count"] for r in data["turns"]} == {
        "1": 2,
        "2": 0,
        "3": 1,
        "4": 0,
        "5": 0,
        "6": 0,
        "more than 6": 1,
    }
    assert {r["value"]: r["count"] for r in data["lengths"] if r["count"]} == {
        "1–5": 1,
        "6–10": 1,
        "11–20": 1,
        "21–50": 1,
    }
    # first prompts of 3, 7, 12 and 25 words: median (7 + 12) / 2, quartiles by linear interpolation
    assert (
        data["length_summary"]["median"] == 9.5
        and data["length_summary"]["q1"] == 6.0
        and data["length_summary"]["q3"] == 15.25
    )
    by_intent = {r["intent"]: r for r in data["length_by_intent"]}
    assert by_intent["Analysis"]["median"] == 25 and by_intent["Factual Lookup"]["median"] == 7
    assert [(w["week"], w["count"], w["by_intent"]) for w in data["weeks"]] == [
        ("2026-11-02", 2, [2, 0]),
        ("2026-11-09", 2, [1, 1]),
    ]

    page = client.get("/arena/findings/").content.decode()
    section = page.split('id="distribution"')[1].split("</section>")[0]
    assert (
        "What people ask" in page
        and "Factual Lookup" in section
        and "more than 6" in section
        and "2026-11-09" in section
    )
    assert section.count("<table") == 6  # each chart has its table (and the lengths by intent)


def test_the_backfill_attributes_older_turns_in_batches_once(client, make_battle, settings):
    from leaderboard.arena.models import TurnAttribution

    settings.JUDGES = {}
    voter = voter_of_client(client)
    cited = answer("APT installs packages [1].")
    cited["sources"][0]["snippet"] = "APT installs packages and resolves dependencies."
    battles = [make_battle(voter, [(cited, cited)]) for _ in range(3)]
    make_battle(voter, [(answer("No sources.", urls=()), answer("None here.", urls=()))])  # nothing to attribute
    out = _run("--batch-size", "1", "--limit", "2")
    assert (
        "4 turns" not in out
        and "3 turns to attribute" in out
        and "batch 2: 2 turns done, 4 sides stored, 1 turns left" in out
    )
    stamps = dict(TurnAttribution.objects.values_list("pk", "computed_at"))
    out = _run("--batch-size", "5")  # resumes with the one left
    assert "1 turns to attribute" in out and "done: 1 turns, 2 sides stored, 0 left" in out
    assert TurnAttribution.objects.count() == 6
    assert {t.battle_id for t in TurnAttribution.objects.select_related("turn").all() for t in [t.turn]} == {
        b.pk for b in battles
    }
    assert _run().count("batch") == 0 and TurnAttribution.objects.count() == 6  # idempotent: nothing twice
    assert all(dict(TurnAttribution.objects.values_list("pk", "computed_at"))[pk] == at for pk, at in stamps.items())


def _run(*args: str) -> str:
    from io import StringIO

    out = StringIO()
    call_command("arena_attribute", *args, stdout=out)
    return out.getvalue()
