"""Provisional arena ratings, the arena saying what it is, and one identity per contestant: a model with
too few votes for a rank is listed apart with no rating (board, ratings API, profile, models index); the
ranked ones keep their figures and rank among themselves; ``/arena/`` names the collection its contestants
search and what they are; plain chat is offered only when it has contestants; the search-arena board
sends to the arena's; a catalog model cannot take a contestant's name (page, API, submission) nor, by
having the same name, its figures."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.arena import services
from leaderboard.arena.models import ArenaModel, RatingSnapshot
from leaderboard.catalog.models import Model
from tests.modelhost.conftest import api_for

pytestmark = pytest.mark.django_db


def text_of(html: str) -> str:
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def pair(voter: str, a: str, b: str, wins_a: int, wins_b: int) -> list[tuple]:
    return [
        (f"{voter}{i % 5}", a, b, "model_a" if i < wins_a else "model_b", f"{voter} prompt {i} {a} {b}")
        for i in range(wins_a + wins_b)
    ]


@pytest.fixture
def one_vote(seed_votes, settings):
    """One counted vote, Alpha-One over Beta-Two, under the default rule (ranked from 30 votes)."""
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 30, 10
    seed_votes([("v1", "Alpha-One", "Beta-Two", "model_a", "how do I sort a list")])
    services.ratings_compute(force=True)
    return RatingSnapshot.objects.get(kind="raw", filter_key="")


def test_one_vote_gives_two_provisional_rows_in_the_ratings_api_and_no_rating_on_the_board(client, one_vote):
    stored = {m["name"]: m for m in one_vote.result["models"]}
    figures = {f"{v:.0f}" for m in stored.values() for v in (m["rating"], m["ci_low"], m["ci_high"]) if v is not None}
    api = client.get("/api/arena/ratings/").json()
    rows = {m["name"]: m for m in next(s for s in api if s["kind"] == "raw")["result"]["models"]}
    for name in ("Alpha-One", "Beta-Two"):
        assert rows[name]["provisional"] is True and rows[name]["rank"] is None and rows[name]["ranked"] is False
        assert rows[name]["votes"] == 1 and rows[name]["standing"] == "provisional: 1 vote (ranked from 30)"
    html = client.get("/arena/leaderboard/").content.decode()
    board = text_of(html[html.index('<div id="board">') : html.index("<h2>Style-controlled ratings</h2>")])
    assert "No model is ranked yet." in board and "Not ranked yet" in board
    assert "Alpha-One 1 – provisional: 1 vote (ranked from 30)" in board
    assert "A model is ranked once it has at least 30 counted votes and a finite 95% interval" in board
    assert not any(re.search(rf"(?<![\d.]){re.escape(f)}(?![\d.])", board) for f in figures - {"1", "30"}), figures


def test_ranked_models_keep_their_figures_and_rank_among_themselves(client, seed_votes, settings):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 10, 10
    seed_votes(pair("r", "Alpha-One", "Beta-Two", 14, 6) + pair("n", "Gamma-New", "Beta-Two", 2, 1))
    services.ratings_compute(force=True)
    api = client.get("/api/arena/ratings/").json()
    rows = {m["name"]: m for m in next(s for s in api if s["kind"] == "raw")["result"]["models"]}
    # 20 and 23 votes, both with wins and losses: ranked; Gamma-New has 3 votes, fewer than 10
    assert rows["Alpha-One"]["ranked"] and rows["Beta-Two"]["ranked"] and rows["Alpha-One"]["rank"] == 1
    assert rows["Alpha-One"]["rating"] is not None and rows["Alpha-One"]["rank_ub"] >= 1  # the existing fields stay
    assert rows["Gamma-New"]["provisional"] and rows["Gamma-New"]["rank"] is None
    assert rows["Gamma-New"]["standing"] == "provisional: 3 votes (ranked from 10)"


def test_the_profile_and_the_models_index_show_a_provisional_contestant_without_a_rating(client, one_vote, user):
    model = Model.objects.create(owner=user, name="alpha one", slug="alpha-one")  # named apart; linked by staff
    ArenaModel.objects.filter(name="Alpha-One").update(catalog_model=model)
    profile = client.get("/api/models/alpha-one/profile/").json()["arena"]
    assert profile["provisional"] and profile["rank"] is None and profile["of"] == 0 and profile["votes"] == 1
    page = text_of(client.get("/models/alpha-one/").content.decode())
    assert "Search Arena rating (Bradley-Terry) – – not ranked yet, provisional: 1 vote (ranked from 30)" in page
    index = client.get("/models/?format=json").json()
    row = next(r for r in index["rows"] if r["slug"] == "alpha-one")
    assert row["arena"]["provisional"] is True and row["arena"]["rank"] is None
    assert "provisional: 1 vote" in text_of(client.get("/models/").content.decode())


# --- the arena says what it is -------------------------------------------------------------------


@pytest.fixture
def python_docs_index(tmp_path, monkeypatch):
    """A local index recorded as built from Debian's python3.11-doc, as the default index."""
    from evaluators.arena.search import Document, build_local_index

    path = tmp_path / "index.sqlite"
    build_local_index(
        [
            Document(
                "https://docs.python.org/3.11/library/stdtypes.html",
                "Sequence types",
                "Lists are mutable sequences; tuples are immutable sequences.",
            )
        ],
        path,
        source_version="python3.11-doc=3.11.2-6",
    )
    monkeypatch.setenv("LEADERBOARD_SEARCH_INDEX", str(path))
    return path


