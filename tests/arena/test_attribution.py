"""Citation attribution on the site: stored per turn and side by the turn task (heuristic, or the judge
configured under ``arena-attribution`` over HTTP, its raw calls kept); each citation marked in the
battle's reveal and only there; a contestant's supported / irrelevant / contradicting shares with
Wilson intervals on its model page; and the attribution counts as style features: on simulated votes
where voters reward an unsupported citation exactly as much as a supported one, the fit recovers both
effects within their intervals and the findings page says the two cannot be told apart."""

from __future__ import annotations

import json
import math
import re
from typing import Any

import numpy as np
import pytest

from leaderboard.arena import services
from leaderboard.arena.models import ArenaModel, Battle, RatingSnapshot, Turn, TurnAttribution
from leaderboard.arena.services.attribution import turn_attribute
from tests.arena.conftest import NAME_A, answer, voter_of_client
from tests.support.openai_server import OpenAIServer, Reply

APT = "APT installs packages and resolves their dependencies automatically."


def traced(text: str, snippets: tuple[str, ...]) -> dict[str, Any]:
    """An answer whose sources carry the text the search returned (``answer`` leaves snippets empty)."""
    found = answer(text, urls=tuple(f"https://docs.example.org/{i}" for i in range(1, len(snippets) + 1)))
    for source, snippet in zip(found["sources"], snippets):
        source["snippet"] = snippet
    return found


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.django_db
def test_the_heuristic_labels_are_stored_and_shown_only_after_the_vote(client, make_battle, settings):
    settings.JUDGES = {}
    voter = voter_of_client(client)
    a = traced("APT resolves dependencies automatically [1]. Bananas are yellow [2].", (APT, "Cats sleep a lot."))
    battle = make_battle(voter, [(a, answer("No sources here.", urls=()))])
    turn = battle.turns.get()
    assert turn_attribute(turn_id=turn.pk) == 1  # side B cites nothing
    stored = TurnAttribution.objects.get(turn=turn)
    assert (stored.side, stored.supported, stored.irrelevant, stored.contradicting) == ("a", 1, 1, 0)
    assert "crude" in stored.method and stored.judge_calls == []
    assert [(p["number"], p["label"]) for p in stored.pairs] == [(1, "supported"), (2, "irrelevant")]

    before = client.get(f"/arena/b/{battle.public_id}/").content.decode()
    assert "Does each citation support its claim?" not in before and "[1] supported" not in before
    services.vote_cast(battle=battle.public_id, winner="model_a", voter=voter)
    page = client.get(f"/arena/b/{battle.public_id}/").content.decode()
    assert "Does each citation support its claim?" in page
    assert re.search(r'class="badge supported">\[1\] supported</span> APT resolves dependencies automatically\.', page)
    assert re.search(r'class="badge irrelevant">\[2\] irrelevant</span> Bananas are yellow\.', page)


CLAIMS = {
    "claims": [
        {"claim": "APT resolves dependencies automatically.", "citations": [1]},
        {"claim": "APT was written in 1975.", "citations": [2]},
    ]
}


def judge_script(request: dict[str, Any]) -> Reply:
    text = request["messages"][-1]["content"]
    if text.startswith("Answer (citation markers"):
        return Reply(text=json.dumps(CLAIMS))
    label = "support" if "resolves their dependencies" in text else "contradict"
    return Reply(text=json.dumps({"verdicts": [{"reasoning": f"scripted {label}", "label": label}]}))


@pytest.mark.django_db
def test_the_judge_configured_for_the_role_labels_and_its_calls_are_kept(client, make_battle, settings):
    with OpenAIServer(judge_script) as server:
        settings.JUDGES = {
            "arena-attribution": {
                "name": "attr-judge",
                "revision": "r1",
                "prompt_version": "v1",
                "base_url": server.base_url,
                "model": "judge",
            }
        }
        a = traced(
            "APT resolves dependencies [1]. It dates from 1975 [2].", (APT, "APT first shipped in 1998 with Debian.")
        )
        battle = make_battle(voter_of_client(client), [(a, a)])
        assert turn_attribute(turn_id=battle.turns.get().pk) == 2
    stored = TurnAttribution.objects.get(side="b")
    assert (stored.supported, stored.irrelevant, stored.contradicting) == (1, 0, 1)
    assert stored.method.startswith("judge attr-judge@r1") and "arena-attribution@v1" in stored.method
    assert [p["reason"] for p in stored.pairs] == ["scripted support", "scripted contradict"]
    assert stored.judge_calls[0]["raw_answer"] == json.dumps(CLAIMS)


