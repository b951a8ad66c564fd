"""A queued run says where it stands: its place on its queue, the work ahead (kind and board, no model
names) and when it should start, estimated from planted run histories whose figures are worked out by
hand below; "no estimate yet" when a board ahead has no finished run. On the run's page and the API."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from leaderboard.catalog.models import Benchmark, DatasetVersion
from leaderboard.runs.eta import Span, run_wait
from leaderboard.runs.models import EvaluationRun, RunStatus
from leaderboard.runs.work_kinds import BASELINE_OWNER
from tests.support.factories import run_make

pytestmark = pytest.mark.django_db

T = timezone.now().replace(microsecond=0)


@pytest.fixture
def boards(multi_lcb):
    """Multi-LCB (the mini release) and two more boards with a dataset version each."""

    def version(slug: str) -> Benchmark:
        benchmark = Benchmark.objects.get(slug=slug)
        DatasetVersion.objects.create(
            benchmark=benchmark, tag="t", content_hash="0" * 64, storage_key="x", item_count=10, is_current=True
        )
        return benchmark

    return multi_lcb, version("policon"), version("video-niah-single")


def _run(
    benchmark,
    owner,
    status: str,
    *,
    queue: str = "cpu",
    seconds: float | None = None,
    queued_ago: float = 0.0,
    started_ago: float | None = None,
    version: DatasetVersion | None = None,
) -> EvaluationRun:
    start = (
        T - dt.timedelta(hours=2)
        if seconds is not None
        else (T - dt.timedelta(seconds=started_ago) if started_ago is not None else None)
    )
    return run_make(
        benchmark,
        owner,
        f"m{EvaluationRun.objects.count()}",
        status=status,
        dataset_version=version,
        queue=queue,
        queued_at=T - dt.timedelta(seconds=queued_ago),
        started_at=start,
        progress_started_at=start,
        finished_at=start + dt.timedelta(seconds=seconds) if seconds is not None else None,
    )


@pytest.fixture
def history(boards, user):
    """Multi-LCB's runs on its current version took 60, 120 and 300 s (median 120); PoliCon's 600 and 1000 s
    (median 800); Video NIAH has none. A failed run and a run on an older version do not count."""
    lcb, policon, _ = boards
    for seconds in (60, 120, 300):
        _run(lcb, user, RunStatus.SUCCEEDED, seconds=seconds)
    for seconds in (600, 1000):
        _run(policon, user, RunStatus.SUCCEEDED, seconds=seconds)
    _run(lcb, user, RunStatus.FAILED, seconds=9999)
    old = DatasetVersion.objects.create(benchmark=lcb, tag="old", content_hash="1" * 64, storage_key="y", item_count=3)
    _run(lcb, user, RunStatus.SUCCEEDED, seconds=5000, version=old)


def test_the_estimate_adds_what_is_left_of_the_work_ahead(boards, history, user, other_user):
    lcb, policon, _ = boards
    _run(
        lcb, other_user, RunStatus.RUNNING, queued_ago=300, started_ago=100
    )  # left: (60-100 -> 0, 120-100 = 20, 300-100 = 200)
    _run(policon, other_user, RunStatus.QUEUED, queued_ago=50)  # all of it: (600, 800, 1000)
    mine = _run(lcb, user, RunStatus.QUEUED, queued_ago=10)
    _run(policon, other_user, RunStatus.QUEUED, queued_ago=5)  # behind mine: not counted
    _run(policon, other_user, RunStatus.QUEUED, queue="baseline", queued_ago=60)  # another queue: not counted
    wait = run_wait(run=mine, now=T)
    assert wait is not None and wait.queue == "cpu" and wait.position == 2 and wait.what == "scoring"
    assert [(a.status, a.kind, a.board) for a in wait.ahead] == [
        ("running", "user", lcb.name),
        ("queued", "user", policon.name),
    ]
    assert wait.ahead[0].seconds_left == Span(0, 20, 200) and wait.ahead[1].seconds_left == Span(600, 800, 1000)
    assert wait.seconds == Span(600, 820, 1200)  # 0+600, 20+800, 200+1000
    assert wait.starts == (T + dt.timedelta(seconds=600), T + dt.timedelta(seconds=820), T + dt.timedelta(seconds=1200))
    assert wait.own is not None and wait.own.n == 3 and wait.own.span == Span(60, 120, 300)
    assert (
        run_wait(run=EvaluationRun.objects.filter(status=RunStatus.RUNNING).get(), now=T) is None
    )  # only a waiting run has one


def test_no_estimate_while_a_board_ahead_has_no_history_and_baselines_are_named_so(boards, history, user):
    lcb, policon, niah = boards
    owner = get_user_model().objects.create(username=BASELINE_OWNER, is_active=False, is_staff=True)
    _run(policon, owner, RunStatus.RUNNING, queue="baseline", queued_ago=1000, started_ago=900)  # left (0, 0, 100)
    _run(niah, owner, RunStatus.QUEUED, queue="baseline", queued_ago=100)  # no finished run of Video NIAH
    mine = _run(lcb, owner, RunStatus.QUEUED, queue="baseline", queued_ago=10)
    wait = run_wait(run=mine, now=T)
    assert wait is not None and wait.position == 2 and [a.kind for a in wait.ahead] == ["baseline", "baseline"]
    assert wait.ahead[0].seconds_left == Span(0, 0, 100) and wait.ahead[1].seconds_left is None
    assert wait.seconds is None and wait.starts is None and wait.no_history == (niah.name,)
    assert wait.to_dict()["no_estimate_because"] == f"no run of {niah.name} has finished yet"


def test_nothing_ahead_starts_next(boards, user):
    mine = _run(boards[0], user, RunStatus.QUEUED)
    wait = run_wait(run=mine, now=T)
    assert (
        wait is not None
        and wait.position == 1
        and wait.ahead == []
        and wait.seconds == Span(0, 0, 0)
        and wait.own is None
    )


def test_the_runs_page_and_the_api_say_it(client, boards, history, user, other_user):
    lcb, policon, _ = boards
    # running for longer than the slowest Multi-LCB run (300 s): nothing left of it, whenever the page is made
    _run(lcb, other_user, RunStatus.RUNNING, queued_ago=900, started_ago=400)
    _run(policon, other_user, RunStatus.QUEUED, queued_ago=50)
    mine = _run(lcb, user, RunStatus.QUEUED, queued_ago=10)
    client.force_login(user)
    html = re.sub(r"\s+", " ", client.get(f"/submissions/{mine.submission_id}/").content.decode())
    assert "position 2</strong>, behind 1 running and 1 waiting" in html
    assert (
        "Should start in about <strong>13 min 20 s</strong> (between 10 min 0 s and 16 min 40 s)" in html
    )  # 800, 600, 1000 s
    assert "Runs like it took 2 min 0 s once started (from 1 min 0 s to 5 min 0 s, last 3)" in html
    assert "running · user run · scoring Multi-LCB" in html and "queued · user run · scoring PoliCon" in html
    assert "attempt 0 of" not in html and "not started yet" in html
    data = client.get(f"/api/runs/{mine.pk}/").json()["wait"]
    assert data["position"] == 2 and data["queue"] == "cpu" and [a["kind"] for a in data["ahead"]] == ["user", "user"]
    assert data["estimate"]["seconds"] == {"low": 600.0, "median": 800.0, "high": 1000.0}
    assert data["own_duration"] == {"runs": 3, "seconds": {"low": 60.0, "median": 120.0, "high": 300.0}}
    assert "median" in data["method"] and data["no_estimate_because"] is None


def test_a_run_whose_model_must_answer_first_waits_for_its_generation_job(boards, user, other_user):
    """Generation jobs on gpu-local took 100 and 300 s (median 200); one job is queued ahead of this run's."""
    from leaderboard.runs.models import GenerationJob, RunPhase

    lcb = boards[0]
    for seconds in (100, 300):
        done = _run(lcb, other_user, RunStatus.SUCCEEDED, seconds=30)
        GenerationJob.objects.create(
            submission=done.submission,
            queue="gpu-local",
            status=RunStatus.SUCCEEDED,
            started_at=T - dt.timedelta(hours=1),
            finished_at=T - dt.timedelta(hours=1) + dt.timedelta(seconds=seconds),
        )
    ahead = _run(lcb, other_user, RunStatus.QUEUED, queued_ago=100)
    EvaluationRun.objects.filter(pk=ahead.pk).update(phase=RunPhase.GENERATING)
    GenerationJob.objects.create(
        submission=ahead.submission, queue="gpu-local", queued_at=T - dt.timedelta(seconds=100)
    )
    mine = _run(lcb, user, RunStatus.QUEUED, queued_ago=10)
    EvaluationRun.objects.filter(pk=mine.pk).update(phase=RunPhase.GENERATING)
    GenerationJob.objects.create(submission=mine.submission, queue="gpu-local", queued_at=T - dt.timedelta(seconds=10))
    mine.refresh_from_db()
    wait = run_wait(run=mine, now=T)
    assert wait is not None and wait.what == "generating" and wait.queue == "gpu-local" and wait.position == 2
    assert [(a.work, a.board, a.kind) for a in wait.ahead] == [("generating", lcb.name, "user")]
    assert wait.seconds == Span(100, 200, 300)
    assert wait.own is not None and wait.own.span == Span(30, 30, 30)  # its own scoring: the two 30 s Multi-LCB runs
    assert wait.own.n == 2


