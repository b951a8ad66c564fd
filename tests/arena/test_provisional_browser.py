"""In Debian's Chromium: after one arena vote the home page's arena card lists both models as provisional,
with no rating, interval or rank that would read as a measurement; and ``/arena/`` names the collection
its contestants search and what they are."""

from __future__ import annotations

import re

import pytest

from leaderboard.arena import services
from leaderboard.arena.models import RatingSnapshot

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_one_vote_shows_both_models_as_provisional_on_the_home_page(live_server, page, seed_votes, settings, artifacts):
    from leaderboard.catalog.services import benchmarks_sync

    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 30, 10
    benchmarks_sync()
    seed_votes([("v1", "Alpha-One", "Beta-Two", "model_a", "how do I sort a list")])
    services.ratings_compute(force=True)
    stored = RatingSnapshot.objects.get(kind="raw", filter_key="").result["models"]
    figures = {f"{v:.0f}" for m in stored for v in (m["rating"], m["ci_low"], m["ci_high"]) if v is not None}
    page.goto(live_server.url + "/")
    card = page.locator("li.card").filter(has=page.get_by_role("heading", name="Search Arena"))
    text = card.inner_text()
    assert "Alpha-One (provisional: 1 vote)" in text and "Beta-Two (provisional: 1 vote)" in text, text
    assert "No model is ranked yet." in text and card.locator("table.leaders").count() == 0  # no rank, no rating column
    shown = set(re.findall(r"-?\d+", text)) - {"1", "30"}  # "1 vote", "ranked from 30 counted votes"
    assert not shown & figures, (shown, figures)
    page.screenshot(path=str(artifacts / "home-one-vote.png"), full_page=True)


def test_the_arena_page_names_its_collection(live_server, page, tmp_path, monkeypatch):
    from evaluators.arena.search import Document, build_local_index

    index = tmp_path / "index.sqlite"
    build_local_index(
        [
            Document(
                "https://docs.python.org/3.11/library/stdtypes.html",
                "Sequence types",
                "Lists are mutable sequences; tuples are immutable sequences.",
            )
        ],
        index,
        source_version="python3.11-doc=3.11.2-6",
    )
    monkeypatch.setenv("LEADERBOARD_SEARCH_INDEX", str(index))
    services.arena_models_seed()
    page.goto(live_server.url + "/arena/")
    lead = page.locator("p.lead").inner_text()
    assert "the Python 3.11 documentation" in lead and "needs the web" not in lead
    about = page.locator("#arena-about").inner_text()
    assert "Not a language model" in about and "not the web" in about
    assert page.get_by_role("link", name="Plain chat, no search").count() == 0  # no contestant can chat
    assert page.locator("textarea[name=prompt]").get_attribute("placeholder").startswith("For example: ")
