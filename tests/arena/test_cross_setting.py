"""The cross-arena comparison: votes simulated in both settings from known strengths (Bradley-Terry,
log-odds), rated by the ratings task, give each model's chat-minus-search difference within its interval
around the value the simulation planted; the findings page, the chat board and the API show it, with the
paper's protocol and ours side by side. Also: which contestants take part in the plain-chat setting, and
what a search model is sent there (no search results)."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest

from evaluators.arena.cross_setting import common_reference, compare
from evaluators.arena.rating_types import BattleRecord
from leaderboard.arena import services
from leaderboard.arena.models import ArenaModel, Battle, RatingSnapshot
from tests.arena.conftest import voter_of_client
from tests.support.openai_server import OpenAIServer, Reply

#: true strengths in log-odds per setting; "Ref" is the anchor, voted on in both
SEARCH = {"Ref": 0.0, "Rises": 0.2, "Falls": 0.6, "Steady": -0.3, "Searcher": 0.4}
CHAT = {"Ref": 0.0, "Rises": 0.8, "Falls": 0.1, "Steady": -0.3, "Chatter": -0.5}
POINTS = 400 / math.log(10)


def planted_difference(name: str) -> float:
    """Chat minus search, relative to Ref, in rating points: from the simulation's parameters alone."""
    return POINTS * ((CHAT[name] - CHAT["Ref"]) - (SEARCH[name] - SEARCH["Ref"]))


def simulate(strengths: dict[str, float], n: int, rng: np.random.Generator, prefix: str) -> list[tuple]:
    names = list(strengths)
    rows = []
    for k in range(n):
        i, j = rng.choice(len(names), size=2, replace=False)
        p_a = 1 / (1 + math.exp(-(strengths[names[i]] - strengths[names[j]])))
        rows.append(
            (
                f"{prefix}{k % 50}",
                names[i],
                names[j],
                "model_a" if rng.random() < p_a else "model_b",
                f"{prefix} prompt {k}",
            )
        )
    return rows


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.fixture
def two_settings(db, seed_votes, settings):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS, settings.ARENA_REFERENCE_MODEL = 10, 100, "Ref"
    rng = np.random.default_rng(11)
    seed_votes(simulate(SEARCH, 4000, rng, "s"))
    chat_votes = seed_votes(simulate(CHAT, 4000, rng, "c"))
    Battle.objects.filter(vote__in=chat_votes).update(setting="chat")
    services.ratings_compute(force=True)


def test_planted_differences_between_the_settings_are_recovered_within_their_intervals(two_settings, client):
    main = RatingSnapshot.objects.get(kind="raw", filter_key="")
    assert {m["name"] for m in main.result["models"]} == set(SEARCH)  # the Search Arena's board holds no chat votes
    assert main.n_votes == 4000
    chat = RatingSnapshot.objects.get(kind="raw", filter_key="setting", filter_value="chat")
    assert {m["name"] for m in chat.result["models"]} == set(CHAT) and chat.n_votes == 4000
    assert chat.result["anchor"]["model"] == "Ref"

    found = client.get("/api/arena/ratings/settings/").json()
    assert found["comparable"] and found["reference"] == "Ref"
    rows = {r["name"]: r for r in found["rows"]}
    assert set(rows) == {"Ref", "Rises", "Falls", "Steady"}
    assert found["only_in"] == {"search": ["Searcher"], "chat": ["Chatter"]}
    for name, row in rows.items():
        expected = planted_difference(name)
        assert row["difference_low"] <= expected <= row["difference_high"], (name, expected, row)
        # each setting's rating sits around its own planted value too (Ref at 1000)
        assert row["search_low"] <= 1000 + POINTS * SEARCH[name] <= row["search_high"], (name, row)
        assert row["chat_low"] <= 1000 + POINTS * CHAT[name] <= row["chat_high"], (name, row)
    assert rows["Ref"]["difference"] == 0 and rows["Ref"]["reference"]
    assert rows["Rises"]["clear"] and rows["Rises"]["difference_low"] > 0  # +104 points planted
    assert rows["Falls"]["clear"] and rows["Falls"]["difference_high"] < 0  # -87 points planted
    assert not rows["Steady"]["clear"]  # nothing planted: the interval holds zero

    page = client.get("/arena/findings/").content.decode()
    text = text_of(page)
    assert "With search and in plain chat" in text and "How this differs from the paper" in text
    assert "every contestant answers without search" in text and "kept searching in the Text Arena" in text
    table = page[page.index('class="board cross-table"') :]
    rises = next(r for r in re.findall(r"<tr>(.*?)</tr>", table, re.S) if "<td>Rises</td>" in r)
    assert f"{rows['Rises']['difference']:.0f}" in text_of(rises) and "better in plain chat" in rises
    assert page.count('class="cross-row"') == 4  # the chart has the table's rows

    board = text_of(client.get("/arena/leaderboard/?setting=chat").content.decode())
    assert "Chatter" in board and "Searcher" not in board and "Only the votes of the plain-chat setting" in board
    api = client.get("/api/arena/ratings/?setting=chat").json()
    assert {s["filter_value"] for s in api} == {"chat"} and {s["kind"] for s in api} == {"raw", "style"}
    schema = client.get("/api/schema/").content.decode()
    assert "/api/arena/ratings/settings/" in schema and "SettingComparison" in schema and "difference_low" in schema


