"""The demo judge's servers compared: `transformers serve` (one request at a time, no guided decoding) against
vLLM's CPU build (batched, guided), both serving SmolLM2-135M-Instruct (scripts/install-demo-judge) through
``manage.py demo_judge``'s launcher on this machine.

For each server: its start (launch to ready), then the worker's scoring path (``score_items`` over the
evaluator with a ``Judge``, LEADERBOARD_JUDGE_CONCURRENCY's 8 calls in flight, RUN_CONCURRENCY's 2 items)
on PoliCon's "Random" baseline (the first ``--policon`` sample items, 4 parties each on average) and
CausalPitfalls' "Rubric restated" baseline (the first ``--causal`` items, one call each): judge calls per
second, HTTP requests per call (the retries of unusable answers), fallback rate, and the extrapolated time
of one whole sample baseline run. ``--both-causal N`` then scores the first N items of both CausalPitfalls
boards' "No analysis" baseline side by side (two judges, as two worker processes would), as make run does:
the time until both are done, and the requests that reached the model server. Prints one JSON line per
server and writes bench/results/demo_judge.json and .md. The machine's 1-minute load average is taken before
each figure, the server's CPU seconds (its processes, from /proc) beside the wall time.

``--serving before`` serves the judge as before issue 37's fixes (vLLM's default dtype, bfloat16 on a CPU,
its default OpenMP threads, no answer cache); ``after`` (the default) as ``manage.py demo_judge`` does.

Usage: .venv/bin/python bench/bench_demo_judge.py [--servers vllm,transformers] [--policon 60] [--causal 100]
       [--both-causal 100] [--serving before|after]
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "leaderboard.settings")

from bench.common import load_average, write_results

if TYPE_CHECKING:
    from evaluators.llm.answer_cache import AnswerCache
    from evaluators.llm.types import Endpoint


def cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of ``pid`` and its descendants (from /proc; 0 for those gone)."""
    total, pids, seen = 0.0, [pid], set()
    while pids:
        current = pids.pop()
        seen.add(current)
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        pids += [int(c) for c in children if int(c) not in seen]
    return total


def measure(server: str, policon: int, causal: int, both_causal: int = 0, serving: str = "after") -> dict[str, object]:
    import django

    django.setup()
    from django.conf import settings

    from evaluators.core import evaluator_for
    from evaluators.core.files import parse_predictions
    from evaluators.core.runner import score_items
    from evaluators.llm.answer_cache import AnswerCache
    from evaluators.llm.client import ChatClient
    from evaluators.llm.judges import Judge, judge_fallbacks
    from evaluators.llm.server import ModelServer
    from evaluators.llm.types import Endpoint, JudgeSpec
    from leaderboard.modelhost.judging import DEMO_JUDGE, DEMO_JUDGE_DIR
    from leaderboard.modelhost.management.commands.demo_judge import judge_spec

    model = Path(settings.VAR_DIR) / DEMO_JUDGE_DIR
    if not (model / "config.json").is_file():
        model = REPO / "var" / DEMO_JUDGE_DIR
    logs = Path(tempfile.mkdtemp(prefix="demo-judge-bench-"))
    spec = dataclasses.replace(judge_spec(model, None, server), log_path=str(logs / f"{server}.log"))
    if serving == "before":
        spec = dataclasses.replace(spec, dtype="auto", env={})
    row: dict[str, object] = {"server": server, "serving": serving, "load_before_start": load_average()}
    started = time.perf_counter()
    with ExitStack() as stack:
        running = stack.enter_context(ModelServer(spec))
        row["start_s"] = round(time.perf_counter() - started, 1)
        endpoint = running.endpoint()
        cache = None
        if serving == "after":
            cache = stack.enter_context(AnswerCache(f"http://127.0.0.1:{running.port}"))
            endpoint = Endpoint(cache.base_url, endpoint.model)
        assert running.pid is not None
        for key, name, count in (("policon", "Random", policon), ("causal-pitfalls", "Rubric restated", causal)):
            if not count:
                continue
            evaluator = evaluator_for(key, settings={"judge_prompt": "v1"} if key == "policon" else {})
            items = list(evaluator.import_release(evaluator.presentation().sample_dataset()))[:count]
            predictions = parse_predictions(
                evaluator.presentation().baseline_predictions(items)[name], [i.id for i in items]
            )
            client = ChatClient(endpoint, max_concurrency=8, timeout_s=600)
            judge = Judge(JudgeSpec(DEMO_JUDGE["name"], DEMO_JUDGE["revision"], "v1"), client, concurrency=8)
            scorer = evaluator.judging().judged(judge)
            row[f"{key}_load"] = load_average()
            began = time.perf_counter()
            scores = list(score_items(scorer, items, predictions, concurrency=2))
            elapsed = time.perf_counter() - began
            judge.close()
            errors = [s.error for s in scores if s.error]
            fallbacks = [judge_fallbacks(s.detail) for s in scores]
            calls = sum(c for _, c in fallbacks)
            whole = len(list(evaluator.import_release(evaluator.presentation().sample_dataset())))
            row.update(
                {
                    f"{key}_items": len(items),
                    f"{key}_calls": calls,
                    f"{key}_requests": client.request_count,
                    f"{key}_seconds": round(elapsed, 1),
                    f"{key}_calls_per_s": round(calls / elapsed, 2),
                    f"{key}_fallback_rate": round(sum(f for f, _ in fallbacks) / max(1, calls), 3),
                    f"{key}_errors": len(errors),
                    f"{key}_whole_sample_run_s": round(elapsed * whole / len(items), 0),
                }
            )
        if both_causal:
            row.update(both_boards(endpoint, both_causal, running.pid, cache))
    return row