def test_the_queue_page_estimates_every_run_from_the_planted_durations(boards, history, user, other_user):
    """By hand, as of T (Multi-LCB took 60/120/300 s, PoliCon 600/1000 s, Video NIAH never finished):
    cpu: the running Multi-LCB run (100 s in) finishes in (0, 20, 200); PoliCon, first in line, starts
    then and finishes 600-1000 s later: (600, 820, 1200); mine starts there and needs a Multi-LCB run:
    (660, 940, 1500). baseline: the Video NIAH baseline is next but nothing like it has finished; the
    Multi-LCB baseline behind it has no start (Video NIAH ahead has no history) and so no finish."""
    from leaderboard.runs.public_queue import public_queue

    lcb, policon, niah = boards
    owner = get_user_model().objects.create(username=BASELINE_OWNER, is_active=False, is_staff=True)
    _run(lcb, other_user, RunStatus.RUNNING, queued_ago=300, started_ago=100)
    _run(policon, other_user, RunStatus.QUEUED, queued_ago=50)
    mine = _run(lcb, user, RunStatus.QUEUED, queued_ago=10)
    _run(niah, owner, RunStatus.QUEUED, queue="baseline", queued_ago=40)
    _run(lcb, owner, RunStatus.QUEUED, queue="baseline", queued_ago=30)
    found = public_queue(user=user, now=T)
    (running,) = found.running
    assert running.estimate.finish == Span(0, 20, 200) and running.estimate.start == Span(0, 0, 0)
    assert [(e.queue, e.position, e.what) for e in found.waiting] == [
        ("baseline", 1, niah.name),
        ("baseline", 2, lcb.name),
        ("cpu", 1, policon.name),
        ("cpu", 2, lcb.name),
    ]
    niah_first, lcb_behind, policon_first, own = (e.estimate for e in found.waiting)
    assert policon_first.start == Span(0, 20, 200) and policon_first.finish == Span(600, 820, 1200)
    assert (policon_first.running_ahead, policon_first.queued_ahead) == (1, 0)
    assert own.start == Span(600, 820, 1200) and own.finish == Span(660, 940, 1500)
    assert (own.running_ahead, own.queued_ahead, own.baseline_ahead) == (1, 1, 0)
    assert own.starts == (T + dt.timedelta(seconds=600), T + dt.timedelta(seconds=820), T + dt.timedelta(seconds=1200))
    assert [(label, t.n) for label, t in own.basis] == [(f"{lcb.name} runs", 3), (f"{policon.name} runs", 2)]
    assert niah_first.ahead == () and niah_first.start == Span(0, 0, 0) and niah_first.finish is None
    assert lcb_behind.start is None and lcb_behind.finish is None and lcb_behind.no_history == (niah.name,)
    assert lcb_behind.baseline_ahead == 1
    # the run's own page says the same of its start
    wait = run_wait(run=mine, now=T)
    assert wait is not None and wait.seconds == own.start and wait.position == 2
    data = found.to_dict()["waiting"][3]["estimate"]
    assert data["start"]["seconds"] == {"low": 600.0, "median": 820.0, "high": 1200.0}
    assert data["finish"]["seconds"] == {"low": 660.0, "median": 940.0, "high": 1500.0}
    assert data["ahead"] == {"running": 1, "queued": 1, "baseline": 0}
    assert data["basis"][0] == {
        "of": f"{lcb.name} runs",
        "runs": 3,
        "seconds": {"low": 60.0, "median": 120.0, "high": 300.0},
    }


