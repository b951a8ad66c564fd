"""What `make run` installs behind the site, on every page: the phases recorded by scripts/run-embedded
(``python -m leaderboard.setup_status``) are shown while they are not ready, with what waits for them, and
gone once they are; a cached page never shows a state that has changed since."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from leaderboard.setup_status import record, setup_notice
from tests.conftest import REPO
from tests.support.factories import run_make


def test_the_script_records_phases_and_refuses_unknown_ones(tmp_path: Path):
    path = tmp_path / "setup-status.json"
    for phase, state in (("judge", "installing"), ("toolchains", "ready")):
        subprocess.run(
            [sys.executable, "-m", "leaderboard.setup_status", str(path), phase, state], cwd=REPO, check=True
        )
    assert [(p.key, p.state) for p in setup_notice(path)] == [("judge", "installing")]
    bad = subprocess.run(
        [sys.executable, "-m", "leaderboard.setup_status", str(path), "judge", "done"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0 and "state: unknown 'done'" in bad.stderr
    record(path, "judge", "installing", now=1000.0)
    assert round(setup_notice(path, now=1000.0 + 150)[0].minutes, 1) == 2.5
    assert setup_notice(tmp_path / "absent.json") == []  # a deployment records nothing and shows nothing


@pytest.mark.django_db
def test_every_page_says_what_is_still_installing_until_it_is_ready(client, settings, tmp_path: Path):
    from leaderboard.catalog.services import benchmarks_sync

    benchmarks_sync()
    settings.VAR_DIR = tmp_path
    path = tmp_path / "setup-status.json"
    assert "Still setting up" not in client.get("/").content.decode()
    record(path, "judge", "installing")
    record(path, "toolchains", "ready")
    for url in ("/", "/benchmarks/policon/", "/queue/"):
        page = client.get(url).content.decode()
        assert "Still setting up" in page and "The demo judge" in page and "PoliCon" in page, url
        assert (
            "The sandbox&#x27;s toolchains" not in page and "The sandbox's toolchains" not in page
        )  # ready: not listed
    record(path, "judge", "ready")
    assert "Still setting up" not in client.get("/").content.decode()  # the cached home page is not served again


@pytest.mark.django_db
def test_a_waiting_run_says_which_setup_it_waits_for_and_how_long_that_took_last(
    client, settings, tmp_path: Path, multi_lcb, user
):
    """Before the workers exist, a queued run's page does not say only "position 1, nothing ahead": it names what it
    waits for, for how long so far, and how long that took at the last start; a judged board's run names the judge
    too, a judge-free board's (Multi-LCB) does not."""
    import re

    from leaderboard.catalog.models import Benchmark, DatasetVersion
    from leaderboard.runs.models import RunStatus, Submission

    settings.VAR_DIR = tmp_path
    path = tmp_path / "setup-status.json"
    now = time.time()
    # the last start: the toolchains took 300 s (5 min) and the judge 120 s (2 min)
    record(path, "toolchains", "installing", now=now - 10_000)
    record(path, "toolchains", "ready", now=now - 10_000 + 300)
    record(path, "judge", "installing", now=now - 10_000)
    record(path, "judge", "ready", now=now - 10_000 + 120)
    # this start: the toolchains installing for 3 minutes, the judge for 2, no worker yet
    path.unlink()
    record(path, "toolchains", "installing", now=now - 180)
    record(path, "judge", "installing", now=now - 120)
    record(path, "workers", "waiting", now=now - 200)
    policon = Benchmark.objects.get(slug="policon")
    DatasetVersion.objects.create(
        benchmark=policon, tag="t", content_hash="0" * 64, storage_key="x", item_count=10, is_current=True
    )

    def queued(benchmark: Benchmark, name: str) -> Submission:
        return run_make(benchmark, user, name, status=RunStatus.QUEUED, queue="cpu").submission

    lcb_submission, policon_submission = queued(multi_lcb, "coder"), queued(policon, "voter")
    client.force_login(user)
    lcb = re.sub(r"\s+", " ", client.get(f"/submissions/{lcb_submission.pk}/").content.decode())
    assert (
        "No worker scores runs yet: the scoring workers start once the sandbox's toolchains are installed "
        "(waiting for 3 min)." in lcb.replace("&#x27;", "'")
    ), lcb
    assert (
        "The sandbox's toolchains are being set up (installing for 3 min; it took about 5 min at the last start)."
        in (lcb.replace("&#x27;", "'"))
    )
    assert "It starts as soon as a worker takes it" not in lcb  # no worker exists to take it
    assert "its runs are scored once it answers" not in lcb  # Multi-LCB has no judge to wait for
    judged = re.sub(r"\s+", " ", client.get(f"/submissions/{policon_submission.pk}/").content.decode())
    assert (
        "This board's judge, the demo judge, is being set up; its runs are scored once it answers (installing for 2 "
        "min; "
        "it took about 2 min at the last start)." in judged.replace("&#x27;", "'")
    ), judged


def test_phases_recorded_at_once_are_all_kept(tmp_path: Path):
    """The judge, the toolchains and the search index are installed side by side and record their states at the same
    moments: no state may be lost (a lost "judge ready" would hold the judged boards' runs back for good)."""
    import threading

    path = tmp_path / "setup-status.json"
    for round_ in range(20):
        start = threading.Barrier(4)

        def write(phase: str) -> None:
            start.wait()  # noqa: B023 (called in this iteration)
            for state in ("installing", "ready"):
                record(path, phase, state)

        threads = [
            threading.Thread(target=write, args=(phase,)) for phase in ("judge", "toolchains", "search", "workers")
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert setup_notice(path) == [], f"round {round_}: states lost: {setup_notice(path)}"
        path.unlink()


@pytest.mark.django_db
def test_a_code_assisted_run_waits_for_the_analysis_libraries_and_a_multi_lcb_run_does_not(
    settings, tmp_path: Path, multi_lcb, user
):
    """`make run` starts the scoring workers once the twelve languages are in and installs the data sandbox's analysis
    libraries behind them: meanwhile a CausalPitfalls code-assisted run (its programs import pandas and SciPy) is put
    back on its queue, a Multi-LCB run (compiled programs, no analysis library) is scored; once they are in, neither
    waits. Its page names what it waits for."""
    from leaderboard.catalog.models import Benchmark, DatasetVersion
    from leaderboard.chains.execution import run_waits_for
    from leaderboard.runs.eta import run_wait
    from leaderboard.runs.models import RunStatus

    settings.VAR_DIR = tmp_path
    path = tmp_path / "setup-status.json"
    for phase in ("toolchains", "judge", "workers"):
        record(path, phase, "ready")
    record(path, "analysis", "installing")
    code = Benchmark.objects.get(slug="causal-pitfalls-code")
    DatasetVersion.objects.create(
        benchmark=code, tag="t", content_hash="0" * 64, storage_key="x", item_count=10, is_current=True
    )
    code_run = run_make(code, user, "analyst", status=RunStatus.QUEUED, queue="cpu")
    lcb_run = run_make(multi_lcb, user, "coder", status=RunStatus.QUEUED, queue="cpu")
    assert run_waits_for(code_run.pk) and not run_waits_for(lcb_run.pk)
    code_wait, lcb_wait = run_wait(run=code_run), run_wait(run=lcb_run)
    assert code_wait is not None and [phase.key for phase in code_wait.setup] == ["analysis"]
    assert lcb_wait is None or not lcb_wait.setup
    record(path, "analysis", "ready")
    assert not run_waits_for(code_run.pk) and not run_waits_for(lcb_run.pk)
