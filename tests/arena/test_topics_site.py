"""The topic explorer on the site, on the real Postgres: /arena/topics/ (keyword labels, shares, example
prompts, each topic's ratings, the held-out table), its API, the prompt-conditioned box on the
leaderboard and GET /api/arena/ratings/for-prompt/ (in the OpenAPI schema), incremental updates, and
the privacy rule: a prompt of a battle that is not public (a pre-release variant's, an excluded vote's,
an unvoted battle's, one voted after the public cut) never appears, and a typed question is not stored.
Votes are simulated with three planted topics (tests/arena_engine/topic_simulation.py)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.apps import apps
from django.test import override_settings
from django.utils import timezone

from leaderboard.arena import services
from tests.arena_engine.topic_simulation import MODELS, TOPIC_WORDS, simulate_topics

pytestmark = pytest.mark.django_db

SMALL = {"ARENA_TOPICS_TOP": 3, "ARENA_TOPICS_SUB": 2, "ARENA_BOOTSTRAP_ROUNDS": 20}
WINNER = ("model_a", "model_b", "tie")


def simulated_rows(n: int, seed: int) -> list[tuple]:
    sim = simulate_topics(n, seed=seed)
    arr = sim.battles
    return [
        (f"voter-{i % 41}", MODELS[int(a)], MODELS[int(b)], WINNER[int(o)], prompt)
        for i, (a, b, o, prompt) in enumerate(zip(arr.a, arr.b, arr.outcome, sim.prompts))
    ]


def _texts(client, urls: list[str]) -> str:
    out = []
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        out.append(response.content.decode())
    return "\n".join(out)


@override_settings(**SMALL)
def test_topics_page_api_and_the_conditioned_box(seed_votes, client):
    seed_votes(simulated_rows(900, seed=5))
    assert client.get("/api/arena/ratings/topics/").status_code == 404  # before the first computation
    snapshot = services.topics_compute()
    assert (
        snapshot is not None
        and snapshot.refit
        and snapshot.reason == "no topic model yet"
        and snapshot.n_battles == 900
    )
    assert services.topics_compute() is None  # nothing changed

    page = client.get("/arena/topics/").content.decode()
    assert page.count('class="topic"') == 3 and "keywords" in page and 'id="evaluation"' in page
    topics = client.get("/api/arena/ratings/topics/").json()["result"]["topics"]
    leaders = {}
    for topic in topics:
        planted = [k for k, vocab in enumerate(TOPIC_WORDS) if set(topic["label"]) <= set(vocab)]
        assert len(planted) == 1, topic["label"]
        assert (
            all(set(e.split()) & set(TOPIC_WORDS[planted[0]]) for e in topic["examples"])
            and len(topic["examples"]) == 3
        )
        assert all(e in page for e in topic["examples"])
        leaders[planted[0]] = topic["ratings"]["models"][0]["name"]
        # intervals (the anchor model's is a point: the scale is fixed on it, as on the board)
        assert all(m["ci_low"] <= m["rating"] <= m["ci_high"] for m in topic["ratings"]["models"])
        assert sum(m["ci_low"] < m["ci_high"] for m in topic["ratings"]["models"]) >= 4
    assert leaders == {0: "m0", 1: "m2", 2: "m4"}  # each planted topic's true leader
    assert sum(t["battles"] for t in topics) == 900

    got = client.get("/api/arena/ratings/for-prompt/", {"q": "how long should bread dough knead"}).json()
    assert (
        got["declined"] == ""
        and got["models"][0]["name"] == "m0"
        and got["effective_votes"] >= got["min_effective_votes"]
    )
    board = client.get("/arena/leaderboard/", {"q": "python function memory error"}).content.decode()
    assert "effective votes" in board and board.index("<td>m2</td>") < board.index("<td>m0</td>")
    declined = client.get("/api/arena/ratings/for-prompt/", {"q": "zebra quantum"}).json()
    assert declined["models"] == [] and "none of the question's words" in declined["declined"]
    assert "No ranking for this question" in client.get("/arena/leaderboard/", {"q": "zebra quantum"}).content.decode()
    schema = client.get("/api/schema/").content.decode()
    assert "/api/arena/ratings/for-prompt/" in schema and "effective_votes" in schema


@override_settings(**SMALL)
def test_new_votes_are_assigned_without_a_refit_until_the_rule_says(seed_votes, client):
    seed_votes(simulated_rows(600, seed=6))
    first = services.topics_compute()
    seed_votes(simulated_rows(120, seed=7))  # 20% more, from the same topics: assigned
    second = services.topics_compute()
    assert second is not None and not second.refit and second.n_battles == 720
    assert second.model["labels"] == first.model["labels"]
    seed_votes(simulated_rows(300, seed=8))  # 420 since the refit on 600: above half of them, a full refit
    third = services.topics_compute()
    assert third is not None and third.refit and "new prompts since the refit on 600" in third.reason
    from django.core.files.storage import default_storage

    default_storage.delete(third.vectors)  # storage wiped: the question box says so, the next update refits
    assert "being recomputed" in client.get("/api/arena/ratings/for-prompt/", {"q": "bread"}).json()["declined"]
    seed_votes(simulated_rows(10, seed=13))
    fourth = services.topics_compute()
    assert fourth is not None and fourth.refit and "missing" in fourth.reason


@override_settings(**SMALL)
def test_no_prompt_of_a_battle_that_is_not_public_appears(seed_votes, client):
    from leaderboard.arena.models import ArenaModel, Battle, Turn, Vote

    with override_settings(ARENA_PUBLIC_DELAY_SECONDS=3600):
        old = seed_votes(simulated_rows(600, seed=9))
        Vote.objects.filter(pk__in=[v.pk for v in old]).update(created_at=timezone.now() - dt.timedelta(days=1))
        bread = " ".join(TOPIC_WORDS[0][:6])  # the most typical prompt there is: it would be an example
        ArenaModel.objects.create(name="Secret-Variant", organization="Acme", prerelease=True)
        hidden = [
            ("v1", "Secret-Variant", "m1", "model_a", f"{bread} markerprerelease"),
            ("v2", "m0", "m1", "model_a", f"{bread} markerexcluded"),
            ("v3", "m0", "m1", "model_a", f"{bread} markerlatevote"),
        ]
        votes = seed_votes(hidden * 3)
        Vote.objects.filter(
            pk__in=[v.pk for v in votes[:2]] + [v.pk for v in votes[3:5]] + [v.pk for v in votes[6:8]]
        ).update(created_at=timezone.now() - dt.timedelta(days=1))
        for vote in votes[1::3]:
            services.vote_exclude(vote=vote, code="staff", detail="test exclusion", by="staff:tester")
        # votes[2], [5], [8]: cast just now, after the public cut
        unvoted = Battle.objects.create(
            model_a=ArenaModel.objects.get(name="m0"),
            model_b=ArenaModel.objects.get(name="m1"),
            voter_hash="v4",
            propensity=1.0,
        )
        Turn.objects.create(battle=unvoted, index=0, prompt=f"{bread} markerunvoted")
        snapshot = services.topics_compute()
        assert snapshot is not None
        texts = _texts(
            client,
            [
                "/arena/topics/",
                "/api/arena/ratings/topics/",
                "/api/arena/ratings/for-prompt/?q=" + bread.replace(" ", "+"),
                "/arena/leaderboard/?q=bread",
            ],
        )
        texts += json.dumps(snapshot.result) + json.dumps(snapshot.model)
        for marker in ("markerprerelease", "markerexcluded", "markerlatevote", "markerunvoted", "Secret-Variant"):
            assert marker not in texts
        assert snapshot.n_battles == 600


@override_settings(**SMALL)
def test_a_typed_question_is_not_stored(seed_votes, client):
    seed_votes(simulated_rows(300, seed=10))
    services.topics_compute()
    models = list(apps.get_app_config("arena").get_models())
    before = {m.__name__: m.objects.count() for m in models}
    question = "knead bread dough uniquequestionmarker"
    client.get("/arena/leaderboard/", {"q": question})
    client.get("/api/arena/ratings/for-prompt/", {"q": question})
    assert {m.__name__: m.objects.count() for m in models} == before
    assert "uniquequestionmarker" not in json.dumps(
        list(apps.get_model("arena", "TopicSnapshot").objects.values("result", "model", "reason"))
    )


def test_embeddings_from_the_configured_endpoint(seed_votes, client):
    from tests.arena_engine.embeddings_server import embeddings_server

    seed_votes(simulated_rows(600, seed=11))
    with (
        embeddings_server() as (url, seen),
        override_settings(ARENA_TOPICS_EMBEDDINGS_URL=url, ARENA_TOPICS_EMBEDDINGS_MODEL="test-embedder", **SMALL),
    ):
        snapshot = services.topics_compute()
        assert snapshot is not None and snapshot.representation == "embeddings: test-embedder"
        assert sum(len(body["input"]) for body in seen) == 600
        labels = [set(t["label"]) for t in snapshot.result["topics"]]  # the labels are still keywords (c-TF-IDF)
        assert sorted(next(k for k, vocab in enumerate(TOPIC_WORDS) if label <= set(vocab)) for label in labels) == [
            0,
            1,
            2,
        ]
        got = client.get("/api/arena/ratings/for-prompt/", {"q": "striker goal penalty league"}).json()
        assert got["models"][0]["name"] == "m4" and "test-embedder" in got["method"]
        assert "embeddings: test-embedder" in client.get("/arena/topics/").content.decode()
    with override_settings(ARENA_TOPICS_EMBEDDINGS_URL=url, ARENA_TOPICS_EMBEDDINGS_MODEL="test-embedder", **SMALL):
        down = client.get("/api/arena/ratings/for-prompt/", {"q": "striker goal"}).json()  # the server is gone
        assert down["models"] == [] and "embeddings service did not answer" in down["declined"]