def test_the_arena_names_its_collection_and_its_contestants_and_offers_no_empty_plain_chat(client, python_docs_index):
    services.arena_models_seed()  # the embedded default: two extractive contestants over the default index
    page = text_of(client.get("/arena/").content.decode())
    assert "Ask a question about the Python 3.11 documentation (docs.python.org)." in page
    assert "they do not search the web" in page and "needs the web" not in page
    assert (
        "2 contestants can be drawn. What they are: Not a language model: it quotes the best-matching passages" in page
    )
    assert "What they search: the Python 3.11 documentation (docs.python.org), not the web." in page
    assert "What is the difference between a list and a tuple?" in page
    html = client.get("/arena/").content.decode()
    assert 'href="/arena/chat/"' not in html  # no contestant can chat
    chat = client.get("/arena/chat/")
    assert (
        chat.status_code == 200
        and 'id="no-chat"' in chat.content.decode()
        and 'name="prompt"' not in chat.content.decode()
    )


def test_a_web_searching_contestant_makes_the_arena_ask_for_the_web_and_offer_plain_chat(client, python_docs_index):
    for name in ("Hosted-One", "Hosted-Two"):
        ArenaModel.objects.create(
            name=name,
            responder={
                "kind": "hosted",
                "style": "perplexity",
                "base_url": "https://api.example.com",
                "model": "sonar",
                "api_key_ref": "ARENA_SECRET_X",
                "without_search": {"model": "plain"},
            },
        )
    page = text_of(client.get("/arena/").content.decode())
    assert "Ask a question that needs the web." in page and "A hosted search service that searches the web" in page
    assert 'href="/arena/chat/"' in client.get("/arena/").content.decode()
    assert 'name="prompt"' in client.get("/arena/chat/").content.decode()


def test_the_reveal_says_what_each_contestant_is(client, python_docs_index, make_battle, contestants):
    from tests.arena.conftest import voter_of_client

    for model in contestants:
        model.responder = {"kind": "extractive", "strategy": "bm25-sentences"}
        model.save()
    voter = voter_of_client(client)
    battle = make_battle(voter)
    before = text_of(client.get(f"/arena/b/{battle.public_id}/").content.decode())
    assert "Python 3.11" not in before  # nothing about the contestants before the vote
    client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"})
    after = text_of(client.get(f"/arena/b/{battle.public_id}/").content.decode())
    assert (
        after.count(
            "Not a language model: it quotes the best-matching passages it finds and cites them; it searches only "
            "the Python 3.11 documentation (docs.python.org), not the web."
        )
        == 2
    )


