"""What the benchmarks share: a fresh Postgres database per bench (with the site set up on it), the
production server (gunicorn) started on a free port and waited for, the percentile they report, and how every
quoted figure names its runs' spread (median and worst) and the machine's load."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parent.parent

SERVER = "postgres://postgres@127.0.0.1:5432"


def recreate_database(name: str) -> str:
    """Drop and create ``name`` on this machine's Postgres; returns its URL."""
    import psycopg

    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    return f"{SERVER}/{name}"


def django_bench_setup(database: str, var_dir: Path, **env: str) -> None:
    """Point the site at a fresh ``database`` (recreated), Redis db 13 and ``var_dir``, with the
    private-endpoint and submission limits a benchmark needs lifted, then migrate and load the
    sample datasets. ``env`` adds or overrides settings (environment variables)."""
    os.environ["DATABASE_URL"] = recreate_database(database)
    os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/13")
    os.environ["LEADERBOARD_VAR_DIR"] = str(var_dir)
    os.environ["LEADERBOARD_SUBMISSIONS_PER_DAY"] = "100000"
    os.environ["LEADERBOARD_ALLOW_PRIVATE_ENDPOINTS"] = "1"  # the benchmarks' servers listen on 127.0.0.1
    os.environ.setdefault("DJANGO_DEBUG", "0")
    os.environ["DJANGO_SETTINGS_MODULE"] = "leaderboard.settings"
    os.environ.update(env)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("load_samples", verbosity=0)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def gunicorn_start(
    port: int, *options: str, env: Mapping[str, str], stdout: IO[bytes] | None = None
) -> subprocess.Popen[bytes]:
    """The production server (gunicorn, the venv's) serving the site on 127.0.0.1:``port`` from the repository,
    with gunicorn's ``options`` (worker class, workers, threads, timeout), at log level warning; not waited for
    (``wait_listening``). ``stdout``: where its output goes (with stderr), inherited when None."""
    return subprocess.Popen(
        [
            str(REPO / ".venv" / "bin" / "gunicorn"),
            "leaderboard.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            *options,
            "--log-level",
            "warning",
        ],
        cwd=REPO,
        env=dict(env),
        stdout=stdout,
        stderr=subprocess.STDOUT if stdout is not None else None,
    )


def wait_listening(port: int, timeout_s: float = 60.0, what: str = "gunicorn") -> None:
    """Return once something accepts connections on 127.0.0.1:``port``; SystemExit after ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise SystemExit(f"{what} did not start") from None
            time.sleep(0.2)


@contextmanager
def gunicorn_serving(*options: str, env: Mapping[str, str], timeout_s: float = 60.0) -> Iterator[int]:
    """gunicorn (``gunicorn_start``'s ``options``) on a free port, once it listens: yields the port, and
    terminates the server on the way out."""
    port = free_port()
    server = gunicorn_start(port, *options, env=env)
    try:
        wait_listening(port, timeout_s)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


def percentile(values: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (0..1) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def load_average() -> float:
    """The 1-minute load average now (taken before each run, so that a figure says how busy the machine was)."""
    return round(os.getloadavg()[0], 2)


def median_worst(values: list[float], *, higher_is_better: bool) -> tuple[float, float]:
    """The median of the runs' figures and the worst of them (the lowest rate, or the longest time)."""
    import statistics

    return statistics.median(values), (min(values) if higher_is_better else max(values))


def spread(values: list[float], fmt: str = "{:.1f}", *, higher_is_better: bool) -> str:
    """``median (worst)`` of the runs' figures, as the results tables print them."""
    median, worst = median_worst(values, higher_is_better=higher_is_better)
    return f"{fmt.format(median)} ({fmt.format(worst)})"


def request_body(request: Any, model: str | None = None) -> dict[str, Any]:
    """The chat-completions body ``ChatClient.chat_many`` sends for an ``evaluators.core.types.ModelRequest``
    (``model`` omitted when None), for load generators that must send exactly the same requests."""
    body: dict[str, Any] = {
        "messages": request.messages,
        "temperature": request.temperature,
        "top_p": request.top_p,
        "max_tokens": request.max_tokens,
    }
    if request.n != 1:
        body["n"] = request.n
    body.update(request.extra)
    return body if model is None else {"model": model, **body}


def generation_job_seconds(*, owner: Any, model: Any, benchmark: Any, generation: dict[str, Any]) -> float:
    """Seconds for one whole GenerationJob of ``model`` on ``benchmark``, run in-process by the worker's
    own code (``leaderboard.runs.generation.worker.generation_execute``). Needs ``django_bench_setup``."""
    import time

    from leaderboard.runs import services
    from leaderboard.runs.generation.worker import generation_execute

    submission = services.submission_create_for_model(
        owner=owner, model=model, benchmarks=[benchmark], generation_settings=generation
    )
    job = services.generation_job_queue(submission=submission)
    started = time.perf_counter()
    outcome = generation_execute(job_id=job.pk)
    elapsed = time.perf_counter() - started
    if not outcome.startswith("succeeded"):
        raise SystemExit(f"the generation job did not succeed: {outcome}")
    return elapsed


def results_dir() -> Path:
    """Where a benchmark writes its figures: var/bench/ by default, so running one never rewrites the
    tracked bench/results/ that bench/README.md quotes; bench/results/ with ``--publish`` (or BENCH_PUBLISH=1)."""
    import sys

    repo = Path(__file__).resolve().parent.parent
    publish = "--publish" in sys.argv or os.environ.get("BENCH_PUBLISH", "") in {"1", "true", "yes"}
    out = repo / "bench" / "results" if publish else repo / "var" / "bench"
    out.mkdir(parents=True, exist_ok=True)
    return out


def write_results(name: str, result: dict[str, Any], lines: list[str]) -> None:
    """<name>.json (the figures) and <name>.md (the table bench/README.md quotes) in ``results_dir()``, printed too."""
    import json

    out = results_dir()
    (out / f"{name}.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / f"{name}.md").write_text("\n".join(lines))
    print("\n".join(lines))