def both_boards(endpoint: Endpoint, count: int, server_pid: int, cache: AnswerCache | None) -> dict[str, object]:
    """Both CausalPitfalls boards' "No analysis" baseline on the first ``count`` items, scored side by side."""
    from django.conf import settings

    from evaluators.core import evaluator_for
    from evaluators.core.files import parse_predictions
    from evaluators.core.runner import score_items
    from evaluators.llm.client import ChatClient
    from evaluators.llm.judges import Judge, judge_fallbacks
    from evaluators.llm.types import JudgeSpec
    from leaderboard.modelhost.judging import DEMO_JUDGE

    done: dict[str, float] = {}
    calls: dict[str, int] = {}
    clients: list[ChatClient] = []
    forwarded_before = cache.forwarded if cache is not None else 0

    def board(key: str) -> None:
        evaluator = evaluator_for(key, settings={})
        items = list(evaluator.import_release(evaluator.presentation().sample_dataset()))[:count]
        predictions = parse_predictions(
            evaluator.presentation().baseline_predictions(items)["No analysis"], [i.id for i in items]
        )
        client = ChatClient(endpoint, max_concurrency=settings.JUDGE_CONCURRENCY, timeout_s=1800)
        clients.append(client)
        judge = Judge(
            JudgeSpec(DEMO_JUDGE["name"], DEMO_JUDGE["revision"], "v1"), client, concurrency=settings.JUDGE_CONCURRENCY
        )
        scores = list(
            score_items(evaluator.judging().judged(judge), items, predictions, concurrency=settings.RUN_CONCURRENCY)
        )
        judge.close()
        calls[key] = sum(c for _, c in (judge_fallbacks(s.detail) for s in scores))
        done[key] = time.perf_counter() - began

    load = load_average()
    cpu_before = cpu_seconds(server_pid)
    began = time.perf_counter()
    threads = [threading.Thread(target=board, args=(key,)) for key in ("causal-pitfalls", "causal-pitfalls-code")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {
        "both_items": count,
        "both_load": load,
        "both_calls": sum(calls.values()),
        "both_client_requests": sum(c.request_count for c in clients),
        "both_server_requests": cache.forwarded - forwarded_before
        if cache is not None
        else sum(c.request_count for c in clients),
        "both_seconds": round(max(done.values()), 1),
        "both_server_cpu_s": round(cpu_seconds(server_pid) - cpu_before, 1),
        "both_load_after": load_average(),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--servers", default="vllm,transformers")
    parser.add_argument("--policon", type=int, default=60)
    parser.add_argument("--causal", type=int, default=100)
    parser.add_argument("--both-causal", type=int, default=0)
    parser.add_argument("--serving", choices=("before", "after"), default="after")
    args = parser.parse_args()
    rows = []
    for server in args.servers.split(","):
        row = measure(server, args.policon, args.causal, args.both_causal, args.serving)
        print(row, flush=True)
        rows.append(row)
    lines = [
        "# The demo judge: transformers serve against vLLM's CPU build",
        "",
        f"SmolLM2-135M-Instruct on {os.cpu_count()} CPUs shared with other work (load average before each figure "
        "in the table). Worker scoring path: 8 judge calls in flight, 2 items at once. One run each (a start costs "
        "minutes under load, so no repeats).",
        "",
        "| server | start (s) | PoliCon calls/s | requests per call | fallbacks | CausalPitfalls calls/s | requests "
        "per call "
        "| fallbacks | one PoliCon baseline run (s, extrapolated) | one CausalPitfalls baseline run (s) | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:

        def per_call(key: str) -> str:
            calls = r.get(f"{key}_calls") or 0  # noqa: B023 (called in this iteration)
            return f"{int(r[f'{key}_requests']) / int(calls):.2f}" if calls else "-"  # noqa: B023 (called in this iteration)

        lines.append(
            f"| {r['server']} | {r['start_s']} | {r.get('policon_calls_per_s', '-')} | {per_call('policon')} | "
            f"{r.get('policon_fallback_rate', '-')} | {r.get('causal-pitfalls_calls_per_s', '-')} | "
            f"{per_call('causal-pitfalls')} | {r.get('causal-pitfalls_fallback_rate', '-')} | "
            f"{r.get('policon_whole_sample_run_s', '-')} | {r.get('causal-pitfalls_whole_sample_run_s', '-')} | "
            f"{r['load_before_start']}, {r.get('policon_load', '-')}, {r.get('causal-pitfalls_load', '-')} |"
        )
    if args.both_causal:
        lines += [
            "",
            'Both CausalPitfalls boards\' "No analysis" baseline side by side:',
            "",
            "| server | serving | items per board | judge calls | requests to the model server | until both done (s) "
            "| server CPU (s) | load before, after |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(
                f"| {r['server']} | {r['serving']} | {r['both_items']} | {r['both_calls']} | "
                f"{r['both_server_requests']} | "
                f"{r['both_seconds']} | {r['both_server_cpu_s']} | {r['both_load']}, {r['both_load_after']} |"
            )
    lines += [
        "",
        f"Command: `.venv/bin/python bench/bench_demo_judge.py --servers {args.servers} --policon {args.policon} "
        f"--causal {args.causal} --both-causal {args.both_causal} --serving {args.serving}`.",
        "",
    ]
    write_results("demo_judge", {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "rows": rows}, lines)


if __name__ == "__main__":
    main()