@pytest.mark.django_db(transaction=True)
def test_the_turn_task_attributes_an_answered_turn(client, monkeypatch, settings):
    settings.JUDGES = {}
    monkeypatch.setenv("ARENA_SECRET_TEST_ATTR_KEY", "sk-attr")
    urls = ["https://wiki.debian.org/Apt"]
    with OpenAIServer(
        lambda request: Reply(text="Use apt install [1].", extra={"citations": urls}), api_key="sk-attr"
    ) as server:
        models = [
            ArenaModel.objects.create(
                name=f"Hidden-{i}",
                responder={
                    "kind": "hosted",
                    "style": "perplexity",
                    "base_url": server.base_url,
                    "model": "sonar",
                    "api_key_ref": "ARENA_SECRET_TEST_ATTR_KEY",
                },
            )
            for i in (1, 2)
        ]
        voter = voter_of_client(client)
        battle = Battle.objects.create(model_a=models[0], model_b=models[1], voter_hash=voter.hash, propensity=1.0)
        turn = Turn.objects.create(battle=battle, index=0, prompt="How do I install a package?")
        assert services.turn_generate(turn_id=turn.pk) == "complete/complete"
    # Perplexity sends URLs only: no text of the page, so the pair is stored but not checked
    rows = list(TurnAttribution.objects.filter(turn=turn).values_list("side", "unchecked", "supported"))
    assert rows == [("a", 1, 0), ("b", 1, 0)]


@pytest.mark.django_db
def test_the_model_page_shows_the_shares_with_wilson_intervals(
    client, make_battle, seed_votes, settings, django_user_model
):
    from leaderboard.catalog.models import Model

    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 1, 5
    voter = voter_of_client(client)
    battle = make_battle(voter)
    turn = battle.turns.get()
    TurnAttribution.objects.create(
        turn=turn, side="a", method="overlap-v1 (crude)", supported=8, irrelevant=1, contradicting=1, failed=3
    )  # three checks the judge answered unusably: in no share
    TurnAttribution.objects.create(
        turn=turn, side="b", method="overlap-v1 (crude)", supported=0, irrelevant=5
    )  # the other model
    services.vote_cast(
        battle=battle, winner="tie", voter=voter
    )  # an open battle's attributions are in no public figure
    seed_votes([("v1", NAME_A, "Other-Model", "model_a", "p1"), ("v2", NAME_A, "Other-Model", "model_b", "p2")])
    services.ratings_compute(force=True)
    owner = django_user_model.objects.create_user("owner", password="pw-owner-1")
    model = Model.objects.create(name=NAME_A, slug="zorblax", organization="Quuxworks Ltd", is_public=True, owner=owner)
    ArenaModel.objects.filter(name=NAME_A).update(
        catalog_model=model
    )  # staff link the contestant to its catalog record
    text = text_of(client.get(f"/models/{model.slug}/").content.decode())
    # By hand (Wilson, z = 1.96): 8 of 10 -> [49.0, 94.3]; 1 of 10 -> [1.8, 40.4]
    assert "10 in 1 answer, by overlap-v1 (crude)" in text
    assert "supported 80.0% [49.0, 94.3] · irrelevant 10.0% [1.8, 40.4] · contradicting 10.0% [1.8, 40.4]" in text
    assert "3 failed (the judge's answer was unusable; in no share)" in text


TRUE = {"Alpha": 0.3, "Beta": 0.0, "Gamma": -0.2}
EFFECT = 0.6  # log-odds per standard deviation, the same for supported and unsupported citations
POINTS = EFFECT * 400 / math.log(10)


