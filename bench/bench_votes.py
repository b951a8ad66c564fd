"""Arena vote acceptance (a benchmark, not a test): votes per second the site accepts on Postgres,
with median and p95 latency, against the trivial /healthz view served the same way in the same run.

The site is served by gunicorn (gthread workers: several processes, several threads each) and driven
by concurrent HTTP clients, each with its own session and CSRF token, each voting on its own
battles. Battles are prepared beforehand with complete answers, so only vote acceptance is measured
(checks, the vote, its exclusions, locking the battle and queueing the debounced ratings task).

Run: ``.venv/bin/python bench/bench_votes.py`` (needs this machine's Postgres and Redis and
gunicorn==23.0.0 in the venv). BENCH_REPEATS runs (default 3), each on a fresh database and server;
the goal is judged on the median ratio. Results: bench/results/votes.{json,md}.
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import gunicorn_serving, percentile, recreate_database, results_dir

BENCH_DB = "leaderboard_bench_votes"
ENV = {
    "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{BENCH_DB}",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/12",
    "LEADERBOARD_VAR_DIR": str(REPO / "var" / "bench-votes"),
    "DJANGO_DEBUG": "0",
    "DJANGO_SETTINGS_MODULE": "leaderboard.settings",
    "LEADERBOARD_ARENA_ACTIONS_PER_MINUTE": "1000000",
    "LEADERBOARD_ARENA_VOTES_PER_DAY": "1000000",
    "LEADERBOARD_LOG_LEVEL": "WARNING",
}
os.environ.update(ENV)
CLIENTS = int(os.environ.get("BENCH_CLIENTS", "16"))
VOTES_PER_CLIENT = int(os.environ.get("BENCH_VOTES_PER_CLIENT", "100"))
#: trivial requests per client: enough that the phase lasts seconds (a phase of a fraction of a second
#: on a shared machine measures the neighbours' scheduling more than the site)
TRIVIAL_PER_CLIENT = int(os.environ.get("BENCH_TRIVIAL_PER_CLIENT", "200"))
#: votes per client before measuring, so every worker has imported the vote path and every thread holds
#: its database connection (steady state, like the trivial view's warm-up); not counted in the results
WARMUP_VOTES = int(os.environ.get("BENCH_WARMUP_VOTES", "5"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
GUNICORN = [
    "--workers",
    os.environ.get("BENCH_WORKERS", "2"),
    "--threads",
    os.environ.get("BENCH_THREADS", "8"),
    "--worker-class",
    "gthread",
]


def prepare() -> list[dict]:
    """One session per client (with a CSRF secret) and WARMUP_VOTES + VOTES_PER_CLIENT finished battles each."""
    import django

    django.setup()
    from django.contrib.sessions.backends.db import SessionStore
    from django.core.management import call_command
    from django.middleware.csrf import _get_new_csrf_string

    from leaderboard.arena.identity import salted_hash
    from leaderboard.arena.models import ArenaModel, Battle, Turn

    call_command("migrate", verbosity=0)
    a = ArenaModel.objects.create(name="bench-a", organization="bench")
    b = ArenaModel.objects.create(name="bench-b", organization="bench")
    answer = {
        "text": "Install it with apt install [1].",
        "sources": [{"number": 1, "url": "https://www.debian.org/doc/", "title": "", "snippet": ""}],
        "searches": [],
        "citation_style": "standardized",
        "finish_reason": "stop",
        "latency_s": 0.1,
        "usage": {},
        "error": "",
    }
    clients = []
    for _ in range(CLIENTS):
        session = SessionStore()
        session["arena"] = True
        session.create()
        voter = salted_hash(f"session:{session.session_key}")
        battles = Battle.objects.bulk_create(
            [
                Battle(model_a=a, model_b=b, propensity=1.0, voter_hash=voter)
                for _ in range(WARMUP_VOTES + VOTES_PER_CLIENT)
            ]
        )
        Turn.objects.bulk_create(
            [
                Turn(
                    battle=bt,
                    index=0,
                    prompt="How do I install a package?",
                    text_a=answer["text"],
                    text_b=answer["text"],
                    answer_a=answer,
                    answer_b=answer,
                    status_a="complete",
                    status_b="complete",
                )
                for bt in battles
            ]
        )
        ids = [bt.public_id for bt in battles]
        clients.append(
            {
                "session": session.session_key,
                "csrf": _get_new_csrf_string(),
                "warmup": ids[:WARMUP_VOTES],
                "battles": ids[WARMUP_VOTES:],
            }
        )
    return clients


def drive(port: int, clients: list[dict], request_for) -> dict:
    """Every client in its own thread, one keep-alive connection each, requests back to back."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()

    def run(client: dict) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        mine = []
        for method, path, body, headers, expected in request_for(client):
            start = time.perf_counter()
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            mine.append((time.perf_counter() - start) * 1000)
            if response.status != expected:
                with lock:
                    errors.append(f"{method} {path}: {response.status}")
        conn.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=run, args=(c,)) for c in clients]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return {
        "requests": len(latencies),
        "per_second": len(latencies) / wall,
        "median_ms": statistics.median(latencies),
        "p95_ms": percentile(latencies, 0.95),
        "errors": len(errors),
        "first_errors": errors[:5],
    }


