"""`make run` stops when told, in every phase: SIGTERM to ``scripts/run-embedded`` alone (`kill PID`; its children are
not signalled, so the script must stop them all: a worker told to stop waits for its running tasks, and its pool's
children are not told) while it starts (migrating), while a worker scores a run, while it installs behind the site
(the judge, the toolchains, the search index), and once idle; afterwards no process it started is left: not a
worker in a warm shutdown, not a pool's child, not the demo judge's vLLM server (in its own process group). A process
counts as the run's when its environment holds this test's mark (every child inherits it, model servers too; vLLM's
engine process, which renames itself over its environment, is looked for as an orphan). The phases share one var/
(its first start migrates it and imports the samples; the later ones reuse it), and the demo judge's installed
weights, so nothing is installed again."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.config.test_make_run import _free_pair
from tests.conftest import REPO

pytestmark = [pytest.mark.vllm, pytest.mark.timeout(1800)]

MARK = "LEADERBOARD_TEST_STOP_MARK"
#: the longest wait for a phase to be reached (a loaded 2-core machine), and for the script to end after SIGTERM
#: (its own stop sends SIGKILL to what is left after LEADERBOARD_STOP_GRACE_S, 7 s by default)
REACH_S, STOP_S = 15 * 60, 30


def _marked(mark: str) -> dict[int, str]:
    """The live processes (zombies aside) whose environment holds ``mark``, and their children (vLLM's engine process
    renames itself over its environment): pid -> command line."""
    found, parents = {}, {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            marked = f"{MARK}={mark}".encode() in (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if stat[0] in ("Z", "X"):
            continue
        parents[int(entry.name)] = (int(stat[1]), command)
        if marked:
            found[int(entry.name)] = command
    found.update({pid: command for pid, (parent, command) in parents.items() if parent in found})
    return found


def _embedded_env(var: Path) -> dict[str, str]:
    """This environment as `make run` gets it from a newcomer's shell (no services), on ``var``."""
    services = {
        "DATABASE_URL",
        "CELERY_BROKER_URL",
        "LEADERBOARD_CACHE_URL",
        "LEADERBOARD_JUDGES",
        "LEADERBOARD_EVALUATOR_SETTINGS",
        "DJANGO_SETTINGS_MODULE",
    }
    env = {k: v for k, v in os.environ.items() if k not in services and not k.startswith(("S3_", "AWS_"))}
    return {**env, "LEADERBOARD_VAR_DIR": str(var)}


def _orphan_engines() -> set[int]:
    """vLLM's engine processes whose parent is gone (they rename themselves over their environment, so no mark is
    read from them): one left by a stopped judge would be among these."""
    found = set()
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if not (entry / "cmdline").read_bytes().startswith(b"VLLM::EngineCore"):
                continue
            stat = (entry / "stat").read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        if stat[0] not in ("Z", "X") and stat[1] == "1":
            found.add(int(entry.name))
    return found