def test_the_search_arena_benchmark_page_sends_to_the_arena_board(client):
    from leaderboard.catalog.services import benchmarks_sync

    benchmarks_sync()
    response = client.get("/benchmarks/search-arena/")
    assert response.status_code == 302 and response["Location"] == "/arena/leaderboard/"
    assert 'href="/arena/leaderboard/">Search Arena</a>' in client.get("/").content.decode()


# --- one identity per contestant -----------------------------------------------------------------


@pytest.fixture
def contestant(db):
    return ArenaModel.objects.create(name="Zorblax-Quintet-7", organization="Quuxworks Ltd")


def test_a_contestants_name_is_refused_on_the_registration_page(client, user, contestant):
    client.force_login(user)
    for name in ("Zorblax-Quintet-7", "zorblax quintet 7"):  # the name, and a look-alike
        response = client.post(
            "/models/register/",
            {
                "name": name,
                "source": "hf",
                "hf_repo": "org/model",
                "hf_revision": "abc123",
                "modality": "text",
                "is_public": "on",
            },
        )
        assert response.status_code == 200
        page = text_of(response.content.decode())
        assert (
            f"name: '{name}' is reserved: it is the name of the Search Arena contestant 'Zorblax-Quintet-7'" in page
        ), page[:3000]
    assert not Model.objects.exists()


def test_a_contestants_name_is_refused_by_the_api_and_as_a_submissions_model_name(user, contestant, multi_lcb):
    client = api_for(user)
    refused = client.post("/api/models/", {"name": "ZORBLAX-Quintet-7", "source": "predictions"}, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "name"
    assert "is reserved: it is the name of the Search Arena contestant 'Zorblax-Quintet-7'" in refused.json()["detail"]
    upload = client.post(
        "/api/submissions/",
        {
            "benchmark": "multi-lcb",
            "model_name": "Zorblax-Quintet-7",
            "predictions": SimpleUploadedFile("p.jsonl", b"{}\n"),
        },
        format="multipart",
    )
    assert upload.status_code == 400 and upload.json()["field"] == "model_name"
    assert upload.json()["detail"].startswith("model name: 'Zorblax-Quintet-7' is reserved")
    assert not Model.objects.exists()


def test_a_namesake_catalog_model_never_takes_the_contestants_figures(client, one_vote, user, other_user):
    # registered before the contestant existed (the name was free then): same name, no link
    namesake = Model.objects.create(owner=other_user, name="Alpha-One", slug="alpha-one")
    assert client.get("/api/models/alpha-one/profile/").json()["arena"] is None
    assert "Search Arena rating" not in client.get("/models/alpha-one/").content.decode()
    row = next(r for r in client.get("/models/?format=json").json()["rows"] if r["slug"] == "alpha-one")
    assert row["arena"] is None
    other = Model.objects.create(owner=user, name="Beta-Two", slug="beta-two")
    assert client.get("/api/models/compare/", {"a": "alpha-one", "b": "beta-two"}).json()["arena"] is None
    # staff link the contestants to their catalog records: now the figures are theirs
    ArenaModel.objects.filter(name="Alpha-One").update(catalog_model=namesake)
    ArenaModel.objects.filter(name="Beta-Two").update(catalog_model=other)
    assert client.get("/api/models/alpha-one/profile/").json()["arena"]["votes"] == 1
    arena = client.get("/api/models/compare/", {"a": "alpha-one", "b": "beta-two"}).json()["arena"]
    assert arena["record"] == {"a": 1, "b": 0, "ties": 0} and arena["predicted"] is None and arena["rating_a"] is None