def test_the_queue_page_shows_the_estimates_without_javascript(client, boards, history, user, other_user):
    """The running Multi-LCB run is past the slowest Multi-LCB run (300 s), so nothing is left of it whenever
    the page is made: PoliCon starts any moment, mine in (600, 800, 1000) s and ends in (660, 920, 1300) s."""
    lcb, policon, _ = boards
    _run(lcb, other_user, RunStatus.RUNNING, queued_ago=900, started_ago=400)
    _run(policon, other_user, RunStatus.QUEUED, queued_ago=50)
    _run(lcb, user, RunStatus.QUEUED, queued_ago=10)
    page = client.get("/queue/").content.decode()
    assert "<script" not in re.search(r'<table class="board" id="waiting">.*?</table>', page, re.S).group(0)
    html = re.sub(r"\s+", " ", re.sub(r"<.*?>", " ", page))
    assert "1 running, 1 waiting in about 13 min 20 s (10 min 0 s to 16 min 40 s)" in html  # ahead of it, should start
    assert "in about 15 min 20 s (11 min 0 s to 21 min 40 s)" in html  # should finish
    assert (
        f"from {lcb.name} runs: median 2 min 0 s of the last 3; {policon.name} runs: median 13 min 20 s of the last 2"
        in html
    )
    assert (
        "1 running, 0 waiting any moment now (the work ahead has already run as long as the slowest like it)" in html
    )  # PoliCon starts
    assert (
        "any moment now (it has already run as long as the slowest like it) from Multi-LCB runs" in html
    )  # the running one
    assert "Each run ahead is expected to take what the last 20 finished runs" in html


