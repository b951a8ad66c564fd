"""Judge throughput: judge calls per second that one worker's scoring sustains, against plain threads.

A scripted OpenAI-compatible server (``tests/support/openai_server.py``) in its own process answers
every call with the digit "7" after a fixed service time, so its capacity at N concurrent calls is
N / service time. Two load generators send PoliCon's judge calls for the 60-item sample (240 calls:
one per party per item) at the same bound, LEADERBOARD_JUDGE_CONCURRENCY's default of 8:

- **ours**: the worker's scoring path, ``evaluators.core.runner.score_items`` over the PoliCon evaluator
  with a ``Judge`` (items in flight, each asking its parties at once through ``Judge.ask_many``, the
  votes counted, the detail built), with the worker's RUN_CONCURRENCY of 2 items;
- **raw**: plain threads, one keep-alive ``http.client`` connection each, sending the same bodies.

Median of interleaved repeats, the worst run in brackets, with the 1-minute load average before each;
writes bench/results/judge.json and judge.md. Goal: ours >= 0.9 x raw.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bench_client import raw_baseline
from bench.common import load_average, median_worst, spread, write_results
from evaluators.core import evaluator_for
from evaluators.core.runner import score_items
from evaluators.core.types import Prediction
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from evaluators.policon.prompts import DIGITS, JUDGE_PROMPT
from evaluators.policon.release import Task

SERVICE_TIMES_S = (0.02, 0.1)
JUDGE_CONCURRENCY = 8
RUN_CONCURRENCY = 2
REPEATS = 5


def main() -> None:
    evaluator = evaluator_for("policon")
    items = list(evaluator.import_release(evaluator.presentation().sample_dataset()))
    predictions = [
        Prediction(i.id, f"The European Parliament raised a plan for {i.payload['title'].lower()}.") for i in items
    ]
    bodies = []
    for item, prediction in zip(items, predictions):
        task = Task.from_payload(item.payload)
        for party in task.parties:
            messages = JUDGE_PROMPT.render(
                {
                    "background": task.background,
                    "resolution": prediction.output,
                    "party": party.name,
                    "stance": party.stance,
                }
            )
            bodies.append(
                json.dumps(
                    {
                        "model": "judge",
                        "messages": messages,
                        "temperature": 0.0,
                        "max_tokens": 2,
                        "structured_outputs": {"choice": list(DIGITS)},
                    }
                ).encode()
            )
    calls = len(bodies)
    rows, cells = [], []  # cells: each row's median (worst) figures, for the table
    for service_s in SERVICE_TIMES_S:
        server, base_url = start_server_answering(service_s)
        try:

            def ours() -> float:
                client = ChatClient(Endpoint(base_url, "judge"), max_concurrency=JUDGE_CONCURRENCY)  # noqa: B023 (called in this iteration)
                judge = Judge(JudgeSpec("judge", "bench", "v1"), client, concurrency=JUDGE_CONCURRENCY)
                scorer = evaluator.judging().judged(judge)
                started = time.perf_counter()
                scores = list(score_items(scorer, items, predictions, concurrency=RUN_CONCURRENCY))
                elapsed = time.perf_counter() - started
                judge.close()
                if len(scores) != len(items) or any(s.error for s in scores):
                    raise SystemExit("scoring failed")
                return elapsed

            ours()  # warm up
            raw_baseline(base_url, JUDGE_CONCURRENCY, calls, bodies)
            raw_runs, our_runs, loads = [], [], []
            for _ in range(REPEATS):
                loads.append(load_average())
                raw_runs.append(raw_baseline(base_url, JUDGE_CONCURRENCY, calls, bodies))
                our_runs.append(ours())
        finally:
            server.terminate()
            server.wait()
        raw_s, our_s = statistics.median(raw_runs), statistics.median(our_runs)
        raw_cps = [calls / v for v in raw_runs]  # each run's figures, for the tables' median (worst)
        ours_cps = [calls / v for v in our_runs]
        ratios = [r / o for r, o in zip(raw_runs, our_runs)]  # each interleaved pair's ours / raw
        row = {
            "service_time_s": service_s,
            "judge_concurrency": JUDGE_CONCURRENCY,
            "calls": calls,
            "server_capacity_cps": round(JUDGE_CONCURRENCY / service_s, 1),
            "raw_cps": round(calls / raw_s, 1),
            "ours_cps": round(calls / our_s, 1),
            "ours_over_raw": round(raw_s / our_s, 3),
            "raw_cps_worst": round(median_worst(raw_cps, higher_is_better=True)[1], 1),
            "ours_cps_worst": round(median_worst(ours_cps, higher_is_better=True)[1], 1),
            "ours_over_raw_runs": [round(v, 3) for v in ratios],
            "ours_over_raw_worst": round(median_worst(ratios, higher_is_better=True)[1], 3),
            "raw_runs_s": [round(v, 3) for v in raw_runs],
            "our_runs_s": [round(v, 3) for v in our_runs],
            "load_averages": loads,
        }
        cells.append(
            (
                spread(raw_cps, higher_is_better=True),
                spread(ours_cps, higher_is_better=True),
                spread(ratios, "{:.3f}", higher_is_better=True),
            )
        )
        print(row, flush=True)
        rows.append(row)
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "repeats": REPEATS,
        "rows": rows,
        "goal": "ours_over_raw >= 0.9",
    }
    lines = [
        "# Judge calls per second",
        "",
        f"PoliCon's sample ({len(items)} items, {calls} judge calls, one per party) against a scripted server "
        f"answering "
        f'"7" after a fixed service time; {JUDGE_CONCURRENCY} calls in flight; {REPEATS} interleaved runs on '
        f"{result['cpu_count']} CPUs shared with the server. Figures: median of the runs (worst run in brackets); "
        "ours / raw is taken per interleaved run. Load average (1 min) before each run: "
        + "; ".join(f"{r['service_time_s'] * 1000:g} ms: {r['load_averages']}" for r in rows)
        + ".",
        "",
        "| service time | server capacity (calls/s) | plain threads (calls/s) | worker scoring path (calls/s) | ours "
        "/ raw |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['service_time_s'] * 1000:g} ms | {r['server_capacity_cps']:g} | {raw} | {ours} | {ratio} |"
        for r, (raw, ours, ratio) in zip(rows, cells)
    ]
    lines += [
        "",
        "Command: `.venv/bin/python bench/bench_judge.py`. Goal: the worker sustains at least 0.9 of plain threads.",
        "",
    ]
    write_results("judge", result, lines)


def start_server_answering(service_s: float):
    """The scripted server answering "7" to every call after ``service_s``."""
    import subprocess

    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_server", str(service_s), "7"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    return server, server.stdout.readline().strip()


if __name__ == "__main__":
    main()
