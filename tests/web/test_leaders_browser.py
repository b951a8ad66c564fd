"""The home page's leaders, /models/ and /queue/ in a browser at phone and desktop widths: each table is
there with its rows, and the page never scrolls sideways (tables scroll in their own boxes).
Screenshots are kept in the test artifacts."""

from __future__ import annotations

import pytest
from django.db import transaction

from leaderboard.runs.models import RunStatus
from tests.support.factories import scored_run
from tests.web.test_queue import _run


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_leaders_models_and_queue_read_on_a_phone_and_a_desktop(
    multi_lcb, user, other_user, live_server, page, artifacts
):
    with transaction.atomic():  # the entries service locks the model's rows
        scored_run(multi_lcb, user, "alpha", 0.30)
        scored_run(multi_lcb, user, "beta", 0.80)
    _run(multi_lcb, user, "waiting-model", RunStatus.QUEUED, minutes_ago=3)
    _run(multi_lcb, other_user, "secret-model", RunStatus.QUEUED, public=False, minutes_ago=1)
    for width, height, name in ((390, 844, "phone"), (1366, 900, "desktop")):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + "/")
        leaders = page.locator('table.leaders[aria-label="Multi-LCB: the leading models"]')
        assert leaders.locator("tbody tr").count() == 2 and "beta" in leaders.locator("tbody tr").first.inner_text()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), ("home", name)
        # each card's table stays inside its card (a long headline name once ran into the next card)
        overflowing = page.evaluate("""[...document.querySelectorAll('table.leaders')].filter(t =>
            t.getBoundingClientRect().right > t.closest('.card').getBoundingClientRect().right + 0.5)
            .map(t => t.ariaLabel)""")
        assert overflowing == [], (name, overflowing)
        page.screenshot(path=str(artifacts / f"home-{name}.png"), full_page=True)

        page.goto(live_server.url + "/models/?sort=multi-lcb")
        rows = page.locator("#models-index tbody tr")
        assert "beta" in rows.first.inner_text() and rows.count() >= 2
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), ("models", name)
        page.screenshot(path=str(artifacts / f"models-{name}.png"), full_page=True)

        page.goto(live_server.url + "/queue/")
        waiting = page.locator("#waiting tbody tr")
        assert waiting.count() == 2 and "a private model" in waiting.nth(1).inner_text()
        assert "secret-model" not in page.content()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), ("queue", name)
        page.screenshot(path=str(artifacts / f"queue-{name}.png"), full_page=True)
