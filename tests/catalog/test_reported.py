"""Figures reported by the benchmarks' authors: read from the repository's file, each checked against
the benchmark's columns, shown in their own labelled section with source and date, and never among
the ranked rows."""

from __future__ import annotations

import json
import re

import pytest

from evaluators.core import BENCHMARKS
from leaderboard.catalog import reported


@pytest.mark.django_db
def test_reported_figures_are_shown_apart_with_their_source_and_never_ranked(client, multi_lcb):
    page = client.get("/benchmarks/multi-lcb/").content.decode()
    section = page[page.index('<section class="reported"') :]
    assert "Reported by the authors, not run here" in section and "never ranked" in section
    rows = re.findall(r"<tr>(.*?)</tr>", section, re.S)
    assert any(
        "<td>gpt-oss-120B (high)</td><td>pass@1, mean of languages</td>" in r and ">81.9%</td>" in r for r in rows
    ), rows[:3]
    assert any("<td>pass@1 · language: python</td>" in r and ">84.0%</td>" in r for r in rows)
    assert "Multi-LCB site" in section and "2025-04-06" in section
    board = page[: page.index('<section class="reported"')]
    assert "gpt-oss-120B" not in board  # not a row of the leaderboard
    assert all(
        row["model"] != "gpt-oss-120B (high)"
        for row in client.get("/api/benchmarks/multi-lcb/leaderboard/").json()["rows"]
    )


def test_every_figure_in_the_file_names_a_column_its_benchmark_has():
    from dataclasses import asdict

    from evaluators.core import evaluator_for

    data = json.loads(reported.FILE.read_text())
    slugs = {row.key: row for row in BENCHMARKS}
    for slug in (k for k in data if not k.startswith("_")):
        assert slug in slugs, slug
        columns = [asdict(c) for c in evaluator_for(slugs[slug].key).metric_columns]
        rows = reported.reported_figures(slug, columns)
        assert rows and all(r["source"] and r["date"] for r in rows)
    with pytest.raises(ValueError, match="names the metric 'pass@1', which this benchmark does not have"):
        reported.reported_figures("multi-lcb", [{"key": "accuracy", "label": "Accuracy"}])
