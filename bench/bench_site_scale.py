"""Every public page and API at internet scale (issue 47 point 4): p50/p95 through the production server
against /healthz in the same run, and each page's query count, at a data size given by ``manage.py
seed_scale``'s options (full: 5M votes over 200 contestants, 1,000 models, 10,000 runs, 100,000 item
results), so that two sizes show which counts grow with the data.

One database per size (``--database``; recreated, migrated, the samples loaded, then seeded, unless
``--reuse`` names one seeded before). A Multi-LCB snapshot is frozen if there is none. Then:

- query counts: each page asked once in this process by Django's test client, signed in (so that the
  page cache, which serves visitors, is bypassed and every query the page makes is counted), after one
  warm-up request (the first request's time is kept as ``first_ms``: a cold page, its caches empty);
- latency: gunicorn (gthread, one process, one thread) on the same database, the cache in Redis; one
  client on a kept-alive connection asks every page in turn, signed in (each request renders), with
  /healthz between pages; ``--requests`` rounds after a warm-up round; p50 and p95 per page. The 1-minute
  load average is taken before and after.

Run: ``.venv/bin/python bench/bench_site_scale.py --label full [--reuse DB] [--requests 20] [--seed-args "..."]``,
then ``--report small,full`` to write the table of both sizes (``site_scale.md``). Results in var/bench/, or
bench/results/ with --publish.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import SERVER, gunicorn_serving, load_average, percentile, results_dir, write_results

#: the broker and cache: Redis db 13 unless BENCH_REDIS_URL names another (a bench beside others on one Redis)
ENV = {
    "CELERY_BROKER_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/13"),
    "DJANGO_DEBUG": "0",
    "LEADERBOARD_LOG_LEVEL": "WARNING",
}
BENCH_USER = "scale-bench"
#: requests of each page whose CPU time in this process is taken (the median reported)
SERVER_REPEATS = 3
GOAL_MS = 300.0


def pages() -> list[tuple[str, str]]:
    """(name, path) of every public page and API measured; ids from the seeded data."""
    from leaderboard.history.models import Snapshot
    from leaderboard.runs.models import EvaluationRun, ItemResult

    snapshot = Snapshot.objects.filter(benchmark__slug="multi-lcb").order_by("-pk").first()
    run = EvaluationRun.objects.filter(pk=ItemResult.objects.order_by("-run_id").values("run_id")[:1]).first()
    a, b = "scale-model-00000", "scale-model-00001"
    found = [
        ("home", "/"),
        ("board", "/benchmarks/multi-lcb/"),
        ("board page 2", "/benchmarks/multi-lcb/?page=2"),
        ("board sorted by a language", "/benchmarks/multi-lcb/?sort=pass%401%7Clanguage%3Dpython"),
        ("board language filter", "/benchmarks/multi-lcb/?language=python"),
        ("board difficulty filter", "/benchmarks/multi-lcb/?difficulty=hard"),
        ("board date window", "/benchmarks/multi-lcb/?from=2024-01-01&to=2024-12-31"),
        ("board PoliCon", "/benchmarks/policon/"),
        ("board CSV download", "/benchmarks/multi-lcb/?format=csv"),
        ("models index", "/models/"),
        ("models index by board", "/models/?sort=multi-lcb"),
        ("profile", f"/models/{a}/"),
        ("compare", f"/compare/?a={a}&b={b}"),
        ("arena leaderboard", "/arena/leaderboard/"),
        ("arena leaderboard intent", "/arena/leaderboard/?intent=Analysis"),
        ("arena leaderboard language", "/arena/leaderboard/?language=en"),
        ("arena leaderboard chat", "/arena/leaderboard/?setting=chat"),
        ("arena findings", "/arena/findings/"),
        ("arena transparency", "/arena/transparency/"),
        ("arena agreement", "/arena/agreement/"),
        ("queue", "/queue/"),
        ("snapshots", "/benchmarks/multi-lcb/snapshots/"),
        ("changelog", "/benchmarks/multi-lcb/changelog/"),
        ("api benchmarks", "/api/benchmarks/"),
        ("api leaderboard", "/api/benchmarks/multi-lcb/leaderboard/"),
        ("api leaderboard date window", "/api/benchmarks/multi-lcb/leaderboard/?from=2024-01-01&to=2024-12-31"),
        ("api models", "/api/models/"),
        ("api models index", "/api/models/index/"),
        ("api profile", f"/api/models/{a}/profile/"),
        ("api compare", f"/api/models/compare/?a={a}&b={b}"),
        ("api runs", "/api/runs/"),
        ("api arena ratings", "/api/arena/ratings/"),
        ("api arena settings", "/api/arena/ratings/settings/"),
        ("api arena head-to-head", "/api/arena/ratings/head-to-head/"),
        ("api arena transparency", "/api/arena/transparency/"),
        ("api arena distribution", "/api/arena/distribution/"),
        ("api arena agreement", "/api/arena/agreement/"),
        ("api snapshots", "/api/benchmarks/multi-lcb/snapshots/"),
        ("api changelog", "/api/benchmarks/multi-lcb/changelog/"),
        ("queue json", "/queue/?format=json"),
    ]
    if snapshot is not None:
        found += [
            ("snapshot", f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/"),
            ("api snapshot", f"/api/benchmarks/multi-lcb/snapshots/{snapshot.pk}/"),
        ]
    if run is not None:
        found += [("run items", f"/runs/{run.pk}/items/"), ("api run", f"/api/runs/{run.pk}/")]
    return found


def setup(database: str, reuse: bool, seed_args: list[str], ratings_days: float, warm: bool = True) -> dict[str, Any]:
    """Point Django at ``database`` (seeding it first unless ``reuse``), fit the arena's ratings if it has none
    (``ratings_days`` > 0: on the votes of the seeded year's first days only, a cut that many days in) and keep
    the published figures (``arena.published``, as the periodic pass does); returns what was done and how long it
    took."""
    os.environ.update(ENV)
    os.environ["DATABASE_URL"] = f"{SERVER}/{database}"
    os.environ["LEADERBOARD_VAR_DIR"] = str(REPO / "var" / f"bench-{database}")
    os.environ["DJANGO_SETTINGS_MODULE"] = "leaderboard.settings"
    seeded: dict[str, Any] = {"reused": reuse}
    if not reuse:
        from bench.common import recreate_database

        recreate_database(database)
    import django

    django.setup()
    from django.core.management import call_command

    if not reuse:
        call_command("migrate", verbosity=0)
        call_command("load_samples", verbosity=0)
        started, load = time.perf_counter(), load_average()
        call_command("seed_scale", *seed_args)
        seeded.update(seconds=round(time.perf_counter() - started, 1), load_before=load, args=seed_args)
    from django.contrib.auth.models import User

    from leaderboard.catalog.models import Benchmark
    from leaderboard.history.models import Snapshot
    from leaderboard.history.services import snapshot_freeze

    User.objects.filter(username=BENCH_USER).exists() or User.objects.create_user(
        BENCH_USER, password="scale-bench-password"
    )
    if not Snapshot.objects.filter(benchmark__slug="multi-lcb").exists():
        snapshot_freeze(benchmark=Benchmark.objects.get(slug="multi-lcb"), reason="bench: the board at scale")
    from leaderboard.arena.models import RatingSnapshot, Vote
    from leaderboard.arena.published import published_warm
    from leaderboard.arena.services import ratings_compute

    if not RatingSnapshot.objects.exists() and Vote.objects.exists():
        now = None
        if ratings_days > 0:
            first = Vote.objects.order_by("created_at").values_list("created_at", flat=True).first()
            now = first + dt.timedelta(
                days=ratings_days, seconds=2 * int(os.environ.get("LEADERBOARD_ARENA_PUBLIC_DELAY_SECONDS", "3600"))
            )
        started, load = time.perf_counter(), load_average()
        written = ratings_compute(force=True, now=now)
        seeded["ratings"] = {
            "snapshots": written,
            "seconds": round(time.perf_counter() - started, 1),
            "load_before": load,
            "days": ratings_days,
            "votes_fitted": RatingSnapshot.objects.filter(filter_key="", kind="raw")
            .values_list("n_votes", flat=True)
            .first(),
        }
        print(f"ratings: {seeded['ratings']}", flush=True)
    started, load = time.perf_counter(), load_average()
    if warm:
        published_warm()
    seeded["published_warm"] = {
        "seconds": round(time.perf_counter() - started, 1) if warm else None,
        "load_before": load,
    }
    print(f"published figures kept: {seeded['published_warm']}", flush=True)
    return seeded


def sizes() -> dict[str, int]:
    """The seeded tables' row counts."""
    from django.db import connection

    tables = {
        "votes": "arena_vote",
        "battles": "arena_battle",
        "arena_models": "arena_arenamodel",
        "models": "catalog_model",
        "runs": "submissions_evaluationrun",
        "scores": "submissions_score",
        "item_results": "submissions_itemresult",
        "leaderboard_rows": "submissions_leaderboardentry",
        "rating_snapshots": "arena_ratingsnapshot",
    }
    with connection.cursor() as cursor:
        found = {}
        for name, table in tables.items():
            cursor.execute(f"SELECT COUNT(*) FROM {table}")
            found[name] = int(cursor.fetchone()[0])
    return found


def query_counts(found: list[tuple[str, str]]) -> dict[str, dict[str, Any]]:
    """Per page: the first request's time (cold), then the queries and status of a second request."""
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    client.force_login(User.objects.get(username=BENCH_USER))
    out = {}
    for name, path in found:
        started = time.perf_counter()
        first = client.get(path)
        first_ms = (time.perf_counter() - started) * 1000
        with CaptureQueriesContext(connection) as queries:
            response = client.get(path)
        counted = len(queries.captured_queries)  # now: the next request resets the connection's query log
        cpu = []  # the server's own work per request (this process's CPU time), what a quiet machine would take
        for _ in range(SERVER_REPEATS):
            started_cpu = time.process_time()
            client.get(path)
            cpu.append((time.process_time() - started_cpu) * 1000)
        out[name] = {
            "path": path,
            "status": response.status_code,
            "first_status": first.status_code,
            "first_ms": round(first_ms, 1),
            "queries": counted,
            "cpu_ms": round(percentile(cpu, 0.5), 1),
        }
        print(
            f"{name}: {response.status_code} {counted} queries, first {first_ms:.0f} ms",
            flush=True,
        )
    return out


def session_cookie() -> str:
    from django.conf import settings
    from django.contrib.auth.models import User
    from django.test import Client

    client = Client()
    client.force_login(User.objects.get(username=BENCH_USER))
    return f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}"


