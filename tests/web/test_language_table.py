"""Multi-LCB's model x language table keeps its language columns under a difficulty or platform
filter: every figure is recomputed over the items of that slice (hand-counted here), with and
without a date window, on the page, the API and the CSV."""

from __future__ import annotations

import pytest

from leaderboard.runs.models import ItemResult
from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db

DIFFICULTY = {"t1_a": "easy", "t2_a": "medium", "t3_a": "hard"}  # as the mini release dates and grades them
DATES = {"t1_a": "2023-06-01", "t2_a": "2024-03-01", "t3_a": "2025-02-01"}
PASSES = {
    ("t1_a", "python"): True,
    ("t2_a", "python"): True,
    ("t3_a", "python"): False,
    ("t1_a", "rust"): True,
    ("t2_a", "rust"): False,
    ("t3_a", "rust"): True,
}


def _scored(multi_lcb, user):
    run = scored_run(multi_lcb, user, "solver", 0.5)
    ItemResult.objects.bulk_create(
        [
            ItemResult(
                run=run,
                item_id=f"{problem}/{language}",
                primary_score=float(ok),
                slices={
                    "language": language,
                    "difficulty": DIFFICULTY[problem],
                    "platform": "atcoder",
                    "contest_date": DATES[problem],
                },
                scores={"n": 1.0, "c": float(ok), "pass@1": float(ok)},
                detail={},
            )
            for (problem, language), ok in PASSES.items()
        ]
    )
    return run


def test_a_difficulty_filter_keeps_the_languages_recomputed_within_it(client, multi_lcb, user):
    _scored(multi_lcb, user)
    hard = client.get("/api/benchmarks/multi-lcb/leaderboard/?difficulty=hard").json()["rows"][0]["scores"]
    assert hard["pass@1|language=python"]["value"] == 0.0 and hard["pass@1|language=rust"]["value"] == 1.0  # t3 only
    assert hard["pass@1|language=python"]["n"] == 1
    medium = client.get("/api/benchmarks/multi-lcb/leaderboard/?difficulty=medium").json()["rows"][0]["scores"]
    assert (
        medium["pass@1|language=python"]["value"] == 1.0 and medium["pass@1|language=rust"]["value"] == 0.0
    )  # t2 only
    # with a date window too: from 2024-01-01 keeps t2 and t3; within medium that is t2 alone
    windowed = client.get("/api/benchmarks/multi-lcb/leaderboard/?difficulty=medium&from=2024-01-01").json()["rows"][0][
        "scores"
    ]
    assert windowed["pass@1|language=rust"]["value"] == 0.0 and windowed["pass@1|language=rust"]["n"] == 1
    page = client.get("/benchmarks/multi-lcb/?difficulty=hard").content.decode()
    assert 'data-column="pass@1|language=rust"' in page and ">Rust<" in page  # the language columns stay on the page
    csv = client.get("/benchmarks/multi-lcb/?difficulty=hard&format=csv").content.decode().splitlines()
    assert "pass@1|language=rust" in csv[0]


def test_a_language_filter_still_reads_the_stored_scores(client, multi_lcb, user):
    _scored(multi_lcb, user)
    python = client.get("/api/benchmarks/multi-lcb/leaderboard/?language=python").json()
    assert "pass@1|language=rust" not in python["rows"][0]["scores"]  # one language: no other language's column
    assert python["rows"][0]["scores"]["pass@1|language=python"]["value"] == pytest.approx(
        0.5
    )  # scored_run's stored figure
