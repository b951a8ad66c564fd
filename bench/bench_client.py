"""Client overhead: requests/s that ``ChatClient.chat_many`` sustains against a local OpenAI-compatible
server, against the same load sent by a minimal raw load generator (plain threads, one keep-alive
``http.client`` connection each, no retries, no parsing beyond ``json.loads``).

The server is the scripted test server (``tests/support/openai_server.py``) in its own process, with
a fixed service time per request, so its capacity is ``N / service time`` at N concurrent requests.
Writes bench/results/client.json and client.md. Goal: the client adds <= 5% time.
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

from evaluators.core.types import ModelRequest  # noqa: E402
from evaluators.llm.client import ChatClient  # noqa: E402
from evaluators.llm.types import Endpoint  # noqa: E402

#: Per-request service times of the server: 20 ms (much faster than any LLM answer, the worst case
#: for client overhead) and 100 ms (a short LLM answer).
SERVICE_TIMES_S = (0.02, 0.1)
CONCURRENCY = (1, 8, 32)
REPEATS = 5
MESSAGES = [{"role": "user", "content": "Write a function that adds two numbers."}]


def requests_for(n: int) -> int:
    return max(40, n * 12)


def raw_baseline(base_url: str, concurrency: int, total: int) -> float:
    """Seconds to send ``total`` requests with ``concurrency`` plain threads."""
    parts = urlsplit(base_url)
    body = json.dumps({"model": "test-model", "messages": MESSAGES, "max_tokens": 64}).encode()
    counter = iter(range(total))
    lock = threading.Lock()

    def worker() -> None:
        connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        while True:
            with lock:
                if next(counter, None) is None:
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


def with_client(base_url: str, concurrency: int, total: int) -> float:
    """Seconds for ``ChatClient.chat_many`` to answer ``total`` requests at ``concurrency``."""
    failures: list[object] = []
    with ChatClient(Endpoint(base_url, "test-model"), max_concurrency=concurrency) as client:
        requests = (ModelRequest(item_id=str(i), messages=MESSAGES, max_tokens=64) for i in range(total))
        started = time.perf_counter()
        client.chat_many(requests, on_result=lambda r, outcome: failures.append(outcome)
                         if not hasattr(outcome, "texts") else None)
        elapsed = time.perf_counter() - started
    if failures:
        raise SystemExit(f"the client failed {len(failures)} requests: {failures[0]}")
    return elapsed


def measure(service_s: float) -> list[dict[str, object]]:
    server = subprocess.Popen([sys.executable, "-m", "tests.support.openai_server", str(service_s)], cwd=REPO,
                              stdout=subprocess.PIPE, text=True)
    rows: list[dict[str, object]] = []
    try:
        assert server.stdout is not None
        base_url = server.stdout.readline().strip()
        for concurrency in CONCURRENCY:
            total = requests_for(concurrency)
            raw_with_client(base_url, concurrency, 8)  # warm up both paths
            raw, client = [], []
            for _ in range(REPEATS):  # interleaved, so drift hits both alike
                raw.append(total / raw_baseline(base_url, concurrency, total))
                client.append(total / with_client(base_url, concurrency, total))
            raw_rps, client_rps = statistics.median(raw), statistics.median(client)
            rows.append({"service_time_s": service_s, "concurrency": concurrency, "requests": total,
                         "server_capacity_rps": round(concurrency / service_s, 1),
                         "raw_rps": round(raw_rps, 1), "client_rps": round(client_rps, 1),
                         "client_time_over_raw": round(raw_rps / client_rps, 3),
                         "raw_runs": [round(v, 1) for v in raw], "client_runs": [round(v, 1) for v in client]})
            print(rows[-1], flush=True)
    finally:
        server.terminate()
        server.wait()
    return rows


def main() -> None:
    rows = [row for service_s in SERVICE_TIMES_S for row in measure(service_s)]
    result = {"repeats": REPEATS, "python": platform.python_version(), "cpu_count": os.cpu_count(), "rows": rows,
              "goal": "client_time_over_raw <= 1.05"}
    out = REPO / "bench" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "client.json").write_text(json.dumps(result, indent=2) + "\n")
    lines = ["# Chat client overhead", "",
             "Scripted OpenAI-compatible server in its own process with a fixed service time per request; "
             f"median of {REPEATS} interleaved runs; {result['cpu_count']} CPUs shared by the server, the load "
             "generator and whatever else the machine runs. Raw: plain threads with one keep-alive http.client "
             "connection each. Client: ChatClient.chat_many (httpx, retries, usage counting).", "",
             "| service time | concurrent requests | requests | server capacity (req/s) | raw threads (req/s) "
             "| ChatClient.chat_many (req/s) | client time / raw |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {float(row['service_time_s']) * 1000:g} ms | {row['concurrency']} | {row['requests']} | "
                     f"{row['server_capacity_rps']:g} | {row['raw_rps']} | {row['client_rps']} | "
                     f"{row['client_time_over_raw']} |")
    lines += ["", "Goal: the client adds at most 5% time (ratio <= 1.05).", ""]
    (out / "client.md").write_text("\n".join(lines))
    print("\n".join(lines))


def raw_with_client(base_url: str, concurrency: int, total: int) -> None:
    raw_baseline(base_url, concurrency, total)
    with_client(base_url, concurrency, total)


if __name__ == "__main__":
    main()
