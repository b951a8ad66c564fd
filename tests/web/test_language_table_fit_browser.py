"""Multi-LCB's model x language table at its widest (pass@1 mean, the Python gap, pass@5 and pass@10, then all
12 languages, each with its interval and n, for models with long names and three-digit item counts) fits a
1280 px window without scrolling sideways, and on a 390 px phone scrolls inside its own box while the page
itself does not overflow. The abbreviated headers carry their full names in <abbr title>. Screenshots are
kept in the test artifacts."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.utils import timezone

from evaluators.multi_lcb.prompts import LANGUAGE_KEYS
from leaderboard.chains import board_rows
from leaderboard.runs.models import EvaluationRun, Score
from tests.support.factories import run_make

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]

MODELS = (
    "Qwen2.5-Coder-32B-Instruct",
    "DeepSeek-Coder-V2-Lite-Instruct",
    "Meta-Llama-3.1-70B-Instruct",
    "reference-solutions (baseline)",
)


def _plant(benchmark, owner) -> None:
    """Every column filled, with the widest figures each can hold (100.0, a negative gap, n=1055)."""
    for index, name in enumerate(MODELS):
        run = run_make(benchmark, owner, name, items=12660)
        value = 0.9 - 0.2 * index
        scores = [
            Score(
                run=run,
                key=key,
                slice_key="",
                value=v,
                ci_low=max(low, v - 0.023),
                ci_high=min(1.0, v + 0.031),
                n=12660,
            )
            for key, v, low in (
                ("pass@1", value, 0.0),
                ("python_gap", -0.123 + 0.1 * index, -1.0),
                ("pass@5", 1.0, 0.0),
                ("pass@10", 1.0, 0.0),
            )
        ]
        scores += [
            Score(
                run=run,
                key="pass@1",
                slice_key=f"language={language}",
                value=min(1.0, value + 0.01 * i),
                ci_low=max(0.0, value - 0.1),
                ci_high=min(1.0, value + 0.05),
                n=1055,
            )
            for i, language in enumerate(LANGUAGE_KEYS)
        ]
        Score.objects.bulk_create(scores)
        EvaluationRun.objects.filter(pk=run.pk).update(finished_at=timezone.now())
        run.refresh_from_db()
        board_rows.leaderboard_entry_refresh(run=run)


def _fits(page) -> dict[str, float]:
    return page.evaluate("""() => {
        const table = document.querySelector('#leaderboard table.board');
        const box = table.parentElement;
        return {table: table.scrollWidth, box: box.clientWidth, page: document.documentElement.scrollWidth,
                window: window.innerWidth};
    }""")


def test_the_language_table_fits_a_desktop_and_scrolls_in_its_box_on_a_phone(
    multi_lcb, user, live_server, page, artifacts
):
    assert len(LANGUAGE_KEYS) == 12
    with transaction.atomic():
        _plant(multi_lcb, user)
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(live_server.url + "/benchmarks/multi-lcb/")
    sizes = _fits(page)
    page.screenshot(path=str(artifacts / "multi-lcb-languages-1280.png"), full_page=True)
    headers = page.locator("#leaderboard table.board thead th")
    assert headers.count() == 2 + 4 + 12  # rank, model, the four headline figures, the languages
    titles = page.locator("#leaderboard table.board thead th abbr").evaluate_all("els => els.map(e => e.title)")
    assert {"pass@1, mean of languages", "Python gap", "JavaScript", "TypeScript", "Rank"} <= set(titles), titles
    first = page.locator("#leaderboard table.board tbody tr").first
    assert "Qwen2.5-Coder-32B-Instruct" in first.inner_text()
    assert first.locator("td").nth(2).locator(".v").inner_text() == "90.0"  # the mean, still readable
    mean = first.locator("td").nth(2)
    # its interval 87.7 to 93.1, widened to whole points; the exact one in the cell's title
    assert (
        mean.locator(".ci").inner_text() == "87–94"
        and mean.get_attribute("title") == "95% interval 87.7 to 93.1, n=12660"
    )
    assert first.locator("td").nth(3).locator(".ci").inner_text() == "-15 to -9"  # the gap: -12.3 in [-14.6, -9.2]
    assert sizes["table"] <= sizes["box"], sizes  # no horizontal scrolling in the table's box
    assert sizes["page"] <= sizes["window"], sizes  # nor on the page

    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(live_server.url + "/benchmarks/multi-lcb/")
    sizes = _fits(page)
    page.screenshot(path=str(artifacts / "multi-lcb-languages-390.png"), full_page=True)
    assert sizes["page"] <= sizes["window"], sizes  # the table scrolls in its box; the page stays put
    assert page.locator("#leaderboard .scroll").evaluate("e => getComputedStyle(e).overflowX") == "auto"
