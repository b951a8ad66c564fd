"""The arena end to end with real parts: Postgres, Redis, a Celery worker on the ``arena`` queue
(threads) and one on ``cpu`` (ratings, with beat), the extractive responders over a small local
search index built here, and Debian's Chromium at phone size."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from leaderboard.arena.models import ArenaModel, Battle, RatingSnapshot, Vote
from tests.conftest import Worker, wait_for
from tests.support.openai_server import Reply

pytestmark = [pytest.mark.django_db(transaction=True)]

NAME_A, NAME_B = "Ogdrubble-Sentences-3", "Frindlewax-Leads-9"

DOCS = [
    (
        "https://www.debian.org/doc/manuals/apt-guide/install",
        "Installing packages with apt",
        "Use apt install followed by the package name to install a package. Apt downloads the package and its "
        "dependencies. "
        "Run apt update first so the package lists are fresh.",
    ),
    (
        "https://www.debian.org/doc/manuals/dpkg/remove",
        "Removing packages with dpkg",
        "The dpkg tool removes a package with dpkg --remove. Configuration files stay until you purge the package.",
    ),
    (
        "https://wiki.debian.org/Apt/Sources",
        "Apt sources",
        "Apt reads its package sources from sources.list. Each line names a mirror, a suite and components.",
    ),
]


@pytest.fixture
def arena_models(tmp_path) -> tuple[ArenaModel, ArenaModel]:
    from evaluators.arena.search import Document, build_local_index

    index = tmp_path / "index.sqlite"
    build_local_index([Document(url, title, text) for url, title, text in DOCS], index)
    common = {"kind": "extractive", "index": str(index), "delay_s": 0.05}
    return (
        ArenaModel.objects.create(
            name=NAME_A, organization="Sentence Works", responder={**common, "strategy": "bm25-sentences"}
        ),
        ArenaModel.objects.create(
            name=NAME_B, organization="Lead Labs", responder={**common, "strategy": "lead-passages"}
        ),
    )


@pytest.fixture
def arena_workers(worker_env, tmp_path):
    env = {
        **worker_env,
        "LEADERBOARD_ARENA_RATINGS_DEBOUNCE_SECONDS": "0.2",
        "LEADERBOARD_ARENA_MIN_VOTES": "1",
        "LEADERBOARD_ARENA_BOOTSTRAP_ROUNDS": "10",
        "LEADERBOARD_ARENA_STREAM_FLUSH_SECONDS": "0.05",
    }
    workers = [
        Worker(env, tmp_path / "cpu.log"),
        Worker(
            env, tmp_path / "arena.log", queues="arena", pool=("--pool", "threads", "--concurrency", "4"), beat=False
        ),
    ]
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
    wait_for(
        lambda: RatingSnapshot.objects.filter(kind="style", n_votes=1).exists(), timeout=60, what="the ratings task"
    )
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


CHAT_SEARCHY, CHAT_PLAIN = "Gribbleton-Search-5", "Wumplefax-Plain-8"


def plain_replies(request: dict) -> Reply:
    last = request["messages"][-1]["content"]
    if "Who made you" in last and request["model"] == "plain":
        return Reply(text="I was made by Wumple Labs, and happy to help.", chunk_chars=4)
    return Reply(text=f"From memory ({request['model']}): apt installs packages; run apt update first.", chunk_chars=4)


def test_a_chat_setting_battle_through_the_worker(arena_models, arena_workers, client):
    """The plain-chat setting end to end on the real arena worker: only the contestants that can answer
    without search are drawn (never the extractive ones), a search model is asked without search results,
    no answer has sources, the names stay hidden until the vote, a model naming its maker is not counted,
    and a counted vote rates on the chat setting's board, not the Search Arena's."""
    from evaluators.arena.plain_chat import PLAIN_CHAT_PROMPT
    from tests.support.openai_server import OpenAIServer

    with OpenAIServer(plain_replies) as server:
        ArenaModel.objects.create(
            name=CHAT_SEARCHY,
            organization="Gribble Search Co",
            responder={
                "kind": "search_tool",
                "base_url": server.base_url,
                "model": "searchy",
                "search": {"backend": "local", "index": arena_models[0].responder["index"]},
            },
        )
        ArenaModel.objects.create(
            name=CHAT_PLAIN,
            organization="Wumple Labs",
            responder={"kind": "chat", "base_url": server.base_url, "model": "plain"},
        )
        assert 'action="/arena/chat/"' in client.get("/arena/chat/").content.decode()
        response = client.post("/arena/chat/", {"prompt": "How do I install a package with apt?"})
        battle = Battle.objects.get()
        assert response.status_code == 302 and response["Location"] == f"/arena/b/{battle.public_id}/"
        assert battle.setting == "chat" and {battle.model_a.name, battle.model_b.name} == {CHAT_SEARCHY, CHAT_PLAIN}
        wait_for(lambda: battle.turns.get().done, timeout=60, what="both plain answers")
        client.post(f"/arena/b/{battle.public_id}/turn/", {"prompt": "Who made you?"})
        wait_for(
            lambda: battle.turns.count() == 2 and battle.turns.get(index=1).done, timeout=60, what="the second turn"
        )
        requests = list(server.requests)
        assert len(requests) == 4 and {r["model"] for r in requests} == {"searchy", "plain"}
        assert all(r["messages"][0] == {"role": "system", "content": PLAIN_CHAT_PROMPT} for r in requests)
        assert not any("Search results" in str(r["messages"]) for r in requests)
        second = [r for r in requests if r["messages"][-1]["content"] == "Who made you?"]
        assert all(
            r["messages"][2]["content"].startswith(f"From memory ({r['model']})") for r in second
        )  # each side's own history
        for turn in battle.turns.all():
            for side in "ab":
                assert (
                    turn.status_of(side) == "complete"
                    and turn.answer_of(side)["sources"] == turn.answer_of(side)["searches"] == []
                )

        page = client.get(f"/arena/b/{battle.public_id}/").content.decode()
        assert "without searching the web" in page and 'class="answer-sources"' not in page
        for secret in (CHAT_SEARCHY, CHAT_PLAIN, "Gribble Search Co", server.base_url):
            assert secret not in page
        state = json.dumps(client.get(f"/api/arena/battles/{battle.public_id}/").json())
        assert state.count('"setting": "chat"') == 1 and CHAT_SEARCHY not in state and CHAT_PLAIN not in state
        client.post(f"/arena/b/{battle.public_id}/vote/", {"winner": "model_a"})
        vote = Vote.objects.get()
        assert not vote.valid and vote.exclusion_reasons == ["self_identification"]  # the plain model named its maker
        revealed = client.get(f"/arena/b/{battle.public_id}/").content.decode()
        assert CHAT_SEARCHY in revealed and CHAT_PLAIN in revealed

        client.post("/arena/chat/", {"prompt": "And how do I remove a package?"})
        counted = Battle.objects.exclude(pk=battle.pk).get()
        wait_for(lambda: counted.turns.get().done, timeout=60, what="the second battle's answers")
        client.post(f"/arena/b/{counted.public_id}/vote/", {"winner": "tie"})
        assert Vote.objects.get(battle=counted).valid
    wait_for(
        lambda: RatingSnapshot.objects.filter(filter_key="setting", filter_value="chat", n_votes=1).exists(),
        timeout=60,
        what="the chat setting's board",
    )
    assert not RatingSnapshot.objects.filter(filter_key="").exists()  # the Search Arena has no counted votes
    board = client.get("/arena/leaderboard/?setting=chat").content.decode()
    assert CHAT_SEARCHY in board and CHAT_PLAIN in board and "1 counted votes" in board