def test_the_comparison_refuses_scales_anchored_on_different_models_and_picks_a_common_reference():
    def result(anchor: str, *names: str) -> dict:
        return {
            "anchor": {"kind": "reference", "model": anchor},
            "models": [{"name": n, "rating": 1000.0, "ci_low": 990.0, "ci_high": 1010.0, "votes": 50} for n in names],
        }

    refused = compare(result("A", "A", "B"), result("B", "A", "B"))
    assert not refused.comparable and "anchored on different models (A with search, B in plain chat)" in refused.why_not
    assert refused.rows == []
    alone = compare({"models": []}, result("B", "A", "B"))  # no search votes yet
    assert not alone.comparable and alone.why_not.startswith("no model has a rating in both settings")
    assert alone.only_in == {"search": [], "chat": ["A", "B"]}
    # quadrature by hand: chat 1050 [1020, 1090], search 1000 [990, 1030]
    # -> 50, [50 - hypot(30, 30), 50 + hypot(40, 10)]
    search = result("A", "A")
    search["models"].append({"name": "B", "rating": 1000.0, "ci_low": 990.0, "ci_high": 1030.0, "votes": 10})
    chat = result("A", "A")
    chat["models"].append({"name": "B", "rating": 1050.0, "ci_low": 1020.0, "ci_high": 1090.0, "votes": 20})
    row = next(r for r in compare(search, chat).rows if r.name == "B")
    assert row.difference == 50 and math.isclose(row.difference_low, 50 - math.hypot(30, 30))
    assert math.isclose(row.difference_high, 50 + math.hypot(40, 10)) and row.clear

    def votes(*pairs: tuple[str, str]) -> list[BattleRecord]:
        return [BattleRecord(model_a=a, model_b=b, winner="model_a") for a, b in pairs]

    by_setting = {
        "search": votes(("X", "Y"), ("X", "Y"), ("X", "Z"), ("Y", "Z")),
        "chat": votes(("X", "W"), ("Y", "W"), ("Y", "W")),
    }
    # X: 3 and 1 votes, Y: 3 and 2 -> Y has the most votes in its less-voted setting; Z and W are in one setting only
    assert common_reference(by_setting) == "Y" and common_reference(by_setting, configured="X") == "X"
    assert (
        common_reference(by_setting, configured="Z") == "Y"
        and common_reference({"search": votes(("X", "Y")), "chat": []}) is None
    )


PLAIN_REPLY = "Paris is the capital of France."


