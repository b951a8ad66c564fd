"""The arena's new pages in Debian's Chromium at a phone's width (390 px) and a desktop's (1280 px), with
screenshots: the findings page's prompt distribution (charts with their tables), the transparency report,
and the reveal's citation marks (each label in its own colour, the word written too)."""

from __future__ import annotations

import pytest

from leaderboard.arena import services
from tests.arena.conftest import answer, voter_of_client

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

SIZES = ((390, 844, "phone"), (1280, 900, "desktop"))


def votes(seed_votes):
    rows = [(f"v{k % 7}", "Alpha", "Beta", "model_a" if k % 3 else "model_b", f"how do I {k} a b c") for k in range(40)]
    seed_votes(rows, intent="Guidance", languages=("en",))
    seed_votes(
        [(f"w{k % 5}", "Beta", "Gamma", "model_a" if k % 4 else "model_b", f"what is {k}") for k in range(30)],
        intent="Factual Lookup",
        languages=("de",),
    )


def no_sideways_scroll(page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"))


def test_the_prompt_distribution_reads_on_a_phone_and_a_desktop(live_server, page, seed_votes, settings, artifacts):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 5, 10
    votes(seed_votes)
    services.ratings_compute(force=True)
    for width, height, name in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + "/arena/findings/")
        section = page.locator("#distribution")
        assert section.get_by_role("heading", name="What people ask: the prompt distribution").is_visible()
        assert section.get_by_role("heading", name="Over time").is_visible()
        bars = section.locator(".dist-bar")
        assert bars.count() >= 10 and bars.first.bounding_box()["width"] > 10  # drawn, not empty
        intents = section.locator("table.dist-table").first
        assert "Guidance" in intents.inner_text() and "0.571" in intents.inner_text()  # 40 of 70 conversations
        assert section.locator("table.dist-table").count() == 6
        assert no_sideways_scroll(page)
        page.locator("#distribution").screenshot(path=str(artifacts / f"distribution-{name}.png"))
        page.screenshot(path=str(artifacts / f"findings-{name}.png"), full_page=True)


def test_the_transparency_report_reads_on_a_phone_and_a_desktop(live_server, page, seed_votes, settings, artifacts):
    from leaderboard.arena.services.lifecycle import model_retire

    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 35, 10
    votes(seed_votes)
    seed_votes(
        [(f"c{k % 3}", "Alpha", "Beta", "model_b" if k % 3 else "model_a", f"chat {k}") for k in range(6)],
        setting="chat",
    )
    services.ratings_compute(force=True)
    model_retire(name="Gamma", reason="its maker withdrew it")
    for width, height, name in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + "/arena/leaderboard/")
        page.get_by_role("link", name="Transparency report").click()
        page.wait_for_url("**/arena/transparency/")  # the click only starts the navigation
        assert page.get_by_role("heading", name="Transparency report", exact=True).is_visible()
        for heading in (
            "Battles per model against the sampling policy",
            "Every model's life",
            "Votes not counted, by reason, per week",
            "How many votes separate neighbours",
            "Rank spreads",
            "Anonymous pre-release testing",
        ):
            assert page.get_by_role("heading", name=heading).is_visible(), heading
        assert "its maker withdrew it" in page.locator("#lives-table").inner_text()
        flips = page.locator("#flips-table tbody tr")
        assert flips.count() == 2 and "Alpha" in flips.first.inner_text()
        assert (
            "provisional" in page.locator("table.rank-spreads").first.inner_text()
        )  # Gamma has 30 votes, fewer than 35
        assert page.locator("#shares-models tbody tr").count() == 3
        assert page.locator("#chat-shares-models tbody tr").count() == 2  # the plain-chat setting's seats, apart
        assert "6 battles drawn in the plain-chat setting" in page.locator("#sampling").inner_text()
        assert no_sideways_scroll(page)
        page.screenshot(path=str(artifacts / f"transparency-{name}.png"), full_page=True)


def test_the_reveal_marks_each_citation(live_server, page, client, make_battle, settings, artifacts):
    from leaderboard.arena.services.attribution import turn_attribute

    settings.JUDGES = {}
    voter = voter_of_client(client)
    cited = answer(
        "APT resolves dependencies automatically [1]. Bananas are yellow [2]. Debian is old [3].",
        urls=("https://docs.example.org/1", "https://docs.example.org/2", "https://docs.example.org/3"),
    )
    cited["sources"][0]["snippet"] = "APT installs packages and resolves their dependencies automatically."
    cited["sources"][1]["snippet"] = "Cats sleep a lot."
    cited["sources"][2]["title"] = ""  # no text of the third page is stored: not checked
    battle = make_battle(voter, [(cited, answer("Nothing cited here.", urls=()))])
    turn_attribute(turn_id=battle.turns.get().pk)
    services.vote_cast(battle=battle.public_id, winner="model_a", voter=voter)
    colours = {}
    for width, height, name in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + f"/arena/b/{battle.public_id}/")
        page.get_by_text("Does each citation support its claim?").click()
        for label in ("supported", "irrelevant", "unchecked"):
            badge = page.locator(f".attribution .badge.{label}").first
            assert badge.is_visible(), label
            colours[label] = badge.evaluate("b => getComputedStyle(b).backgroundColor")
        assert page.locator(".attribution .badge.supported").inner_text() == "[1] supported"
        assert "not checked" in page.locator(".attribution .badge.unchecked").inner_text()
        assert len(set(colours.values())) == 3  # each label its own colour
        assert no_sideways_scroll(page)
        page.screenshot(path=str(artifacts / f"reveal-{name}.png"), full_page=True)