def votes_for(client: dict, key: str = "battles"):
    cookie = f"sessionid={client['session']}; csrftoken={client['csrf']}"
    for public_id in client[key]:
        yield (
            "POST",
            f"/arena/b/{public_id}/vote/",
            "winner=model_a",
            {
                "Cookie": cookie,
                "X-CSRFToken": client["csrf"],
                "Content-Type": "application/x-www-form-urlencoded",
                "Referer": "http://127.0.0.1/",
                "Host": "127.0.0.1",
            },
            302,
        )


def trivial_for(client: dict):
    for _ in range(TRIVIAL_PER_CLIENT):
        yield ("GET", "/healthz", None, {"Host": "127.0.0.1"}, 200)


def run_once() -> dict:
    """One measurement on a fresh database and a fresh server: warm-up, trivial view, votes."""
    load_before = os.getloadavg()
    if "django" in sys.modules and sys.modules["django"].apps.apps.ready:
        from django.db import connections

        connections.close_all()  # the previous run's connection to the database about to be dropped
    recreate_database(BENCH_DB)
    clients = prepare()
    with gunicorn_serving(*GUNICORN, env={**os.environ, **ENV}) as port:
        drive(
            port, clients, lambda c: [*list(trivial_for(c))[:5], *votes_for(c, "warmup")]
        )  # warm both workers and their threads
        trivial = drive(port, clients, trivial_for)
        votes = drive(port, clients, votes_for)
    from leaderboard.arena.models import Vote

    stored = Vote.objects.count()
    import redis

    redis.Redis.from_url(ENV["CELERY_BROKER_URL"]).flushdb()  # the queued ratings tasks nobody consumes here
    return {
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "trivial_view": trivial,
        "votes": votes,
        "votes_stored": stored,
        "votes_expected": CLIENTS * (WARMUP_VOTES + VOTES_PER_CLIENT),
        "throughput_ratio": votes["per_second"] / trivial["per_second"],
    }


def main() -> None:
    runs = [run_once() for _ in range(REPEATS)]
    median = sorted(runs, key=lambda r: r["throughput_ratio"])[len(runs) // 2]
    results = {
        "server": f"gunicorn 23.0.0 {' '.join(GUNICORN)}",
        "clients": CLIENTS,
        "votes_per_client": VOTES_PER_CLIENT,
        "trivial_requests_per_client": TRIVIAL_PER_CLIENT,
        "warmup_votes_per_client": WARMUP_VOTES,
        "cpus": os.cpu_count(),
        "runs": runs,
        "median_run": runs.index(median),
        "throughput_ratio": median["throughput_ratio"],
        "goal": "votes/s >= 0.5 x trivial view's requests/s (median of the runs)",
    }
    results["goal_met"] = results["throughput_ratio"] >= 0.5 and all(
        r["votes"]["errors"] == 0 and r["votes_stored"] == r["votes_expected"] for r in runs
    )
    out = results_dir()
    out.mkdir(parents=True, exist_ok=True)
    (out / "votes.json").write_text(json.dumps(results, indent=1) + "\n")
    rows = "".join(
        f"| {n + 1}{' (median)' if r is median else ''} | {r['load_average_before'][0]:.1f} | "
        f"{r['trivial_view']['per_second']:.0f} | "
        f"{r['trivial_view']['p95_ms']:.1f} | {r['votes']['per_second']:.0f} | {r['votes']['median_ms']:.1f} | "
        f"{r['votes']['p95_ms']:.1f} | "
        f"{r['votes']['errors']} | {r['votes_stored']} | {r['throughput_ratio']:.2f} |\n"
        for n, r in enumerate(runs)
    )
    (out / "votes.md").write_text(
        "# Arena vote acceptance\n\n"
        f"Served by {results['server']} on Postgres, {CLIENTS} concurrent clients (own session and CSRF token each), "
        f"{CLIENTS * TRIVIAL_PER_CLIENT} trivial requests then {CLIENTS * VOTES_PER_CLIENT} votes per run on prepared "
        f"battles whose answers were complete (after {WARMUP_VOTES} warm-up votes "
        f"per client); "
        f"{os.cpu_count()} CPUs shared with the clients and whatever else ran (load average at the start of each run "
        f"below). "
        f"{REPEATS} runs, each on a fresh database and server.\n\n"
        "| run | load | trivial req/s | trivial p95 ms | votes/s | vote median ms | vote p95 ms | errors | votes "
        "stored | ratio |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        + rows
        + f"\nMedian throughput ratio votes / trivial: {results['throughput_ratio']:.2f} "
        f"(goal at least 0.5: {'met' if results['goal_met'] else 'NOT met'}).\n"
    )
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
