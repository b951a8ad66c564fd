"""The demo judge's servers compared: `transformers serve` (one request at a time, no guided decoding) against
vLLM's CPU build (batched, guided), both serving SmolLM2-135M-Instruct (scripts/install-demo-judge) through
``manage.py demo_judge``'s launcher on this machine.

For each server: its start (launch to ready), then the worker's scoring path (``score_items`` over the
evaluator with a ``Judge``, LEADERBOARD_JUDGE_CONCURRENCY's 8 calls in flight, RUN_CONCURRENCY's 2 items)
on PoliCon's "Random" baseline (the first ``--policon`` sample items, 4 parties each on average) and
CausalPitfalls' "Rubric restated" baseline (the first ``--causal`` items, one call each): judge calls per
second, HTTP requests per call (the retries of unusable answers), fallback rate, and the extrapolated time
of one whole sample baseline run. Prints one JSON line per server and writes bench/results/demo_judge.json
and .md. The machine's 1-minute load average is taken before each figure.

Usage: .venv/bin/python bench/bench_demo_judge.py [--servers vllm,transformers] [--policon 60] [--causal 100]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")

from bench.common import load_average, write_results  # noqa: E402


def measure(server: str, policon: int, causal: int) -> dict[str, object]:
    import django

    django.setup()
    from django.conf import settings

    from evaluators.core import evaluator_for
    from evaluators.core.files import parse_predictions
    from evaluators.core.runner import score_items
    from evaluators.llm.client import ChatClient
    from evaluators.llm.judges import Judge, judge_fallbacks
    from evaluators.llm.server import ModelServer, free_port
    from evaluators.llm.types import JudgeSpec
    from leaderboard.modelhost.judging import DEMO_JUDGE, DEMO_JUDGE_DIR
    from leaderboard.modelhost.management.commands.demo_judge import judge_spec

    model = Path(settings.VAR_DIR) / DEMO_JUDGE_DIR
    if not (model / "config.json").is_file():
        model = REPO / "var" / DEMO_JUDGE_DIR
    logs = Path(tempfile.mkdtemp(prefix="demo-judge-bench-"))
    spec = judge_spec(model, free_port(), server)
    spec = type(spec)(**{**spec.__dict__, "log_path": str(logs / f"{server}.log")})
    row: dict[str, object] = {"server": server, "load_before_start": load_average()}
    started = time.perf_counter()
    with ModelServer(spec) as running:
        row["start_s"] = round(time.perf_counter() - started, 1)
        for key, name, count in (("policon", "Random", policon), ("causal-pitfalls", "Rubric restated", causal)):
            if not count:
                continue
            evaluator = evaluator_for(key, settings={"judge_prompt": "v1"} if key == "policon" else {})
            items = list(evaluator.import_release(evaluator.sample_dataset()))[:count]
            predictions = parse_predictions(evaluator.baseline_predictions(items)[name], [i.id for i in items])
            client = ChatClient(running.endpoint(), max_concurrency=8, timeout_s=600)
            judge = Judge(JudgeSpec(DEMO_JUDGE["name"], DEMO_JUDGE["revision"], "v1"), client, concurrency=8)
            scorer = evaluator.with_judge(judge)
            row[f"{key}_load"] = load_average()
            began = time.perf_counter()
            scores = list(score_items(scorer, items, predictions, concurrency=2))
            elapsed = time.perf_counter() - began
            judge.close()
            errors = [s.error for s in scores if s.error]
            fallbacks = [judge_fallbacks(s.detail) for s in scores]
            calls = sum(c for _, c in fallbacks)
            whole = len(list(evaluator.import_release(evaluator.sample_dataset())))
            row.update({f"{key}_items": len(items), f"{key}_calls": calls, f"{key}_requests": client.request_count,
                        f"{key}_seconds": round(elapsed, 1), f"{key}_calls_per_s": round(calls / elapsed, 2),
                        f"{key}_fallback_rate": round(sum(f for f, _ in fallbacks) / max(1, calls), 3),
                        f"{key}_errors": len(errors), f"{key}_whole_sample_run_s": round(elapsed * whole / len(items), 0)})
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", default="vllm,transformers")
    parser.add_argument("--policon", type=int, default=60)
    parser.add_argument("--causal", type=int, default=100)
    args = parser.parse_args()
    rows = []
    for server in args.servers.split(","):
        row = measure(server, args.policon, args.causal)
        print(row, flush=True)
        rows.append(row)
    lines = ["# The demo judge: transformers serve against vLLM's CPU build", "",
             f"SmolLM2-135M-Instruct on {os.cpu_count()} CPUs shared with other work (load average before each figure "
             "in the table). Worker scoring path: 8 judge calls in flight, 2 items at once. One run each (a start costs "
             "minutes under load, so no repeats).", "",
             "| server | start (s) | PoliCon calls/s | requests per call | fallbacks | CausalPitfalls calls/s | requests per call "
             "| fallbacks | one PoliCon baseline run (s, extrapolated) | one CausalPitfalls baseline run (s) | load |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        def per_call(key: str) -> str:
            calls = r.get(f"{key}_calls") or 0
            return f"{int(r[f'{key}_requests']) / int(calls):.2f}" if calls else "-"
        lines.append(f"| {r['server']} | {r['start_s']} | {r.get('policon_calls_per_s', '-')} | {per_call('policon')} | "
                     f"{r.get('policon_fallback_rate', '-')} | {r.get('causal-pitfalls_calls_per_s', '-')} | "
                     f"{per_call('causal-pitfalls')} | {r.get('causal-pitfalls_fallback_rate', '-')} | "
                     f"{r.get('policon_whole_sample_run_s', '-')} | {r.get('causal-pitfalls_whole_sample_run_s', '-')} | "
                     f"{r['load_before_start']}, {r.get('policon_load', '-')}, {r.get('causal-pitfalls_load', '-')} |")
    lines += ["", f"Command: `.venv/bin/python bench/bench_demo_judge.py --servers {args.servers} --policon {args.policon} "
                  f"--causal {args.causal}`.", ""]
    write_results("demo_judge", {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "rows": rows}, lines)


if __name__ == "__main__":
    main()
