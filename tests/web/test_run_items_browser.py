"""The per-item page in Debian's Chromium at a phone's and a desktop's size: an opened transcript and a
program with a long line take the table's whole width, and the page never scrolls sideways."""

from __future__ import annotations

import pytest

from evaluators.core import ItemScore
from tests.web.test_run_items import lcb_sample, lcb_score, record, run_of

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def test_transcripts_and_programs_use_the_full_width(user, live_server, page, artifacts):
    code_run = run_of("causal-pitfalls-code", user)
    stage = {
        "messages": [{"role": "user", "content": "Estimate the effect of X on Y. " * 20}],
        "answer": "```python\nprint(df.groupby('x')['y'].mean())\n```",
        "tool": {},
        "error_kind": "",
        "error": "",
        "finish_reason": "stop",
    }
    record(
        code_run,
        ItemScore(
            "cp/confounding/1",
            {"challenge": "confounding"},
            {"causal_reliability": 0.5},
            {
                "samples": [{"sample_index": 0, "verdict": "scored", "score": 0.5, "reason": "1 of 2 criteria met"}],
                "transcripts": [{"sample_index": 0, "stages": [stage]}],
            },
        ),
    )
    lcb_run = run_of("multi-lcb", user)
    long_line = lcb_sample(0, "passed", program="print(" + " + ".join(["1"] * 200) + ")\n")
    record(lcb_run, lcb_score("t1_a/python", [long_line]))

    for width, name in ((390, "phone"), (1366, "desktop")):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{live_server.url}/runs/{code_run.pk}/items/")
        page.locator("details.transcript summary").click()
        table = page.locator("table.items").bounding_box()
        transcript = page.locator("details.transcript").bounding_box()
        assert table and transcript and transcript["width"] >= 0.9 * table["width"], (name, transcript, table)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), name
        page.screenshot(path=str(artifacts / f"transcript-{name}.png"), full_page=True)

        page.goto(f"{live_server.url}/runs/{lcb_run.pk}/items/")
        program = page.locator("pre.program").bounding_box()
        table = page.locator("table.items").bounding_box()
        assert program and table and program["width"] >= 0.9 * table["width"], (name, program, table)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1"), (
            name
        )  # the long line scrolls in its box
        page.screenshot(path=str(artifacts / f"program-{name}.png"), full_page=True)
