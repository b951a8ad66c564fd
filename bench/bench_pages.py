"""Leaderboard page latency through the production server: the Multi-LCB board (40 scored models) as a
visitor sees it (served from the page cache after its first render), the same page rendered every
time (the page cache bypassed: what every request cost before it), and the trivial /healthz view,
measured in the same run on the same server.

gunicorn (gthread, one process, one thread, so requests do not queue behind each other) on Postgres
with the cache in Redis; one client on a kept-alive connection asks the three in turn, REQUESTS times
each after a warm-up. BENCH_REPEATS runs (default 3) on one fresh database; medians per run, and the
goal (the cached page within 2x of /healthz) is judged on the median run.

Run: ``.venv/bin/python bench/bench_pages.py [--publish]``. Results: var/bench/pages.{json,md}, or
bench/results/ with --publish.
"""

from __future__ import annotations

import http.client
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import django_bench_setup, gunicorn_serving, percentile, write_results

REQUESTS = int(os.environ.get("BENCH_REQUESTS", "400"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
MODELS = 40
ENV = {"CELERY_BROKER_URL": "redis://127.0.0.1:6379/13", "DJANGO_DEBUG": "0", "LEADERBOARD_LOG_LEVEL": "WARNING"}


def scored_board() -> None:
    """MODELS models with a succeeded run each on the current Multi-LCB dataset."""
    from django.contrib.auth.models import User
    from django.db import transaction
    from django.utils import timezone

    from leaderboard.catalog.models import Benchmark
    from leaderboard.catalog.services import model_get_or_create
    from leaderboard.chains import board_rows
    from leaderboard.runs.models import EvaluationRun, RunStatus, Score, Submission

    owner = User.objects.create_user("pages", password="pages-password-long")
    benchmark = Benchmark.objects.get(slug="multi-lcb")
    dataset = benchmark.dataset_versions.get(is_current=True)
    for n in range(MODELS):
        value = 0.2 + 0.6 * n / MODELS
        with transaction.atomic():
            model = model_get_or_create(owner=owner, name=f"model-{n:02d}")
            submission = Submission.objects.create(model=model, owner=owner)
            run = EvaluationRun.objects.create(
                submission=submission,
                benchmark=benchmark,
                dataset_version=dataset,
                status=RunStatus.SUCCEEDED,
                evaluator_key=benchmark.evaluator_key,
                items_total=264,
                items_done=264,
                finished_at=timezone.now(),
            )
            Score.objects.bulk_create(
                [
                    Score(
                        run=run,
                        key=column["key"],
                        slice_key="",
                        value=value,
                        ci_low=value - 0.05,
                        ci_high=value + 0.05,
                        n=264,
                    )
                    for column in benchmark.metric_columns
                ]
            )
            board_rows.leaderboard_entry_refresh(run=run)


def session_cookie() -> str:
    """A signed-in user's session: the page cache is for visitors, so this page is rendered each time."""
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.test import Client

    client = Client()
    client.force_login(User.objects.get(username="pages"))
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def timed(conn: http.client.HTTPConnection, path: str, headers: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    conn.request("GET", path, headers=headers)
    response = conn.getresponse()
    response.read()
    elapsed = time.perf_counter() - started
    if response.status != 200:
        raise SystemExit(f"{path}: {response.status}")
    return elapsed, response.getheader("X-Page-Cache") or ""


def run_once(port: int, cookie: str) -> dict:
    load = os.getloadavg()[0]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    kinds = {
        "healthz": ("/healthz", {}),
        "cached": ("/benchmarks/multi-lcb/", {}),
        "rendered": ("/benchmarks/multi-lcb/", {"Cookie": cookie}),
    }
    for path, headers in kinds.values():  # warm-up: imports, connections, the first render into the cache
        for _ in range(10):
            timed(conn, path, {"Host": "127.0.0.1", **headers})
    samples: dict[str, list[float]] = {k: [] for k in kinds}
    hits = 0
    for _ in range(REQUESTS):
        for kind, (path, headers) in kinds.items():
            elapsed, cache_state = timed(conn, path, {"Host": "127.0.0.1", **headers})
            samples[kind].append(elapsed * 1000)
            hits += kind == "cached" and cache_state == "hit"
    conn.close()
    medians = {k: statistics.median(v) for k, v in samples.items()}
    return {
        "load_average_before": load,
        "median_ms": medians,
        "p95_ms": {k: percentile(v, 0.95) for k, v in samples.items()},
        "worst_ms": {k: max(v) for k, v in samples.items()},
        "cache_hits": hits,
        "cached_vs_healthz": medians["cached"] / medians["healthz"],
        "rendered_vs_cached": medians["rendered"] / medians["cached"],
    }


def main() -> None:
    django_bench_setup("leaderboard_bench_pages", REPO / "var" / "bench-pages", **ENV)
    scored_board()
    cookie = session_cookie()
    with gunicorn_serving(
        "--worker-class", "gthread", "--workers", "1", "--threads", "1", env={**os.environ, **ENV}
    ) as port:
        runs = [run_once(port, cookie) for _ in range(REPEATS)]
    median = sorted(runs, key=lambda r: r["cached_vs_healthz"])[len(runs) // 2]
    result = {
        "server": "gunicorn 23.0.0 gthread 1x1",
        "requests_per_kind": REQUESTS,
        "models_on_board": MODELS,
        "runs": runs,
        "median_run": runs.index(median),
        "cached_vs_healthz": median["cached_vs_healthz"],
        "goal": "cached leaderboard page median <= 2x /healthz median",
        "goal_met": median["cached_vs_healthz"] <= 2.0,
    }
    lines = [
        "# Leaderboard page latency through the production server",
        "",
        f"{result['server']} on Postgres, cache in Redis; the Multi-LCB board with {MODELS} scored models; one client "
        f"on a kept-alive "
        f"connection, {REQUESTS} requests of each kind per run, interleaved, after a warm-up; {REPEATS} runs; "
        f"{os.cpu_count()} CPUs shared "
        "with the client. Command: `.venv/bin/python bench/bench_pages.py`.",
        "",
        "| run | load | /healthz median (worst) ms | cached page median (worst) ms | rendered page median (worst) ms "
        "| cached / healthz | rendered / cached |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for n, r in enumerate(runs):
        m, w = r["median_ms"], r["worst_ms"]
        lines.append(
            f"| {n + 1}{' (median)' if r is median else ''} | {r['load_average_before']:.1f} | {m['healthz']:.2f} "
            f"({w['healthz']:.1f}) | "
            f"{m['cached']:.2f} ({w['cached']:.1f}) | {m['rendered']:.1f} ({w['rendered']:.1f}) | "
            f"{r['cached_vs_healthz']:.2f} | "
            f"{r['rendered_vs_cached']:.0f}x |"
        )
    lines += [
        "",
        f"Cached page against /healthz on the median run: {result['cached_vs_healthz']:.2f}x "
        f"(goal at most 2x: {'met' if result['goal_met'] else 'NOT met'}).",
        "",
    ]
    write_results("pages", result, lines)


if __name__ == "__main__":
    main()
