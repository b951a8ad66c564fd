"""The submission page in words: a succeeded run's cost line says "run time" and nothing of the page's own
Python objects (it once read "over [(<EvaluationRun: run #11 ...>, Progress(done=264, ...))] run"), and a
count ("Largest N answered") reads as a whole number, on the run page and the leaderboard. The run and its
scores are written by hand."""

from __future__ import annotations

import re
from typing import Any

import pytest

from leaderboard.catalog.models import Benchmark, DatasetVersion
from leaderboard.catalog.services import benchmarks_sync
from leaderboard.chains.board_rows import leaderboard_entry_refresh
from leaderboard.runs.models import EvaluationRun, Score
from tests.support.factories import run_make

pytestmark = pytest.mark.django_db


def succeeded_run(owner: Any) -> EvaluationRun:
    """A public succeeded Video NIAH run: 36 questions, every one up to N = 32 answered, with a cost."""
    benchmarks_sync()
    benchmark = Benchmark.objects.get(slug="video-niah-single")
    dataset = DatasetVersion.objects.create(
        benchmark=benchmark, tag="hand-made", content_hash="0" * 64, storage_key="none", item_count=36, is_current=True
    )
    run = run_make(
        benchmark,
        owner,
        "counting-model",
        dataset_version=dataset,
        items=36,
        cost={"prompt_tokens": 1200, "completion_tokens": 36, "wall_seconds": 75.0},
    )
    Score.objects.bulk_create(
        [
            Score(run=run, key="accuracy", value=0.5, ci_low=0.25, ci_high=0.75, n=36),
            Score(run=run, key="answered", value=1.0, n=36),
            Score(run=run, key="largest_answered", value=32.0, n=4),
            Score(run=run, key="frames_at_90", value=16.0, n=4),
        ]
    )
    leaderboard_entry_refresh(run=run)  # as a succeeded run reaches its board
    return run


def test_the_submission_page_shows_no_python_objects_and_counts_as_whole_numbers(user, client):
    run = succeeded_run(user)
    page = client.get(f"/submissions/{run.submission_id}/").content.decode()
    text = re.sub(r"\s+", " ", page)
    assert "<EvaluationRun" not in page and "&lt;EvaluationRun" not in page and "Progress(" not in page
    assert "Cost: 1200 prompt and 36 generated tokens · run time 1 min 15 s." in text  # one run: no "over ... runs"
    rows = dict(re.findall(r'<tr><td>([^<]+)</td><td class="num"><span class="v">([^<]+)</span>', page))
    assert rows["Largest N answered"] == "32" and rows["Largest N at 0.9"] == "16"  # counts, not 32.000
    assert rows["Accuracy (over the limit = miss)"] == "50.0"


def test_the_leaderboard_shows_a_count_as_a_whole_number(user, client):
    succeeded_run(user)
    page = client.get("/benchmarks/video-niah-single/").content.decode()
    assert '<span class="v">32</span>' in page and '<span class="v">16</span>' in page
    assert "32.000" not in page and "16.000" not in page
