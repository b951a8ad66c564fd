"""The submit page says what each board expects before anything is uploaded: the items and samples of
its current dataset, a line in its format, its requests to run a model on, its example file, and how
long recent runs took with how many wait. Expected values are the fixture's own facts (three problems
in twelve languages, ten samples as LiveCodeBench generates them) and hand-made run timestamps."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from django.utils import timezone

from leaderboard.runs.models import EvaluationRun, RunStatus
from tests.support.factories import run_make

pytestmark = pytest.mark.django_db


def _guide(html: str, slug: str) -> str:
    found = re.search(rf'<details id="guide-{slug}"[^>]*>(.*?)</details>', html, re.S)
    assert found, slug
    return re.sub(r"\s+", " ", found.group(1))


def _run(benchmark, user, status: str, minutes: float | None) -> None:
    start = timezone.now() - dt.timedelta(hours=1)
    run_make(
        benchmark,
        user,
        f"m{EvaluationRun.objects.count()}",
        status=status,
        progress_started_at=start if minutes is not None else None,
        finished_at=start + dt.timedelta(minutes=minutes) if minutes is not None else None,
    )


def test_each_board_says_what_it_expects_and_how_long_it_takes(client, multi_lcb, user):
    for minutes in (2, 4, 9):  # median 4 min
        _run(multi_lcb, user, RunStatus.SUCCEEDED, minutes)
    _run(multi_lcb, user, RunStatus.QUEUED, None)
    client.force_login(user)
    html = client.get(f"/submit/?benchmark={multi_lcb.pk}").content.decode()
    guide = _guide(html, "multi-lcb")
    assert re.search(r'<details id="guide-multi-lcb" open>', html)
    assert (
        "36 items × 10 samples, 72 tests (dataset mini)" in guide
    )  # 3 problems x 12 languages, n=10; 2 tests a problem
    assert "against its item's tests: 72 over the 36 items, for each of the 10 samples" in guide
    assert "<code>t1_a/" in guide and "sample_index</code> 0 to 9" in guide
    assert (
        "median of 4 min 0 s once started (from 2 min 0 s to 9 min 0 s, last 3)" in guide and "1 run waiting" in guide
    )
    assert 'href="/benchmarks/multi-lcb/example-predictions.jsonl"' in guide
    assert 'href="/benchmarks/multi-lcb/items.jsonl"' in guide


def test_the_requests_download_holds_every_item_with_its_messages(client, multi_lcb):
    lines = [
        json.loads(line)
        for line in b"".join(client.get("/benchmarks/multi-lcb/items.jsonl").streaming_content).splitlines()
    ]
    assert len(lines) == 36 and len({line["item_id"] for line in lines}) == 36
    python = next(line for line in lines if line["item_id"] == "t1_a/python")
    assert python["slices"]["language"] == "python"
    request = python["requests"][0]
    assert request["n"] == 10 and request["temperature"] == 0.2 and request["top_p"] == 0.95  # LiveCodeBench's defaults
    assert any("### Question" in m["content"] for m in request["messages"] if isinstance(m["content"], str))
    assert client.get("/benchmarks/no-such-board/items.jsonl").status_code == 404
