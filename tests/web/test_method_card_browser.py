"""The method cards in a browser, at phone and desktop widths: every board's card is on its page with
the same rows as the API, deviations marked in words, and the page never scrolls sideways (the table
scrolls in its own box). Screenshots are kept in the test artifacts."""

from __future__ import annotations

import pytest

from evaluators.core import BENCHMARKS
from leaderboard.catalog.services import benchmarks_sync


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_every_boards_method_card_reads_on_a_phone_and_a_desktop(live_server, page, artifacts):
    benchmarks_sync()
    for row in BENCHMARKS:
        api = page.request.get(f"{live_server.url}/api/benchmarks/{row.key}/").json()["method_card"]
        for width, height, name in ((390, 844, "phone"), (1280, 900, "desktop")):
            page.set_viewport_size({"width": width, "height": height})
            page.goto(f"{live_server.url}/benchmarks/{row.key}/")
            card = page.locator("#method-card")
            card.scroll_into_view_if_needed()
            assert card.is_visible()
            shown = card.locator("tbody th[scope=row]").all_inner_texts()
            assert shown == [r["element"] for r in api], row.key
            assert card.locator("tr.differs").count() == sum(r["deviates"] for r in api)
            assert card.locator("tr.differs td", has_text="differs:").count() == sum(r["deviates"] for r in api)
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), (row.key, name)
            card.screenshot(path=str(artifacts / f"method-card-{row.key}-{name}.png"))
