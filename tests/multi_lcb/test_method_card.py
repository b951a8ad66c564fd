"""Multi-LCB's method card: the released side states LiveCodeBench's published defaults (written out
here from lcb_runner/runner/parser.py: n=10, temperature 0.2, top_p 0.95, max_tokens 2000, stop '###';
lcb_runner/utils/extraction_utils.py takes the last fenced block), a setting that changes the protocol
turns its row into a deviation with a reason, and the page and the API show the same card."""

from __future__ import annotations

import re

import pytest

from evaluators.core import ProtocolRow
from evaluators.multi_lcb.evaluator import MultiLCBEvaluator


def _rows() -> dict[str, ProtocolRow]:
    return {row.element: row for row in MultiLCBEvaluator().presentation().method_card()}


def test_the_released_defaults_are_stated_as_released_where_we_keep_them() -> None:
    rows = _rows()
    sampling = rows["Samples and sampling"]
    assert "n=10" in sampling.released and "temperature 0.2" in sampling.released and "top_p 0.95" in sampling.released
    assert not sampling.deviates
    length = rows["Answer length"]
    assert "2,000" in length.released and "'###'" in length.released
    assert length.deviates and "32,768" in length.here and length.why
    assert "last" in rows["Program extraction"].released and not rows["Program extraction"].deviates


def test_a_setting_that_changes_the_protocol_is_a_stated_deviation() -> None:
    rows = {
        row.element: row
        for row in MultiLCBEvaluator()
        .configured({"extraction": "last", "temperature": 0.0})
        .presentation()
        .method_card()
    }
    assert rows["Program extraction"].deviates and "setting 'extraction'" in rows["Program extraction"].why
    assert rows["Samples and sampling"].deviates and "temperature 0" in rows["Samples and sampling"].here


@pytest.mark.django_db
def test_the_page_and_the_api_show_the_same_card(client, multi_lcb) -> None:
    page = client.get("/benchmarks/multi-lcb/").content.decode()
    section = page[page.index('id="method-card"') : page.index("</section>", page.index('id="method-card"'))]
    shown = re.findall(r'<th scope="row">(.*?)</th>', section)
    api = client.get("/api/benchmarks/multi-lcb/").json()["method_card"]
    assert shown == [row["element"] for row in api] and len(shown) >= 10
    differs = {row["element"] for row in api if row["deviates"]}
    assert "Answer length" in differs and "Samples and sampling" not in differs
    assert section.count('class="differs"') == len(differs)
    assert all(row["why"] for row in api if row["deviates"])
