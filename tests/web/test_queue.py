"""The public queue: running work with progress, waiting work in its queue's order, recent failures
with their kind in words; private work unnamed except to its submitter, who sees their place."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from leaderboard.runs.models import EvaluationRun, FailureKind, RunStatus
from tests.support.factories import run_make

pytestmark = pytest.mark.django_db


def _run(
    benchmark,
    owner,
    name: str,
    status: str,
    *,
    public: bool = True,
    minutes_ago: int = 0,
    done: int = 0,
    failure: str = "",
) -> EvaluationRun:
    when = timezone.now() - dt.timedelta(minutes=minutes_ago)
    return run_make(
        benchmark,
        owner,
        name,
        status=status,
        public=public,
        queue="cpu",
        items_total=12,
        items_done=done,
        queued_at=when,
        started_at=when if status == RunStatus.RUNNING else None,
        failure_kind=failure,
        finished_at=when if status == RunStatus.FAILED else None,
    )


def _rows(html: str, table: str) -> list[str]:
    body = re.search(rf'<table class="board" id="{table}">(.*?)</table>', html, re.S)
    return (
        [
            re.sub(r"\s+", " ", re.sub(r"<.*?>", " ", row)).strip()
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body.group(1), re.S)
            if "<td" in row
        ]
        if body
        else []
    )


def test_the_queue_shows_work_in_order_and_hides_private_models(client, multi_lcb, user, other_user):
    _run(multi_lcb, user, "open-model", RunStatus.QUEUED, minutes_ago=10)
    _run(multi_lcb, other_user, "secret-model", RunStatus.QUEUED, public=False, minutes_ago=5)
    _run(multi_lcb, user, "busy-model", RunStatus.RUNNING, done=3)
    _run(multi_lcb, user, "broken-model", RunStatus.FAILED, failure=FailureKind.INFRASTRUCTURE)
    _run(multi_lcb, other_user, "bad-file-model", RunStatus.FAILED, public=False, failure=FailureKind.INVALID_INPUT)
    html = client.get("/queue/").content.decode()
    waiting = _rows(html, "waiting")
    assert [row.split(" ")[0] for row in waiting] == ["1", "2"]
    assert "open-model" in waiting[0] and "a private model" in waiting[1]
    assert "secret-model" not in html and "bad-file-model" not in html
    running = _rows(html, "running")
    assert len(running) == 1 and "busy-model" in running[0] and "25.0%" in running[0]  # 3 of 12 items
    failed = " | ".join(_rows(html, "failed"))
    assert "broken-model" in failed and "platform fault" in failed and "bad input" in failed
    data = client.get("/queue/?format=json").json()
    assert [e["model"] for e in data["waiting"]] == ["open-model", "a private model"] and data["waiting_total"] == 2
    assert data["yours_waiting"] == []


def test_a_submitter_sees_their_own_private_work_and_its_place(client, multi_lcb, user, other_user):
    _run(multi_lcb, user, "first", RunStatus.QUEUED, minutes_ago=10)
    mine = _run(multi_lcb, other_user, "secret-model", RunStatus.QUEUED, public=False, minutes_ago=5)
    client.force_login(other_user)
    html = client.get("/queue/").content.decode()
    yours = re.sub(r"\s+", " ", re.search(r'<p class="notice" id="yours">(.*?)</p>', html, re.S).group(1))
    assert "secret-model · Multi-LCB</a> is number 2 in the cpu queue" in yours
    assert f'href="/submissions/{mine.submission_id}/"' in yours