def _covariate(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    x = (a - b) / (a + b + 1.0)  # as the rating code builds it
    return (x - x.mean()) / x.std()


@pytest.mark.django_db
def test_voters_rewarding_unsupported_citations_as_much_as_supported_ones_is_recovered(client, seed_votes, settings):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 10, 50
    settings.ARENA_STYLE_DEFINITION = "ours"  # the citation and attribution features are this site's own set
    # a 95% interval misses now and then: over seeds 7, 11, 12 and 13 the estimates scatter around the truth
    # (93-117 points for 104), and seed 11's supported interval ends 3 points short of it; this is seed 7
    rng = np.random.default_rng(7)
    names, n = list(TRUE), 3000
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(1, 3, n)) % 3
    counts = {key: rng.integers(0, 7, n) for key in ("sa", "sb", "ua", "ub")}
    logit = (
        np.array([TRUE[names[i]] for i in a])
        - np.array([TRUE[names[j]] for j in b])
        + EFFECT * _covariate(counts["sa"], counts["sb"])
        + EFFECT * _covariate(counts["ua"], counts["ub"])
    )
    a_wins = rng.random(n) < 1 / (1 + np.exp(-logit))
    seed_votes(
        [
            (f"v{k % 40}", names[i], names[j], "model_a" if win else "model_b", f"prompt {k}")
            for k, (i, j, win) in enumerate(zip(a, b, a_wins))
        ]
    )
    turns = list(Turn.objects.order_by("battle_id"))
    rows = []
    for k, turn in enumerate(turns):  # unsupported split between irrelevant and contradicting: both count
        ua, ub = int(counts["ua"][k]), int(counts["ub"][k])
        rows += [
            TurnAttribution(
                turn=turn,
                side="a",
                method="planted",
                supported=int(counts["sa"][k]),
                irrelevant=ua - ua // 2,
                contradicting=ua // 2,
            ),
            TurnAttribution(
                turn=turn, side="b", method="planted", supported=int(counts["sb"][k]), irrelevant=ub, contradicting=0
            ),
        ]
    TurnAttribution.objects.bulk_create(rows)
    services.ratings_compute(force=True)

    style = RatingSnapshot.objects.get(kind="style", filter_key="")
    effects = {c["feature"]: c for c in style.result["coefficients"]}
    for feature in ("supported_citations", "unsupported_citations"):
        c = effects[feature]
        assert c["ci_low"] <= POINTS <= c["ci_high"] and c["ci_low"] > 0, (feature, c, POINTS)
    assert effects["citation_count"]["ci_low"] <= 0 <= effects["citation_count"]["ci_high"]

    page = client.get("/arena/findings/").content.decode()
    section = text_of(page.split('id="attribution"')[1].split("</section>")[0])
    for feature, label in (
        ("supported_citations", "Supported citations"),
        ("unsupported_citations", "Unsupported citations"),
    ):
        c = effects[feature]
        assert f"{label}" in section and f"{c['value']:.1f} [{c['ci_low']:.1f}, {c['ci_high']:.1f}]" in section
    assert "cannot tell the two apart" in section and "Both raise the win rate" in section
    assert "supported_citations" not in text_of(page)


def test_the_reading_names_a_gap_only_when_the_intervals_do_not_overlap():
    from leaderboard.arena.presentation import attribution_question

    row = {"feature": "supported_citations", "value": 40.0, "ci_low": 30.0, "ci_high": 50.0}
    wider = {"feature": "unsupported_citations", "value": 5.0, "ci_low": -5.0, "ci_high": 15.0}
    reading = attribution_question({"supported_citations": row, "unsupported_citations": wider})
    assert reading is not None and reading["reading"].startswith("Voters reward a supported citation more")
    assert reading["difference"] == -35.0
    zero = {"value": 0.0, "ci_low": 0.0, "ci_high": 0.0}
    unmeasured = attribution_question(
        {
            "supported_citations": {**zero, "feature": "supported_citations"},
            "unsupported_citations": {**zero, "feature": "unsupported_citations"},
        }
    )
    assert unmeasured is not None and unmeasured["reading"].startswith("Not measured yet")