def timed(conn: http.client.HTTPConnection, path: str, cookie: str) -> float:
    started = time.perf_counter()
    conn.request("GET", path, headers={"Host": "127.0.0.1", "Cookie": cookie})
    response = conn.getresponse()
    response.read()
    return (time.perf_counter() - started) * 1000


def latencies(
    found: list[tuple[str, str]], rounds: int, skip: set[str]
) -> tuple[dict[str, dict[str, float]], float, float]:
    """p50/p95 per page through gunicorn, /healthz between pages; pages in ``skip`` are left out (too slow to
    repeat)."""
    cookie = session_cookie()
    measured = [(name, path) for name, path in found if name not in skip]
    with gunicorn_serving(
        "--worker-class",
        "gthread",
        "--workers",
        "1",
        "--threads",
        "1",
        "--timeout",
        "600",
        env={**os.environ, **ENV},
        timeout_s=90,
    ) as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        for _, path in [("healthz", "/healthz"), *measured]:  # warm-up round
            timed(conn, path, cookie)
        load_before = load_average()
        samples: dict[str, list[float]] = {name: [] for name, _ in [("healthz", "/healthz"), *measured]}
        for _ in range(rounds):
            for name, path in measured:
                samples[name].append(timed(conn, path, cookie))
                samples["healthz"].append(timed(conn, "/healthz", cookie))
        load_after = load_average()
        conn.close()
    return (
        {
            name: {"p50_ms": round(percentile(v, 0.5), 1), "p95_ms": round(percentile(v, 0.95), 1), "n": len(v)}
            for name, v in samples.items()
        },
        load_before,
        load_after,
    )