def test_the_demos_generation_jobs_wait_behind_a_persons_on_the_gpu_queue(boards, user):
    """The demo's jobs are sent at the broker's lowest priority (queues.SITE_WORK_PRIORITY): a person's job
    queued after two of them is first in line, and they come after it, in the order they came."""
    from leaderboard.runs.models import GenerationJob, RunPhase
    from leaderboard.runs.work_kinds import DEMO_OWNER

    lcb = boards[0]
    demo = get_user_model().objects.create(username=DEMO_OWNER, is_active=False)

    def waiting(owner, queued_ago: float) -> EvaluationRun:
        run = _run(lcb, owner, RunStatus.QUEUED, queued_ago=queued_ago)
        EvaluationRun.objects.filter(pk=run.pk).update(phase=RunPhase.GENERATING)
        GenerationJob.objects.create(
            submission=run.submission, queue="gpu-local", queued_at=T - dt.timedelta(seconds=queued_ago)
        )
        run.refresh_from_db()
        return run

    first, second = waiting(demo, 300), waiting(demo, 200)
    mine = waiting(user, 10)
    wait = run_wait(run=mine, now=T)
    assert wait is not None and wait.position == 1 and wait.ahead == []
    second_wait = run_wait(run=second, now=T)
    assert second_wait is not None and second_wait.position == 3
    assert [(a.kind, a.status) for a in second_wait.ahead] == [("user", "queued"), ("baseline", "queued")]
    assert run_wait(run=first, now=T).position == 2
