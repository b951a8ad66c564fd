"""Client and worker overhead: requests/s that ``ChatClient.chat_many`` sustains against a local
OpenAI-compatible server, against the same load sent by a minimal raw load generator (plain threads,
one keep-alive ``http.client`` connection each, no retries, no parsing beyond ``json.loads``); then
the worker's whole generation path (a GenerationJob for an endpoint model on Postgres, run
in-process through ``leaderboard.runs.generation.worker``: claim, plan, send, store every answer,
write the predictions file, hand the run to scoring) against the client and the raw threads
sending the same requests to the same server.

The server is the scripted test server (``tests/support/openai_server.py``) in its own process, with
a fixed service time per request, so its capacity is ``N / service time`` at N concurrent requests.
The worker part needs this machine's Postgres (database ``leaderboard_bench_client``, recreated)
and Redis (db 13). Every figure is the median of interleaved repeats with the worst run in brackets,
and the 1-minute load average before each repeat is kept. Writes bench/results/client.json and
client.md. Goal: the client and the worker add <= 5% time. ``--client-only`` / ``--worker-only`` run
one part (the other's results are kept).
"""

from __future__ import annotations

import http.client
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import (
    django_bench_setup,
    generation_job_seconds,
    load_average,
    median_worst,
    request_body,
    results_dir,
    spread,
    write_results,
)
from evaluators.core.types import ModelRequest
from evaluators.llm.client import ChatClient
from evaluators.llm.types import Endpoint

#: Per-request service times of the server: 20 ms (much faster than any LLM answer, the worst case
#: for client overhead) and 100 ms (a short LLM answer).
SERVICE_TIMES_S = (0.02, 0.1)
CONCURRENCY = (1, 8, 32)
REPEATS = 5
MESSAGES = [{"role": "user", "content": "Write a function that adds two numbers."}]


def requests_for(n: int) -> int:
    return max(40, n * 12)


