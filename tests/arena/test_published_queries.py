"""The arena's pages and APIs that publish figures from every vote read them as the periodic pass kept
them (``arena.published``): once warmed, none of them reads the votes, and each asks the same number of
queries with 40 votes over 4 models as with 440 votes over 10 (issue 47: no query count that grows with
the data). A release changes what they publish at once."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard.arena.published import published_warm
from leaderboard.arena.services import ratings_compute

pytestmark = pytest.mark.django_db

PAGES = (
    "/arena/findings/",
    "/arena/transparency/",
    "/arena/agreement/",
    "/arena/leaderboard/",
    "/api/arena/ratings/head-to-head/",
    "/api/arena/ratings/settings/",
    "/api/arena/transparency/",
    "/api/arena/distribution/",
    "/api/arena/agreement/",
)
#: the pages that publish figures counted from every vote: they must not read the votes table
FROM_EVERY_VOTE = (
    "/arena/findings/",
    "/arena/transparency/",
    "/api/arena/ratings/head-to-head/",
    "/api/arena/transparency/",
    "/api/arena/distribution/",
)


def rows(models: list[str], count: int, start: int = 0) -> list[tuple[str, str, str, str, str]]:
    """``count`` votes round the pairs of ``models``: the first of each pair wins two in three, the rest ties."""
    pairs = [(a, b) for a in models for b in models if a < b]
    return [
        (
            f"voter-{(start + n) % 17}",
            *pairs[n % len(pairs)],
            ("model_a", "model_a", "tie")[n % 3],
            f"how do I install package {n}?",
        )
        for n in range(count)
    ]


def counted(client) -> dict[str, tuple[int, int, bool]]:
    """Per page: its status, its queries and whether any of them read the votes."""
    found = {}
    for path in PAGES:
        client.get(path)  # the session and the first-use lookups out of the way
        with CaptureQueriesContext(connection) as queries:
            response = client.get(path)
        votes = any('"arena_vote"' in q["sql"] for q in queries.captured_queries)
        found[path] = (response.status_code, len(queries.captured_queries), votes)
    return found


def test_published_pages_read_no_vote_and_their_query_counts_do_not_grow(seed_votes, client):
    seed_votes(rows([f"Model-{k}" for k in range(4)], 40))
    seed_votes(rows([f"Model-{k}" for k in range(4)], 12, start=40), setting="chat")
    ratings_compute()
    published_warm()
    small = counted(client)
    seed_votes(rows([f"Model-{k}" for k in range(10)], 440, start=52))
    seed_votes(rows([f"Model-{k}" for k in range(10)], 90, start=492), setting="chat")
    ratings_compute()
    published_warm()
    large = counted(client)
    assert {path: status for path, (status, _, _) in large.items()} == dict.fromkeys(PAGES, 200)
    assert {path: n for path, (_, n, _) in large.items()} == {path: n for path, (_, n, _) in small.items()}
    assert [path for path in FROM_EVERY_VOTE if large[path][2] or small[path][2]] == []


def test_a_release_shows_in_the_published_report_at_once(seed_votes, client):
    from leaderboard.arena.models import ArenaModel
    from leaderboard.arena.services.lifecycle import prerelease_release

    seed_votes(rows(["Public-1", "Public-2", "codename-x"], 60))
    ArenaModel.objects.filter(name="codename-x").update(prerelease=True, organization="Acme")
    ratings_compute()
    published_warm()
    before = client.get("/api/arena/transparency/").json()["prerelease"]["providers"]
    assert [p["testing"] for p in before if p["provider"] == "Acme"] == [1]
    prerelease_release(name="codename-x")
    after = client.get("/api/arena/transparency/").json()["prerelease"]["providers"]
    assert [p["testing"] for p in after if p["provider"] == "Acme"] == [0]
