"""The arena end to end with real parts: Postgres, Redis, a Celery worker on the ``arena`` queue
(threads) and one on ``cpu`` (ratings, with beat), the extractive responders over a small local
search index built here, and Debian's Chromium at phone size."""
from __future__ import annotations

from pathlib import Path

import pytest

from leaderboard.arena.models import ArenaModel, Battle, RatingSnapshot, Vote
from tests.conftest import Worker, wait_for

pytestmark = [pytest.mark.django_db(transaction=True)]

NAME_A, NAME_B = "Ogdrubble-Sentences-3", "Frindlewax-Leads-9"

DOCS = [
    ("https://www.debian.org/doc/manuals/apt-guide/install", "Installing packages with apt",
     "Use apt install followed by the package name to install a package. Apt downloads the package and its dependencies. "
     "Run apt update first so the package lists are fresh."),
    ("https://www.debian.org/doc/manuals/dpkg/remove", "Removing packages with dpkg",
     "The dpkg tool removes a package with dpkg --remove. Configuration files stay until you purge the package."),
    ("https://wiki.debian.org/Apt/Sources", "Apt sources",
     "Apt reads its package sources from sources.list. Each line names a mirror, a suite and components."),
]


@pytest.fixture
def arena_models(tmp_path) -> tuple[ArenaModel, ArenaModel]:
    from evaluators.arena.search import Document, build_local_index

    index = tmp_path / "index.sqlite"
    build_local_index([Document(url, title, text) for url, title, text in DOCS], index)
    common = {"kind": "extractive", "index": str(index), "delay_s": 0.05}
    return (ArenaModel.objects.create(name=NAME_A, organization="Sentence Works", responder={**common, "strategy": "bm25-sentences"}),
            ArenaModel.objects.create(name=NAME_B, organization="Lead Labs", responder={**common, "strategy": "lead-passages"}))


@pytest.fixture
def arena_workers(worker_env, tmp_path):
    env = {**worker_env, "LEADERBOARD_ARENA_RATINGS_DEBOUNCE_SECONDS": "0.2", "LEADERBOARD_ARENA_MIN_VOTES": "1",
           "LEADERBOARD_ARENA_BOOTSTRAP_ROUNDS": "10", "LEADERBOARD_ARENA_STREAM_FLUSH_SECONDS": "0.05"}
    workers = [Worker(env, tmp_path / "cpu.log"),
               Worker(env, tmp_path / "arena.log", queues="arena", pool=("--pool", "threads", "--concurrency", "4"), beat=False)]
    for worker in workers:
        worker.start()
    yield workers
    for worker in workers:
        worker.stop()
    for name in ("cpu.log", "arena.log"):
        print(name, (tmp_path / name).read_text()[-3000:])



def both_done(page, index: int) -> None:
    for side in "ab":
        page.wait_for_selector(f"#pane-{index}-{side}.complete", timeout=60_000)


@pytest.mark.browser
def test_a_whole_battle_in_the_browser(arena_models, arena_workers, live_server, page, tmp_path):
    page.goto(live_server.url + "/")
    page.get_by_role("link", name="Arena", exact=True).click()
    page.fill("#id_prompt", "How do I install a package with apt?")
    page.keyboard.press("Tab")
    page.get_by_role("button", name="Ask both models").press("Enter")  # keyboard only
    page.wait_for_url("**/arena/b/*/")
    assert NAME_A not in page.content() and NAME_B not in page.content()
    both_done(page, 0)
    assert "apt install" in page.locator("#pane-0-a").inner_text() + page.locator("#pane-0-b").inner_text()
    assert page.locator("#pane-0-a a[href^='https://']").count() >= 1  # numbered citation links
    page.wait_for_selector("fieldset:not([disabled]) button[value='model_a']")  # controls refreshed by htmx

    page.fill("#id_prompt", "And how do I remove one with dpkg?")
    page.get_by_role("button", name="Send to both").click()
    both_done(page, 1)
    assert "dpkg" in page.locator("#pane-1-a").inner_text() + page.locator("#pane-1-b").inner_text()
    assert NAME_A not in page.content()
    page.get_by_role("button", name="A is better").click()
    page.wait_for_selector(".reveal")
    reveal = page.locator(".reveal").inner_text()
    assert NAME_A in reveal and NAME_B in reveal
    page.screenshot(path=str(tmp_path / "battle.png"), full_page=True)

    vote = Vote.objects.get()
    assert vote.valid and vote.turn_count == 2 and vote.winner == "model_a"
    # the turn is answered (and the vote open) before the worker labels its intent and language: wait for them
    wait_for(lambda: Battle.objects.exclude(primary_intent="").exists(), timeout=60, what="the battle's intent")
    battle = Battle.objects.get()
    assert battle.primary_intent and battle.languages == ["en"] and battle.propensity == 1.0
    wait_for(lambda: RatingSnapshot.objects.filter(kind="style", n_votes=1).exists(), timeout=60, what="the ratings task")
    page.get_by_role("link", name="See the ratings").click()
    board = page.locator("#board").inner_text()
    assert NAME_A in board and NAME_B in board and "1 counted votes" in board


def test_a_failing_responder_is_shown_and_not_counted(arena_models, arena_workers, client):
    broken = arena_models[1]
    broken.responder = {**broken.responder, "index": str(Path("/nonexistent/index.sqlite"))}
    broken.save()
    client.post("/arena/", {"prompt": "How do I install a package with apt?"})
    battle = Battle.objects.get()
    side = "a" if battle.model_a_id == broken.pk else "b"
    wait_for(lambda: battle.turns.get().done, timeout=60, what="both answers")
    turn = battle.turns.get()
    assert getattr(turn, f"status_{side}") == "failed" and getattr(turn, f"answer_{side}")["error"]
    page = client.get(f"/arena/b/{battle.public_id}/").content.decode()
    assert "This model failed to answer" in page and broken.name not in page
    client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "tie (bothbad)"})
    vote = Vote.objects.get()
    assert not vote.valid and vote.exclusion_reasons == ["response_error"]