def raw_baseline(base_url: str, concurrency: int, total: int, bodies: list[bytes] | None = None) -> float:
    """Seconds to send ``total`` requests (``bodies``, when given) with ``concurrency`` plain threads."""
    parts = urlsplit(base_url)
    bodies = bodies or [json.dumps({"model": "test-model", "messages": MESSAGES, "max_tokens": 64}).encode()] * total
    counter = iter(bodies)
    lock = threading.Lock()

    def worker() -> None:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        while True:
            with lock:
                body = next(counter, None)
                if body is None:
                    break
            connection.request("POST", parts.path + "/chat/completions", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            json.loads(response.read())
        connection.close()

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started


def with_client(
    base_url: str, concurrency: int, total: int, requests: list[ModelRequest] | None = None, model: str = "test-model"
) -> float:
    """Seconds for ``ChatClient.chat_many`` to answer ``total`` requests (``requests``, when given) at
    ``concurrency``."""
    failures: list[object] = []
    with ChatClient(Endpoint(base_url, model), max_concurrency=concurrency) as client:
        if requests is None:
            requests = [ModelRequest(item_id=str(i), messages=MESSAGES, max_tokens=64) for i in range(total)]
        started = time.perf_counter()
        client.chat_many(
            requests, on_result=lambda r, outcome: failures.append(outcome) if not hasattr(outcome, "texts") else None
        )
        elapsed = time.perf_counter() - started
    if failures:
        raise SystemExit(f"the client failed {len(failures)} requests: {failures[0]}")
    return elapsed


def start_server(service_s: float) -> tuple[subprocess.Popen, str]:
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_server", str(service_s)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


def measure(service_s: float) -> list[dict[str, object]]:
    server, base_url = start_server(service_s)
    rows: list[dict[str, object]] = []
    try:
        for concurrency in CONCURRENCY:
            total = requests_for(concurrency)
            raw_with_client(base_url, concurrency, 8)  # warm up both paths
            raw, client, loads = [], [], []
            for _ in range(REPEATS):  # interleaved, so drift hits both alike
                loads.append(load_average())
                raw.append(total / raw_baseline(base_url, concurrency, total))
                client.append(total / with_client(base_url, concurrency, total))
            raw_rps, client_rps = statistics.median(raw), statistics.median(client)
            ratios = [r / c for r, c in zip(raw, client)]  # each interleaved pair's client time / raw
            rows.append(
                {
                    "service_time_s": service_s,
                    "concurrency": concurrency,
                    "requests": total,
                    "server_capacity_rps": round(concurrency / service_s, 1),
                    "raw_rps": round(raw_rps, 1),
                    "client_rps": round(client_rps, 1),
                    "client_time_over_raw": round(raw_rps / client_rps, 3),
                    "raw_rps_worst": round(median_worst(raw, higher_is_better=True)[1], 1),
                    "client_rps_worst": round(median_worst(client, higher_is_better=True)[1], 1),
                    "client_time_over_raw_runs": [round(v, 3) for v in ratios],
                    "client_time_over_raw_worst": round(median_worst(ratios, higher_is_better=False)[1], 3),
                    "raw_runs": [round(v, 1) for v in raw],
                    "client_runs": [round(v, 1) for v in client],
                    "load_averages": loads,
                }
            )
            print(rows[-1], flush=True)
    finally:
        server.terminate()
        server.wait()
    return rows


WORKER_SERVICE_TIMES_S = (0.02, 0.1)
WORKER_CONCURRENCY = 8
BENCH_DB = "leaderboard_bench_client"


def worker_setup() -> None:
    """A fresh bench database with the Multi-LCB sample dataset (360 items), Django set up."""
    django_bench_setup(
        BENCH_DB, REPO / "var" / "bench-client", LEADERBOARD_GENERATION_CONCURRENCY=str(WORKER_CONCURRENCY)
    )


def measure_worker() -> list[dict[str, object]]:
    """Seconds for a whole GenerationJob (in-process) against ChatClient.chat_many and raw threads
    sending the same requests, interleaved, at WORKER_CONCURRENCY and each of WORKER_SERVICE_TIMES_S.
    A worker builds a dataset's requests once (see generation._requests_for): the warm-up job pays
    for it and is reported apart, as ``first_job_s``."""
    worker_setup()
    from django.conf import settings
    from django.contrib.auth.models import User

    from evaluators.core import evaluator_for
    from evaluators.core.files import read_items
    from leaderboard.catalog.models import Benchmark
    from leaderboard.catalog.services import dataset_items_path

    generation = {"n": 1, "max_tokens": 64, "temperature": 0.0}
    benchmark = Benchmark.objects.get(slug="multi-lcb")
    evaluator = evaluator_for("multi-lcb")
    items = read_items(
        dataset_items_path(
            benchmark.dataset_versions.get(is_current=True), Path(settings.VAR_DIR) / "cache" / "datasets"
        )
    )
    requests = [r for item in items for r in evaluator.build_requests(item, generation)]
    owner = User.objects.create_user("bench-client", is_staff=True)
    return [
        _measure_worker_at(service_s, benchmark, requests, generation, owner) for service_s in WORKER_SERVICE_TIMES_S
    ]


def _measure_worker_at(
    service_s: float, benchmark: object, requests: list[ModelRequest], generation: dict[str, object], owner: object
) -> dict[str, object]:
    from leaderboard.catalog.models import Model
    from workers.celery import app

    server, base_url = start_server(service_s)
    try:
        bodies = [json.dumps(request_body(r, "test-model")).encode() for r in requests]
        slug = f"bench-endpoint-{int(service_s * 1000)}ms"
        model = Model.objects.create(
            name=slug,
            slug=slug,
            owner=owner,
            source=Model.SOURCE_ENDPOINT,
            endpoint_base_url=base_url,
            endpoint_model="test-model",
            preflight_status=Model.PREFLIGHT_PASSED,
        )

        def job_seconds() -> float:
            return generation_job_seconds(owner=owner, model=model, benchmark=benchmark, generation=generation)

        first_job_s = job_seconds()  # warms up every path
        with_client(base_url, WORKER_CONCURRENCY, len(requests), requests)
        raw_baseline(base_url, WORKER_CONCURRENCY, len(bodies), bodies)
        raw, client, job, loads = [], [], [], []
        for _ in range(REPEATS):  # interleaved, so drift hits all three alike
            loads.append(load_average())
            raw.append(raw_baseline(base_url, WORKER_CONCURRENCY, len(bodies), bodies))
            client.append(with_client(base_url, WORKER_CONCURRENCY, len(requests), requests))
            job.append(job_seconds())
    finally:
        server.terminate()
        server.wait()
        app.control.purge()  # the scoring tasks the jobs queued (no worker runs here)
    raw_s, client_s, job_s = (statistics.median(v) for v in (raw, client, job))
    ratios = {
        "client_time_over_raw": [c / r for c, r in zip(client, raw)],  # each interleaved run's
        "job_time_over_client": [j / c for j, c in zip(job, client)],
        "job_time_over_raw": [j / r for j, r in zip(job, raw)],
    }
    result = {
        "service_time_s": service_s,
        "concurrency": WORKER_CONCURRENCY,
        "requests": len(requests),
        "server_capacity_rps": round(WORKER_CONCURRENCY / service_s, 1),
        "first_job_s": round(first_job_s, 3),
        "raw_s": round(raw_s, 3),
        "client_s": round(client_s, 3),
        "job_s": round(job_s, 3),
        "client_time_over_raw": round(client_s / raw_s, 3),
        "job_time_over_client": round(job_s / client_s, 3),
        "job_time_over_raw": round(job_s / raw_s, 3),
        **{
            f"{name}_worst": round(median_worst(runs, higher_is_better=False)[1], 3)
            for name, runs in {"raw_s": raw, "client_s": client, "job_s": job}.items()
        },
        **{f"{name}_runs": [round(v, 3) for v in runs] for name, runs in ratios.items()},
        **{f"{name}_worst": round(median_worst(runs, higher_is_better=False)[1], 3) for name, runs in ratios.items()},
        "raw_runs_s": [round(v, 3) for v in raw],
        "client_runs_s": [round(v, 3) for v in client],
        "job_runs_s": [round(v, 3) for v in job],
        "load_averages": loads,
    }
    print(result, flush=True)
    return result


def main() -> None:
    out = results_dir()
    out.mkdir(parents=True, exist_ok=True)
    previous = json.loads((out / "client.json").read_text()) if (out / "client.json").exists() else {}
    only = set(sys.argv[1:])
    rows = (
        previous.get("rows", [])
        if "--worker-only" in only
        else [row for service_s in SERVICE_TIMES_S for row in measure(service_s)]
    )
    worker = previous.get("worker", []) if "--client-only" in only else measure_worker()
    result = {
        "repeats": REPEATS,
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "rows": rows,
        "worker": worker,
        "goal": "client_time_over_raw <= 1.05 and job_time_over_raw <= 1.05",
    }
    lines = [
        "# Chat client and worker overhead",
        "",
        "Scripted OpenAI-compatible server in its own process with a fixed service time per request; "
        f"{REPEATS} interleaved runs; {result['cpu_count']} CPUs shared by the server, the load "
        "generator and whatever else the machine runs. Raw: plain threads with one keep-alive http.client "
        "connection each. Client: ChatClient.chat_many (pooled http.client connections, retries, usage counting). "
        "Figures: median of the runs (worst run in brackets); a ratio is taken per interleaved run. "
        f"Load average (1 min) before each run: {_loads(rows)}.",
        "",
        "| service time | concurrent requests | requests | server capacity (req/s) | raw threads (req/s) "
        "| ChatClient.chat_many (req/s) | client time / raw |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        ratio = spread(
            _ratio_runs(row, "client_time_over_raw", "raw_runs", "client_runs"), "{:.3f}", higher_is_better=False
        )
        lines.append(
            f"| {float(row['service_time_s']) * 1000:g} ms | {row['concurrency']} | {row['requests']} | "
            f"{row['server_capacity_rps']:g} | {spread(row['raw_runs'], higher_is_better=True)} | "
            f"{spread(row['client_runs'], higher_is_better=True)} | {ratio} |"
        )
    if worker:
        lines += [
            "",
            "## The worker's whole generation path",
            "",
            "A GenerationJob for an endpoint model, run in-process by leaderboard.runs.generation.worker on Postgres "
            "(claim, plan with the evaluator, send, store each answer, write the predictions file, hand the run to "
            f"scoring), for the Multi-LCB sample's {worker[0]['requests']} prompts; the client and the raw threads "
            f"send the "
            "same request bodies. Figures: median of the runs (worst run in brackets); a ratio is taken per "
            "interleaved "
            f"run. Load average (1 min) before each run: {_loads(worker)}.",
            "",
            "| service time | concurrent requests | requests | raw threads (s) | ChatClient.chat_many (s) | "
            "GenerationJob (s) "
            "| client / raw | job / client | job / raw | first job in a worker (s) |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for w in worker:
            times = (
                spread(w[key], "{:.3f}", higher_is_better=False)
                for key in ("raw_runs_s", "client_runs_s", "job_runs_s")
            )
            ratios = (
                spread(_ratio_runs(w, name, num, den), "{:.3f}", higher_is_better=False)
                for name, num, den in (
                    ("client_time_over_raw", "client_runs_s", "raw_runs_s"),
                    ("job_time_over_client", "job_runs_s", "client_runs_s"),
                    ("job_time_over_raw", "job_runs_s", "raw_runs_s"),
                )
            )
            lines.append(
                f"| {float(w['service_time_s']) * 1000:g} ms | {w['concurrency']} | {w['requests']} | "
                + " | ".join([*times, *ratios])
                + f" | {w['first_job_s']} |"
            )
        lines += [
            "",
            "The first job of a worker process also reads the dataset's items (126 MB with the private tests) "
            "to build its prompts, once per dataset version.",
        ]
    lines += ["", "Goal: the client and the worker add at most 5% time (ratios to raw <= 1.05).", ""]
    write_results("client", result, lines)


def _ratio_runs(row: dict[str, object], name: str, numerator: str, denominator: str) -> list[float]:
    """Each interleaved run's ``name`` ratio: as measured, or from the runs' figures in results
    written before the ratios were kept per run (``--client-only`` / ``--worker-only`` keep those)."""
    runs = row.get(f"{name}_runs")
    return runs if runs else [n / d for n, d in zip(row[numerator], row[denominator])]


def _loads(rows: list[dict[str, object]]) -> str:
    """The load averages before each run, per row of a table."""
    return "; ".join(
        f"{float(r['service_time_s']) * 1000:g} ms at {r['concurrency']}: {r.get('load_averages', 'not recorded')}"
        for r in rows
    )


def raw_with_client(base_url: str, concurrency: int, total: int) -> None:
    raw_baseline(base_url, concurrency, total)
    with_client(base_url, concurrency, total)


if __name__ == "__main__":
    main()
