"""Soak test: nothing is lost when a service restarts (a benchmark run by hand, not part of make test:
it restarts this machine's Postgres and Redis, which the test suite is using).

The production server (gunicorn, gthread) and real workers (cpu with the beat, arena with threads) run
on a fresh database and Redis db 11. For SOAK_SECONDS (default 240), clients keep going at once:
- voters start battles through the API, wait for both answers, sometimes ask a second turn, and vote;
  every vote the site acknowledged (201) is noted;
- a submitter uploads a Multi-LCB predictions file every few seconds and notes each accepted submission;
- a prober asks GET /api/benchmarks/ (a database read) every 0.25 s.
Postgres is restarted once (at 1/4 of the time) and Redis once (at 5/8; it keeps nothing on disk, so
every queued message is lost with it). Afterwards, once the submissions have ended, it checks: every
acknowledged vote is in the database; every accepted submission's runs ended once (succeeded, or
failed with a reason); and it reports how long the site took to answer again after each restart.

Run: ``.venv/bin/python bench/bench_soak.py [--publish]`` as root (it restarts the services with the
commands of services.md). Results: var/bench/soak.{json,md}, or bench/results/ with --publish.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import django_bench_setup, free_port, gunicorn_start, results_dir

SECONDS = float(os.environ.get("SOAK_SECONDS", "240"))
VOTERS = int(os.environ.get("SOAK_VOTERS", "4"))
SUBMIT_EVERY = float(os.environ.get("SOAK_SUBMIT_EVERY", "4"))
REDIS_DB = "redis://127.0.0.1:6379/11"
PG_RESTART = ["pg_ctlcluster", "--skip-systemctl-redirect", "15", "main", "restart", "--", "-m", "fast"]
REDIS_START = [
    "redis-server",
    "--daemonize",
    "yes",
    "--bind",
    "127.0.0.1",
    "-::1",
    "--port",
    "6379",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    "/var/lib/redis",
    "--logfile",
    "/var/log/redis/ci.log",
]
ENV = {
    "CELERY_BROKER_URL": REDIS_DB,
    "DJANGO_DEBUG": "0",
    "LEADERBOARD_LOG_LEVEL": "WARNING",
    "LEADERBOARD_ARENA_ACTIONS_PER_MINUTE": "1000000",
    "LEADERBOARD_ARENA_ACTIONS_PER_MINUTE_PER_IP": "1000000",
    "LEADERBOARD_ARENA_VOTES_PER_DAY": "1000000",
    "LEADERBOARD_ARENA_VOTES_PER_DAY_PER_IP": "1000000",
    # the periodic passes that send lost messages again, at soak speed (production: minutes)
    "LEADERBOARD_RUN_QUEUED_RESEND_SECONDS": "15",
    "LEADERBOARD_ARENA_TURN_RESEND_SECONDS": "10",
    "LEADERBOARD_ARENA_RATINGS_BEAT_SECONDS": "5",
    "LEADERBOARD_RUN_REAPER_SECONDS": "3",
    "LEADERBOARD_RUN_LEASE_SECONDS": "30",
    "LEADERBOARD_ARENA_RATINGS_DEBOUNCE_SECONDS": "2",
    "LEADERBOARD_ARENA_BOOTSTRAP_ROUNDS": "10",
}


class Site:
    """JSON over HTTP to the server, with the user's token; errors are answers, never exceptions."""

    def __init__(self, port: int, token: str) -> None:
        self.base, self.token = f"http://127.0.0.1:{port}", token

    def call(
        self, method: str, path: str, body: bytes | None = None, content_type: str = "application/json"
    ) -> tuple[int, object]:
        request = urllib.request.Request(
            self.base + path,
            data=body,
            method=method,
            headers={"Authorization": f"Token {self.token}", "Content-Type": content_type},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            return exc.code, None
        except (OSError, ValueError):
            return 0, None


def setup() -> tuple[str, list[str]]:
    var_dir = REPO / "var" / "bench-soak"
    django_bench_setup("leaderboard_bench_soak", var_dir, **ENV)
    from django.contrib.auth.models import User
    from rest_framework.authtoken.models import Token

    from leaderboard.catalog.models import Benchmark

    user = User.objects.create_user("soak", password="soak-password-long")
    token = Token.objects.create(user=user).key
    dataset = Benchmark.objects.get(slug="multi-lcb").dataset_versions.get(is_current=True)
    from evaluators.core.files import read_items
    from leaderboard.catalog.services import dataset_items_path

    item_ids = [item.id for item in read_items(dataset_items_path(dataset, var_dir / "cache" / "datasets"))]
    return token, item_ids


def predictions(item_ids: list[str], n: int) -> bytes:
    """Every item answered; the Python ones with a+b (a few compile and run), the rest with no code."""
    lines = [
        json.dumps(
            {
                "item_id": i,
                "output": "```python\na, b = map(int, input().split())\nprint(a + b)\n```"
                if i.endswith("/python") and n % 2 == 0
                else "no code",
            }
        )
        for i in item_ids
    ]
    return ("\n".join(lines) + "\n").encode()


def multipart(fields: dict[str, str], file_field: str, data: bytes) -> tuple[bytes, str]:
    boundary = f"soak{random.getrandbits(64):x}"
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; filename="p.jsonl"\r\n'
        "Content-Type: application/octet-stream\r\n\r\n".encode()
        + data
        + b"\r\n"
    )
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def main() -> None:
    if os.geteuid() != 0:
        raise SystemExit("run as root: the soak restarts Postgres and Redis")
    token, item_ids = setup()
    import redis

    redis.Redis.from_url(REDIS_DB).flushdb()
    port = free_port()
    env = {**os.environ, **ENV}
    logs = REPO / "var" / "bench-soak" / "log"
    logs.mkdir(parents=True, exist_ok=True)
    procs = [
        gunicorn_start(
            port,
            "--worker-class",
            "gthread",
            "--workers",
            "2",
            "--threads",
            "8",
            env=env,
            stdout=(logs / "gunicorn.log").open("wb"),
        ),
        subprocess.Popen(
            [
                str(REPO / ".venv/bin/celery"),
                "-A",
                "workers.celery",
                "worker",
                "-B",
                "--schedule",
                str(logs / "beat.schedule"),
                # the interactive queue too (the reaper, the arena's ratings), as before they had a queue of their own
                "-Q",
                "cpu,interactive",
                "--concurrency",
                "2",
                "-n",
                "soak-cpu@%h",
                "--loglevel",
                "INFO",
            ],
            cwd=REPO,
            env=env,
            stdout=(logs / "cpu.log").open("wb"),
            stderr=subprocess.STDOUT,
        ),
        subprocess.Popen(
            [
                str(REPO / ".venv/bin/celery"),
                "-A",
                "workers.celery",
                "worker",
                "-Q",
                "arena",
                "--pool",
                "threads",
                "--concurrency",
                "4",
                "-n",
                "soak-arena@%h",
                "--loglevel",
                "INFO",
            ],
            cwd=REPO,
            env=env,
            stdout=(logs / "arena.log").open("wb"),
            stderr=subprocess.STDOUT,
        ),
    ]
    site = Site(port, token)
    deadline = time.monotonic() + 60
    while site.call("GET", "/api/benchmarks/")[0] != 200:
        if time.monotonic() > deadline:
            raise SystemExit("the server did not start; see var/bench-soak/log/")
        time.sleep(0.5)

    stop = threading.Event()
    acked_votes: list[str] = []
    accepted: list[int] = []
    counts = {"battles": 0, "turns": 0, "vote_attempts": 0, "refused_or_failed_requests": 0, "submissions_refused": 0}
    probes: list[tuple[float, bool]] = []
    lock = threading.Lock()
    started = time.monotonic()

    def voter(n: int) -> None:
        rng = random.Random(n)
        while not stop.is_set():
            code, battle = site.call(
                "POST",
                "/api/arena/battles/",
                json.dumps({"prompt": f"how does apt read its sources? #{rng.random()}"}).encode(),
            )
            if code != 201 or not isinstance(battle, dict):
                with lock:
                    counts["refused_or_failed_requests"] += 1
                time.sleep(0.5)
                continue
            public_id = battle["id"]
            with lock:
                counts["battles"] += 1
            turns = 2 if rng.random() < 0.3 else 1
            for turn in range(turns):
                if turn:
                    code, _ = site.call(
                        "POST",
                        f"/api/arena/battles/{public_id}/turns/",
                        json.dumps({"prompt": "and the mirror?"}).encode(),
                    )
                    with lock:
                        counts["turns" if code == 201 else "refused_or_failed_requests"] += 1
                wait_until = time.monotonic() + 120
                while time.monotonic() < wait_until and not stop.is_set():
                    code, state = site.call("GET", f"/api/arena/battles/{public_id}/")
                    if code == 200 and isinstance(state, dict) and state.get("can_vote"):
                        break
                    time.sleep(0.3)
            for _ in range(20):  # a vote refused by an outage is tried again, as a person would
                with lock:
                    counts["vote_attempts"] += 1
                code, _ = site.call(
                    "POST",
                    f"/api/arena/battles/{public_id}/vote/",
                    json.dumps({"winner": rng.choice(["model_a", "model_b", "tie"])}).encode(),
                )
                if code == 201:
                    with lock:
                        acked_votes.append(public_id)
                    break
                if code in (400, 409) and stop.is_set():
                    break
                time.sleep(0.5)

    def submitter() -> None:
        n = 0
        while not stop.is_set():
            body, content_type = multipart(
                {"benchmark": "multi-lcb", "model_name": f"soak-{n % 5}"}, "predictions", predictions(item_ids, n)
            )
            code, answer = site.call("POST", "/api/submissions/", body, content_type)
            if code == 201 and isinstance(answer, dict):
                with lock:
                    accepted.append(int(answer["id"]))
            else:
                with lock:
                    counts["submissions_refused"] += 1
            n += 1
            stop.wait(SUBMIT_EVERY)

    def prober() -> None:
        while not stop.is_set():
            ok = site.call("GET", "/api/benchmarks/")[0] == 200
            probes.append((time.monotonic() - started, ok))
            time.sleep(0.25)

    threads = [threading.Thread(target=voter, args=(n,), daemon=True) for n in range(VOTERS)]
    threads += [threading.Thread(target=submitter, daemon=True), threading.Thread(target=prober, daemon=True)]
    for thread in threads:
        thread.start()
    restarts: list[dict] = []

    def restart(name: str, at: float, action) -> None:
        time.sleep(max(0.0, at - (time.monotonic() - started)))
        began = time.monotonic() - started
        action()
        done = time.monotonic() - started
        restarts.append({"service": name, "began_s": round(began, 2), "restarted_s": round(done, 2)})

    def restart_redis() -> None:
        subprocess.run(["redis-cli", "-p", "6379", "shutdown", "nosave"], check=False, capture_output=True)
        time.sleep(1)
        subprocess.run(REDIS_START, check=True)

    restart("postgres", SECONDS / 4, lambda: subprocess.run(PG_RESTART, check=True))
    restart("redis", SECONDS * 5 / 8, restart_redis)
    time.sleep(max(0.0, SECONDS - (time.monotonic() - started)))
    stop.set()
    for thread in threads:
        thread.join(timeout=150)

    for item in restarts:  # from the moment the service was back until the first database read answered
        answered = next((t for t, ok in probes if t >= item["restarted_s"] and ok), None)
        item["site_answered_again_after_s"] = round(answered - item["restarted_s"], 2) if answered else None
        item["failed_probes"] = sum(1 for t, ok in probes if item["began_s"] <= t <= (answered or 0) and not ok)

    import django
    from django.db import connections

    connections.close_all()
    from leaderboard.arena.models import Vote
    from leaderboard.runs.models import EvaluationRun, RunStatus

    end_wait = time.monotonic() + 300
    terminal = [RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED]
    while time.monotonic() < end_wait:
        if not EvaluationRun.objects.filter(submission_id__in=accepted).exclude(status__in=terminal).exists():
            break
        time.sleep(2)
    settle = time.monotonic() - started - SECONDS
    runs = list(
        EvaluationRun.objects.filter(submission_id__in=accepted).values(
            "pk", "status", "attempt", "failure_message", "finished_at"
        )
    )
    voted = set(Vote.objects.filter(battle__public_id__in=acked_votes).values_list("battle__public_id", flat=True))
    for proc in procs:
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    import re

    worker_log = (logs / "cpu.log").read_text(errors="replace")
    resent_turns = sum(int(n) for n in re.findall(r"'resent_turns': (\d+)", worker_log))
    resent_runs = sum(
        int(n)
        for n in re.findall(r"requeue_expired_runs\[[^\]]*\] succeeded in [0-9.e-]+s: \(\d+, \d+, (\d+)\)", worker_log)
    )
    by_status: dict[str, int] = {}
    for run in runs:
        by_status[run["status"]] = by_status.get(run["status"], 0) + 1
    result = {
        "seconds": SECONDS,
        "voters": VOTERS,
        "load_average_end": os.getloadavg(),
        "cpus": os.cpu_count(),
        "django": django.get_version(),
        "server": "gunicorn gthread 2x8; workers: cpu (prefork 2, with beat), arena (threads 4)",
        "restarts": restarts,
        "counts": counts,
        "votes_acknowledged": len(acked_votes),
        "votes_found": len(voted & set(acked_votes)),
        "submissions_accepted": len(accepted),
        "runs": len(runs),
        "runs_by_status": by_status,
        "runs_failed_without_reason": sum(
            1 for r in runs if r["status"] == RunStatus.FAILED and not r["failure_message"]
        ),
        "runs_not_ended": sum(1 for r in runs if r["status"] not in terminal),
        "runs_attempts": dict(sorted(Counter(r["attempt"] for r in runs).items())),
        "seconds_to_settle_after_load": round(settle, 1),
        "arena_turns_sent_again": resent_turns,
        "queued_runs_sent_again": resent_runs,
        "probes": len(probes),
        "probes_failed": sum(1 for _, ok in probes if not ok),
    }
    result["nothing_lost"] = (
        result["votes_found"] == result["votes_acknowledged"]
        and result["runs_not_ended"] == 0
        and result["runs_failed_without_reason"] == 0
    )
    lines = [
        "# Soak: restarts of Postgres and Redis under load",
        "",
        f"{SECONDS:.0f} s of load on {result['server']}; {VOTERS} voters, a submission every {SUBMIT_EVERY:.0f} s, a "
        f"database read every 0.25 s. "
        f"{os.cpu_count()} CPUs; load average at the end {result['load_average_end'][0]:.1f}. Command: "
        f"`.venv/bin/python bench/bench_soak.py`.",
        "",
        "| restart | at (s) | restart took (s) | first answer after it was back (s) | failed reads meanwhile |",
        "|---|---:|---:|---:|---:|",
    ]
    lines += [
        f"| {r['service']} | {r['began_s']:.0f} | {r['restarted_s'] - r['began_s']:.1f} | "
        f"{r['site_answered_again_after_s']} | {r['failed_probes']} |"
        for r in restarts
    ]
    lines += [
        "",
        f"- Votes acknowledged: {result['votes_acknowledged']}; found in the database afterwards: "
        f"{result['votes_found']}.",
        f"- Battles started: {counts['battles']}; second turns: {counts['turns']}; requests refused or failed during "
        f"outages: {counts['refused_or_failed_requests']}.",
        f"- Submissions accepted: {result['submissions_accepted']} ({counts['submissions_refused']} refused or failed "
        f"during outages); "
        f"their runs: {by_status}; not ended: {result['runs_not_ended']}; failed without a reason: "
        f"{result['runs_failed_without_reason']}; "
        f"attempts: {result['runs_attempts']}.",
        f"- Sent again by the beat's periodic passes (messages lost with Redis, or duplicates of slow ones; a claim "
        f"runs each once): "
        f"{resent_turns} arena turns, {resent_runs} queued runs.",
        f"- Everything ended {result['seconds_to_settle_after_load']} s after the load stopped.",
        f"- Nothing lost: {'yes' if result['nothing_lost'] else 'NO'}.",
        "",
    ]
    out = results_dir()
    (out / "soak.json").write_text(json.dumps(result, indent=1, default=str) + "\n")
    (out / "soak.md").write_text("\n".join(lines))
    print("\n".join(lines))
    if not result["nothing_lost"]:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
