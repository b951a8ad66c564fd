"""The home page's card of a board shows its baselines, marked and unranked, after people's ranked rows; a board
that only has baselines shows them (it once said "No public scores yet" beside a board with two baseline rows)."""

from __future__ import annotations

import re

import pytest

from tests.web.populated_site import populate

pytestmark = pytest.mark.django_db


def card(html: str, name: str) -> str:
    start = html.index(f">{name}</a></h2>")
    return html[start : html.index("</li>", start)]


def test_home_cards_show_baselines_marked_and_unranked(client, user, multi_lcb):
    populate(
        user
    )  # CausalPitfalls (code-assisted): two baselines only; the other boards: a person's model and two baselines
    html = client.get("/").content.decode()

    code = card(html, "CausalPitfalls (code-assisted)")
    assert "No public scores yet." not in code
    assert "No public scores from people yet" in code
    rows = re.findall(r"<tr class=\"reference\">.*?</tr>", code, re.S)
    # best first: "Rubric restated" scores every item 1.0 (100.0%), "No analysis" 0.25 (25.0%)
    assert [re.search(r">([^<]+ \(baseline\))</a>", r).group(1) for r in rows] == [
        "Rubric restated (baseline)",
        "No analysis (baseline)",
    ]
    assert all(
        '<span class="badge reference">baseline</span>' in r and '">–</td>' in r for r in rows
    )  # marked, no rank
    assert ">100.0%" in rows[0] and ">25.0%" in rows[1]

    direct = card(html, "CausalPitfalls")
    body = direct[direct.index("<tbody>") :]
    person = body.index("Qwen2.5-Coder 7B Instruct")
    assert person < body.index("Rubric restated (baseline)") < body.index("No analysis (baseline)")
    person_row = body[body.rindex("<tr", 0, person) : body.index("</tr>", person)]
    assert "reference" not in person_row and "baseline" not in person_row