class Run:
    """One `make run` (scripts/run-embedded) on ``var``, its output collected line by line."""

    def __init__(self, var: Path) -> None:
        self.var, self.mark, self.port = var, uuid.uuid4().hex, _free_pair()
        env = {**_embedded_env(var), MARK: self.mark}
        self.lines: list[str] = []
        self.orphans_before = _orphan_engines()
        self.process = subprocess.Popen(
            ["scripts/run-embedded", str(self.port)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def output(self) -> str:
        return "\n".join(self.lines[-60:])

    def reach(self, what: str, reached: Callable[[], bool]) -> None:
        deadline = time.monotonic() + REACH_S
        while not reached():
            assert self.process.poll() is None, f"run-embedded exited before {what}:\n{self.output()}"
            assert time.monotonic() < deadline, f"{what} not reached:\n{self.output()}"
            time.sleep(0.2)

    def header(self, name: str) -> bool:
        return any(line.startswith("== [") and f"] {name}" in line for line in self.lines)

    def stop(self) -> list[str]:
        """SIGTERM to the script alone (`kill PID`: its children are not told; the script must stop them all); the
        processes of this run still alive once the script has ended."""
        os.kill(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired as exc:
            left = _marked(self.mark)
            self.kill()
            raise AssertionError(
                f"run-embedded still running {STOP_S} s after SIGTERM; its processes: {left}\n{self.output()}"
            ) from exc
        self.reader.join(timeout=10)
        engines = _orphan_engines() - self.orphans_before
        left = sorted(_marked(self.mark).values()) + [f"vLLM engine {pid}" for pid in engines]
        self.kill()
        return left

    def kill(self) -> None:
        for pid in _marked(self.mark):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def _count(var: Path, sql: str) -> int:
    try:
        with sqlite3.connect(f"file:{var / 'leaderboard.sqlite3'}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute(sql).fetchone()[0])
    except sqlite3.Error:  # not migrated yet, or locked for a moment
        return 0


@pytest.fixture(scope="module")
def var(tmp_path_factory: pytest.TempPathFactory) -> Path:
    judge = REPO / "var" / "models" / "smollm2-135m-instruct"
    assert (judge / "config.json").is_file(), "run scripts/install-demo-judge (make test does)"
    var = tmp_path_factory.mktemp("make-run-stop") / "var"
    (var / "models").mkdir(parents=True)
    (var / "models" / judge.name).symlink_to(judge.resolve())
    return var


@contextmanager
def started(var: Path) -> Iterator[Run]:
    """A `make run` on ``var``; whatever the test leaves of it (an assertion, an interrupt) is killed on the way out."""
    run = Run(var)
    try:
        yield run
    finally:
        run.kill()


def _stopped(run: Run, phase: str) -> None:
    left = run.stop()
    assert left == [], f"SIGTERM during {phase}: processes left after run-embedded ended: {left}\n{run.output()}"


# In this order: the first start migrates the fresh var/ (stopped while migrating); the second imports the samples and
# queues their baselines, and is stopped once one is being scored (a judged board's, once the judge answers): a
# filesystem broker's message that a killed worker had taken is not redelivered (the reaper sends the run again after
# 15 min), so no later start is asked to score; the third is stopped while the installers check what is installed,
# the fourth once everything is ready and nothing is left to do.
def test_sigterm_while_starting_stops_everything(var: Path) -> None:
    with started(var) as run:
        run.reach("the database phase", lambda: run.header("database"))
        _stopped(run, "start-up (migrating)")


def test_sigterm_while_scoring_stops_everything(var: Path) -> None:
    with started(var) as run:
        run.reach("the workers", lambda: run.header("workers ready"))
        running = "SELECT count(*) FROM submissions_evaluationrun WHERE status = 'running'"
        run.reach("a run being scored", lambda: _count(var, running) > 0)
        _stopped(run, "scoring")


def test_sigterm_while_installing_behind_the_site_stops_everything(var: Path) -> None:
    with started(var) as run:
        run.reach("the install phase", lambda: run.header("behind the site"))
        # the installers at work (they check what is installed, then the judge's server loads)
        run.reach(
            "an installer running",
            lambda: any("install-" in c or "build-search-index" in c for c in _marked(run.mark).values()),
        )
        _stopped(run, "the install phase")


def test_sigterm_when_idle_stops_everything(var: Path) -> None:
    # nothing left to do: the queued work of the earlier starts is cancelled (the samples' baselines are not queued
    # again: they are submitted already)
    subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "from leaderboard.runs.models import EvaluationRun, GenerationJob\n"
            "for model in (EvaluationRun, GenerationJob):\n"
            "    model.objects.filter(status__in=['queued', 'running']).update(status='cancelled')",
        ],
        cwd=REPO,
        env=_embedded_env(var),
        check=True,
    )
    with started(var) as run:
        ready = ("workers ready", "judge ready", "search index ready")
        run.reach("everything ready", lambda: all(run.header(name) for name in ready))
        assert _count(var, "SELECT count(*) FROM submissions_evaluationrun WHERE status IN ('queued', 'running')") == 0
        _stopped(run, "idle")