@pytest.mark.django_db(transaction=True)
def test_the_chat_setting_draws_only_contestants_that_answer_without_search_and_sends_no_search(
    client, tmp_path, sent_tasks
):
    from evaluators.arena.plain_chat import PLAIN_CHAT_PROMPT
    from evaluators.arena.search import Document, build_local_index

    index = tmp_path / "index.sqlite"
    build_local_index([Document("https://wiki.debian.org/Apt", "Apt", "Apt installs packages on Debian.")], index)
    with OpenAIServer(lambda request: Reply(text=PLAIN_REPLY, chunk_chars=6)) as server:
        ArenaModel.objects.create(name="Quotes-Only-Hidden", responder={"kind": "extractive", "index": str(index)})
        ArenaModel.objects.create(
            name="Searchy-Hidden",
            responder={
                "kind": "search_tool",
                "base_url": server.base_url,
                "model": "s",
                "search": {"backend": "local", "index": str(index)},
            },
        )
        voter = voter_of_client(client)
        with pytest.raises(services.ArenaRefused, match="two enabled models that can answer without search") as refused:
            services.battle_create(prompt="What is the capital of France?", voter=voter, setting="chat")
        assert refused.value.status == 503
        ArenaModel.objects.create(
            name="Plainy-Hidden", responder={"kind": "chat", "base_url": server.base_url, "model": "p"}
        )
        for _ in range(3):  # every chat battle is between the two model contestants, never the extractive one
            battle = services.battle_create(prompt="What is the capital of France?", voter=voter, setting="chat")
            assert {battle.model_a.name, battle.model_b.name} == {
                "Searchy-Hidden",
                "Plainy-Hidden",
            } and battle.setting == "chat"
        assert services.turn_generate(turn_id=battle.turns.get().pk) == "complete/complete"
        turn = battle.turns.get()
        for side in "ab":
            assert turn.text_of(side) == PLAIN_REPLY
            assert turn.answer_of(side)["sources"] == [] and turn.answer_of(side)["searches"] == []
        sent = server.requests[-2:]
        assert {r["model"] for r in sent} == {"s", "p"}
        assert all(r["messages"][0] == {"role": "system", "content": PLAIN_CHAT_PROMPT} for r in sent)
        assert not any("Search results" in json_text for r in sent for json_text in map(str, r["messages"]))

    with pytest.raises(services.ArenaRefused, match="setting: 'web' is not one of search, chat") as refused:
        services.battle_create(prompt="x?", voter=voter, setting="web")
    assert refused.value.field == "setting"
    page = client.get("/arena/chat/").content.decode()
    assert 'action="/arena/chat/"' in page and "without searching the web" in page and 'href="/arena/"' in page
    response = client.post(
        "/api/arena/battles/", {"prompt": "Capital of Italy?", "setting": "chat"}, content_type="application/json"
    )
    assert response.status_code == 201, response.content
    state = response.json()
    assert state["setting"] == "chat" and "Hidden" not in json.dumps(state)
    response = client.post(
        "/api/arena/battles/", {"prompt": "Capital of Italy?", "setting": "web"}, content_type="application/json"
    )
    assert response.status_code == 400 and "setting" in response.json()


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_the_comparison_reads_on_a_phone_and_a_desktop(live_server, page, seed_votes, settings, artifacts):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS, settings.ARENA_REFERENCE_MODEL = 10, 20, "Ref"
    rng = np.random.default_rng(5)
    seed_votes(simulate(SEARCH, 800, rng, "s"))
    Battle.objects.filter(vote__in=seed_votes(simulate(CHAT, 800, rng, "c"))).update(setting="chat")
    services.ratings_compute(force=True)
    # Steady a plain chat contestant: its search-setting battles (all "Guidance") fill the head-to-head table
    ArenaModel.objects.filter(name="Steady").update(responder={"kind": "chat"})
    for width, height, name in ((390, 844, "phone"), (1280, 900, "desktop")):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + "/arena/findings/#cross-setting")
        section = page.locator("#cross-setting")
        assert section.get_by_role(
            "heading", name="With search and in plain chat: each model in both settings"
        ).is_visible()
        assert page.locator(".cross-row").count() == 4 and page.locator("table.cross-table tbody tr").count() == 4
        assert page.locator(".cross-row .ci-track.chat .ci-bar").first.bounding_box()["width"] > 1  # the chart is drawn
        assert section.get_by_role("heading", name="How this differs from the paper").is_visible()
        assert page.locator('table.head-to-head[data-setting="search"] tbody tr').count() == 1  # Guidance
        assert page.locator('table.head-to-head[data-setting="search"] tfoot td').first.is_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")  # nothing sticks out
        section.screenshot(path=str(artifacts / f"cross-setting-{name}.png"))
