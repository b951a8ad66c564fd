"""The topic explorer and the leaderboard's question box in Debian's Chromium at a phone's width (390 px)
and a desktop's (1280 px), with screenshots: no sideways scroll, the question answered by the form alone
(a plain GET, no script needed), the topics page with its held-out table."""

from __future__ import annotations

import pytest

from leaderboard.arena import services
from tests.arena.test_topics_site import SMALL, simulated_rows
from tests.arena.test_transparency_browser import SIZES, no_sideways_scroll

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_topics_and_the_question_box_on_a_phone_and_a_desktop(live_server, page, seed_votes, settings, artifacts):
    for key, value in SMALL.items():
        setattr(settings, key, value)
    seed_votes(simulated_rows(600, seed=12))
    services.ratings_compute(force=True)
    services.topics_compute()
    page.context.route("**/*.js", lambda route: route.abort())  # without JavaScript
    for width, height, name in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + "/arena/leaderboard/")
        page.get_by_label("Your question").fill("python function memory error")
        page.get_by_role("button", name="Rank the models for it").click()
        page.wait_for_url("**q=python*")
        box = page.locator("#for-prompt")
        assert (
            "effective votes" in box.inner_text()
            and box.locator("tbody tr").first.inner_text().split("\t")[1].strip() == "m2"
        )
        assert no_sideways_scroll(page), ("leaderboard", name)
        box.screenshot(path=str(artifacts / f"for-prompt-{name}.png"))
        page.goto(live_server.url + "/arena/topics/")
        assert page.locator("section.topic").count() == 3
        assert page.get_by_role("heading", name="Does conditioning on the prompt predict votes better?").is_visible()
        assert no_sideways_scroll(page), ("topics", name)
        page.screenshot(path=str(artifacts / f"topics-{name}.png"), full_page=True)
