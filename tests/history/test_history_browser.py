"""A snapshot's page, the board's changelog and rank chart, and a model's rank history in a browser, at
phone and desktop widths: each is there, no JavaScript is needed for the charts, and the page never
scrolls sideways (tables and charts scroll in their own boxes). Screenshots are kept in the artifacts."""

from __future__ import annotations

import pytest
from django.db import transaction

from leaderboard.history.services import snapshot_freeze
from tests.support.factories import scored_run


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_history_pages_read_on_a_phone_and_a_desktop(multi_lcb, user, live_server, page, artifacts):
    with transaction.atomic():  # the entries service locks the model's rows
        scored_run(multi_lcb, user, "Alpha", 0.80)
        scored_run(multi_lcb, user, "Beta", 0.50)
    snapshot_freeze(benchmark=multi_lcb, reason="first release")
    with transaction.atomic():
        scored_run(multi_lcb, user, "Beta", 0.95)
    second = snapshot_freeze(benchmark=multi_lcb, reason="second release")
    for width, height, name in ((390, 844, "phone"), (1280, 900, "desktop")):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(f"{live_server.url}/benchmarks/multi-lcb/snapshots/{second.pk}/")
        assert page.locator("pre.bibtex").is_visible() and page.locator("code.digest").count() == 3
        assert page.locator(".snapshot-table tbody th[scope=row]").all_inner_texts() == ["Beta", "Alpha"]
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), ("snapshot", name)
        page.screenshot(path=str(artifacts / f"snapshot-{name}.png"), full_page=True)

        page.goto(f"{live_server.url}/benchmarks/multi-lcb/")
        assert page.locator("#snapshot-banner a", has_text=f"snapshot #{second.pk}").is_visible()
        chart = page.locator("#rank-history")
        chart.scroll_into_view_if_needed()
        assert chart.locator("svg.rank-chart polyline").count() == 2
        assert chart.locator(".rank-table tbody th").all_inner_texts() == ["● Beta", "● Alpha"]
        assert page.locator("#changelog li", has_text="Beta: run").is_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), ("board", name)
        chart.screenshot(path=str(artifacts / f"board-rank-history-{name}.png"))

        page.goto(f"{live_server.url}/models/beta/")
        history = page.locator("#rank-history")
        history.scroll_into_view_if_needed()
        assert history.locator(".hbar").count() == 4 and history.locator(".history-table tbody tr").count() == 4
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), ("model", name)
        history.screenshot(path=str(artifacts / f"model-rank-history-{name}.png"))
