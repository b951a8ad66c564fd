"""Multi-LCB's per-language table with its date window in Chromium at a phone's and a desktop's width:
the slider over the problems' release months moves the window (htmx reloads the table, the address
keeps it), a difficulty filter keeps it, the download links export the table as shown, and without
JavaScript the two date inputs and the Apply button do the same. Expected figures are hand-counted
from the three planted problems (test_language_table's): dated 2023-06-01 (easy), 2024-03-01 (medium)
and 2025-02-01 (hard); Python passes the first two, Rust the first and the last. Screenshots are
kept in the test artifacts."""

from __future__ import annotations

import csv
import io

import pytest
from django.db import transaction

from tests.web.test_language_table import _scored

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def cell(page, language: str) -> str:
    """The first row's figure under a language's column (its value, without the interval)."""
    headers = page.locator("#leaderboard table.board thead th").evaluate_all(
        "ths => ths.map(th => th.dataset.column || '')"
    )
    index = headers.index(f"pass@1|language={language}")
    return page.locator("#leaderboard table.board tbody tr").first.locator("td").nth(index).locator(".v").inner_text()


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.parametrize("width", [390, 1280])
def test_the_slider_moves_the_window_and_the_download_follows(multi_lcb, user, live_server, page, artifacts, width):
    with transaction.atomic():
        _scored(multi_lcb, user)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(live_server.url + "/benchmarks/multi-lcb/")
    slider = page.locator(".date-slider")
    assert slider.is_visible() and slider.locator("output").inner_text() == "2023-06 to 2025-02"
    assert cell(page, "python") == "50.0"  # scored_run's stored figure, before any window
    page.screenshot(path=str(artifacts / f"multi-lcb-{width}-all.png"), full_page=True)

    start = page.get_by_label("window start (month)")
    start.focus()
    for _ in range(7):  # 2023-06 + 7 months = 2024-01
        page.keyboard.press("ArrowRight")
    assert slider.locator("output").inner_text() == "2024-01 to 2025-02"
    page.wait_for_url("**from=2024-01-01**")
    page.wait_for_selector("#leaderboard:has-text('dated 2024-01-01 to 2025-02-01')")
    assert page.locator("input[name=from]").input_value() == "2024-01-01"
    assert cell(page, "python") == "50.0" and cell(page, "rust") == "50.0"  # t2 and t3: Python 1 of 2, Rust 1 of 2

    page.select_option("select[name=difficulty]", "hard")  # the window stays; within it, t3 alone
    page.wait_for_url("**difficulty=hard**")
    page.wait_for_function("document.querySelector('#leaderboard .downloads a').href.includes('difficulty=hard')")
    assert "from=2024-01-01" in page.url
    assert cell(page, "python") == "0.0" and cell(page, "rust") == "100.0"
    assert no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / f"multi-lcb-{width}-window-hard.png"), full_page=True)

    exported = page.request.get(page.locator("#leaderboard .downloads a", has_text="CSV").evaluate("a => a.href"))
    rows = list(csv.DictReader(io.StringIO(exported.text())))
    assert rows[0]["pass@1|language=python"] == "0.0" and rows[0]["pass@1|language=rust"] == "1.0"
    assert rows[0]["pass@1|language=rust:n"] == "1"
    as_json = page.request.get(
        page.locator("#leaderboard .downloads a", has_text="JSON").evaluate("a => a.href")
    ).json()
    assert as_json["rows"][0]["scores"]["pass@1|language=python"]["value"] == 0.0


def test_without_javascript_the_date_inputs_and_apply_set_the_window(multi_lcb, user, live_server, page, artifacts):
    with transaction.atomic():
        _scored(multi_lcb, user)
    context = page.context.browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 844})
    plain = context.new_page()
    try:
        plain.goto(live_server.url + "/benchmarks/multi-lcb/")
        assert plain.locator(".date-slider").count() == 0  # the slider is JavaScript's; the form works without it
        plain.fill("input[name=from]", "2024-01-01")
        plain.fill("input[name=to]", "2024-12-31")
        plain.get_by_role("button", name="Apply").click()
        plain.wait_for_url("**from=2024-01-01**")
        assert (
            "to=2024-12-31" in plain.url
            and "dated 2024-01-01 to 2024-12-31" in plain.locator("#leaderboard").inner_text()
        )
        assert cell(plain, "python") == "100.0" and cell(plain, "rust") == "0.0"  # t2 alone
        plain.screenshot(path=str(artifacts / "multi-lcb-390-no-javascript.png"), full_page=True)
    finally:
        context.close()