def measure(args: argparse.Namespace) -> None:
    seeded = setup(args.database, args.reuse is not None, shlex.split(args.seed_args), args.ratings_days, not args.kept)
    found = pages()
    counted_load = load_average()
    counts = query_counts(found)
    # a page whose cold render took longer than --slow-ms is timed only once (its first request above)
    skip = {name for name, c in counts.items() if c["first_ms"] > args.slow_ms and args.slow_ms > 0}
    timings, load_before, load_after = latencies(found, args.requests, skip)
    result = {
        "label": args.label,
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "database": args.database,
        "seed": seeded,
        "sizes": sizes(),
        "cpu_count": os.cpu_count(),
        "rounds": args.requests,
        "server": "gunicorn gthread 1x1, signed in (page cache bypassed)",
        "load_counts": counted_load,
        "load_before": load_before,
        "load_after": load_after,
        "healthz": timings.pop("healthz"),
        "pages": {name: {**counts[name], **timings.get(name, {})} for name, _ in found},
    }
    out = results_dir() / f"site_scale_{args.label}.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=1))


def report(labels: list[str]) -> None:
    """The table of the sizes measured (their JSON files), the goal judged on the last."""
    runs = [json.loads((results_dir() / f"site_scale_{label}.json").read_text()) for label in labels]
    names = list(runs[-1]["pages"])
    lines = [
        "# Every public page and API at scale",
        "",
        f"Seeded by `manage.py seed_scale`; pages asked signed in (the page cache bypassed: every request renders) "
        f"through "
        f"gunicorn gthread 1x1 on Postgres, the cache in Redis, one client on a kept-alive connection, /healthz "
        f"between pages; "
        f"{os.cpu_count()} CPUs shared with other work. Queries: a second request of the page (after one warm-up) in "
        f"the "
        "test client. 'first': the page's first request after the seed (its caches cold). 'CPU ms': the median CPU "
        "time of three more requests of the page in the test client's process (the server's own work, Postgres's "
        "not counted: what a quiet machine would take of it). Goal: p95 under "
        f"{GOAL_MS:.0f} ms at load 1, and no query count that grows with the data.",
        "",
    ]
    for r in runs:
        s = r["sizes"]
        lines.append(
            f"- **{r['label']}** ({r['date']}): {s['votes']:,} votes, {s['arena_models']:,} arena models, "
            f"{s['models']:,} models, "
            f"{s['runs']:,} runs, {s['item_results']:,} item results, {s['leaderboard_rows']:,} board rows, "
            f"{s['rating_snapshots']} rating snapshots; {r['rounds']} rounds; load {r['load_before']} before, "
            f"{r['load_after']} after; /healthz p50 {r['healthz']['p50_ms']} ms, p95 {r['healthz']['p95_ms']} ms"
            + (f"; seeded in {r['seed']['seconds']} s" if r["seed"].get("seconds") else "")
            + (
                f"; ratings fitted on {r['seed']['ratings']['votes_fitted']:,} votes (a cut "
                f"{r['seed']['ratings']['days']} days "
                f"into the seeded year) in {r['seed']['ratings']['seconds']} s"
                if r["seed"].get("ratings")
                else ""
            )
            + (
                f"; the published figures kept in {r['seed']['published_warm']['seconds']} s (load "
                f"{r['seed']['published_warm']['load_before']})"
                if r["seed"]["published_warm"]["seconds"]
                else ""
            )
        )
    lines += [
        "",
        "| page | " + " | ".join(f"{r['label']}: queries | p50 ms | p95 ms | first ms | CPU ms" for r in runs) + " |",
        "|---|" + "---:|---:|---:|---:|---:|" * len(runs),
    ]
    for name in names:
        cells = []
        for r in runs:
            p = r["pages"].get(name)
            if p is None:
                cells.append("– | – | – | – | –")
                continue
            status = "" if p["status"] == 200 else f" ({p['status']})"
            cells.append(
                f"{p['queries']}{status} | {p.get('p50_ms', '–')} | {p.get('p95_ms', '–')} | {p['first_ms']} | "
                f"{p.get('cpu_ms', '–')}"
            )
        lines.append(f"| {name} (`{runs[-1]['pages'][name]['path']}`) | " + " | ".join(cells) + " |")
    last = runs[-1]["pages"]
    over = [n for n, p in last.items() if p.get("p95_ms", p["first_ms"]) > GOAL_MS]
    grown = [
        n
        for n in names
        if len(runs) > 1
        and all(n in r["pages"] for r in runs)
        and runs[-1]["pages"][n]["queries"] > runs[0]["pages"][n]["queries"]
    ]
    lines += [
        "",
        f"Over {GOAL_MS:.0f} ms at p95 (or, untimed, on the first request) at the last size: "
        f"{', '.join(over) or 'none'}.",
        f"Query counts larger at the last size than at the first: {', '.join(grown) or 'none'}.",
        "",
    ]
    write_results("site_scale", {"runs": runs}, lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", default="full")
    parser.add_argument("--database", default="leaderboard_bench_site_scale")
    parser.add_argument("--reuse", metavar="DATABASE", help="measure this database as it is (seeded before)")
    parser.add_argument("--seed-args", default="", help="seed_scale's options (default: its full scale)")
    parser.add_argument("--requests", type=int, default=20, help="rounds of every page")
    parser.add_argument(
        "--ratings-days",
        type=float,
        default=0,
        help="fit the ratings (when there are none) on the votes of the seeded year's first days only (0: every vote)",
    )
    parser.add_argument(
        "--slow-ms", type=float, default=20_000, help="time only once a page whose first request took longer"
    )
    parser.add_argument(
        "--kept",
        action="store_true",
        help="the published figures are in the cache already (a rerun on a --reuse'd database)",
    )
    parser.add_argument("--report", help="labels of measured sizes, comma-separated: write the table")
    parser.add_argument("--publish", action="store_true", help="write to bench/results/")
    args = parser.parse_args()
    if args.report:
        report(args.report.split(","))
        return
    if args.reuse:
        args.database = args.reuse
    measure(args)


if __name__ == "__main__":
    main()
