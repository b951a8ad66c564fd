"""The per-test cost through the command line: ``python -m evaluators score`` on one Multi-LCB item
with many tests (a generated "sum" problem: read n integers, print their sum), in C++ and in Python,
against the same tests run as fresh unsandboxed processes, and against the fork floor (a warm
Python forking a child that exits at once, reaped).

The marginal cost per test is what the command line's time grows by per test: its run on an item of
TESTS tests minus its run on the same problem with one test, over the difference, so that Python's
start, the imports, the toolchain versions and the compile cancel out. Wall seconds, and CPU
seconds of the command line and every process it waited for (its rusage of children: bubblewrap,
the supervisor, the tests).

Several checkouts can be measured in one run, alternately (``--checkouts BEFORE,AFTER``), each with
its own ``.venv``; results: var/bench/cli_tests.{json,md}, or bench/results/ with --publish.

Run: ``.venv/bin/python bench/bench_cli_tests.py [--checkouts DIR,...] [--tests N] [--runs R] [--publish]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bench_sandbox import WARM_MODULES, fork_floor
from bench.common import results_dir
from evaluators.multi_lcb.synthetic import KINDS, Shape, write_release

CPP_SUM = (
    '#include <cstdio>\nint main(){long long n,s=0,x;if(scanf("%lld",&n)!=1)return 0;'
    'for(long long i=0;i<n;i++){scanf("%lld",&x);s+=x;}printf("%lld\\n",s);}\n'
)
PY_SUM = KINDS["sum"][1]
PROGRAMS = {"cpp": CPP_SUM, "python": PY_SUM}


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def score(checkout: Path, release: Path, predictions: Path, out: Path) -> tuple[float, float, dict[str, object]]:
    """Wall and CPU seconds of one ``score`` call, and its item's result."""
    cpu, started = children_cpu(), time.perf_counter()
    subprocess.run(
        [
            str(checkout / ".venv/bin/python"),
            "-m",
            "evaluators",
            "score",
            "--benchmark",
            "multi-lcb",
            "--dataset",
            str(release),
            "--predictions",
            str(predictions),
            "--allow-missing",
            "--out",
            str(out),
        ],
        cwd=checkout,
        check=True,
        capture_output=True,
    )
    wall, cpu = time.perf_counter() - started, children_cpu() - cpu
    return wall, cpu, json.loads(out.read_text())


def fresh(language: str, work: Path, inputs: list[str]) -> tuple[float, float]:
    """Per test, wall and CPU seconds (this process and the test) of the tests as fresh unsandboxed processes."""
    if language == "python":
        (work / "main.py").write_text(PY_SUM)
        cmd = ["/usr/bin/python3", str(work / "main.py")]
    else:
        (work / "main.cpp").write_text(CPP_SUM)
        subprocess.run(["g++", "-O2", "-std=gnu++17", "-o", str(work / "main"), str(work / "main.cpp")], check=True)
        cmd = [str(work / "main")]
    mine, cpu, started = time.process_time(), children_cpu(), time.perf_counter()
    for stdin in inputs:
        subprocess.run(cmd, input=stdin.encode(), capture_output=True, check=True, timeout=15)
    n = len(inputs)
    return (time.perf_counter() - started) / n, (time.process_time() - mine + children_cpu() - cpu) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkouts", default=str(REPO), help="checkouts to measure alternately, comma-separated")
    parser.add_argument("--tests", type=int, default=2000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--publish", action="store_true")
    args = parser.parse_args()
    checkouts = [Path(c).resolve() for c in args.checkouts.split(",")]
    work = Path(tempfile.mkdtemp(prefix="bench-cli-tests-"))
    releases = {
        size: write_release(Shape(problems=1, tests=size - 1, test_bytes=40), work / f"release-{size}.jsonl")
        for size in (1, args.tests)
    }
    qid = releases[1].question_ids[0]
    predictions = {}
    for language, code in PROGRAMS.items():
        predictions[language] = work / f"predictions-{language}.jsonl"
        fence = "cpp" if language == "cpp" else "python"
        predictions[language].write_text(
            json.dumps({"item_id": f"{qid}/{language}", "output": f"```{fence}\n{code}```\n"}) + "\n"
        )
    from evaluators.multi_lcb.release import iter_problems

    problem = next(iter(iter_problems(releases[args.tests].path)))
    inputs = [case["input"] for case in problem["public_test_cases"] + problem["private_test_cases"]]
    assert len(inputs) == args.tests, len(inputs)
    runs: list[dict[str, object]] = []
    for _ in range(args.runs):
        record: dict[str, object] = {"load_average_before": os.getloadavg()[0], "checkouts": {}}
        for language in PROGRAMS:
            for checkout in checkouts:
                per: dict[str, dict[str, float]] = {}
                for size in (1, args.tests):
                    wall, cpu, result = score(checkout, releases[size].path, predictions[language], work / "out.json")
                    pass_at_1 = next(m["value"] for m in result["metrics"] if m["key"] == "pass@1" and not m["slice"])  # type: ignore[attr-defined, index]
                    assert pass_at_1 == 1.0, (checkout, language, size, result)
                    per[str(size)] = {"wall_s": wall, "cpu_s": cpu}
                marginal_wall = (per[str(args.tests)]["wall_s"] - per["1"]["wall_s"]) / (args.tests - 1)
                marginal_cpu = (per[str(args.tests)]["cpu_s"] - per["1"]["cpu_s"]) / (args.tests - 1)
                record["checkouts"].setdefault(str(checkout), {})[language] = {  # type: ignore[union-attr]
                    **per,
                    "marginal_wall_s": marginal_wall,
                    "marginal_cpu_s": marginal_cpu,
                }
            fresh_wall, fresh_cpu = fresh(language, work, inputs[:300])
            record[f"fresh_{language}"] = {"wall_s": fresh_wall, "cpu_s": fresh_cpu}
        floor_cpu: list[float] = []
        record["fork_floor_wall_s"] = statistics.median(fork_floor(floor_cpu))
        record["fork_floor_cpu_s"] = floor_cpu[0]
        program_cpu: list[float] = []
        record["program_floor_wall_s"] = statistics.median(
            fork_floor(program_cpu, WARM_MODULES, (PROGRAMS["python"], inputs[-1]))
        )
        record["program_floor_cpu_s"] = program_cpu[0]
        record["load_average_after"] = os.getloadavg()[0]
        runs.append(record)
        print(json.dumps(record, indent=1))
    out = {"tests": args.tests, "runs": runs, "checkouts": [str(c) for c in checkouts]}
    res = results_dir()
    (res / "cli_tests.json").write_text(json.dumps(out, indent=2) + "\n")
    md = [
        f"# Per test through the command line\n\n`python -m evaluators score` on one Multi-LCB item of {args.tests} "
        f"tests "
        f"against the same problem with 1 test (marginal cost per test), {args.runs} runs, checkouts alternated; load "
        f"average before each run: {[round(r['load_average_before'], 1) for r in runs]}, after: "  # type: ignore[arg-type]
        f"{[round(r['load_average_after'], 1) for r in runs]}. Median of the runs (worst in brackets). "  # type: ignore[arg-type]
        "Command: `.venv/bin/python bench/bench_cli_tests.py`.",
        "",
        "| checkout | language | marginal wall ms/test | marginal CPU ms/test | fresh process wall / CPU ms | fresh / "
        "sandboxed (wall) | fresh / sandboxed (CPU) | sandboxed CPU / fork-floor CPU |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for checkout in checkouts:
        for language in PROGRAMS:
            rows = [r["checkouts"][str(checkout)][language] for r in runs]  # type: ignore[index]
            wall = [row["marginal_wall_s"] * 1000 for row in rows]
            cpu = [row["marginal_cpu_s"] * 1000 for row in rows]
            fw = [r[f"fresh_{language}"]["wall_s"] * 1000 for r in runs]  # type: ignore[index]
            fc = [r[f"fresh_{language}"]["cpu_s"] * 1000 for r in runs]  # type: ignore[index]
            floor = [r["fork_floor_cpu_s"] * 1000 for r in runs]  # type: ignore[index]
            ratio_w = [f / s for f, s in zip(fw, wall)]
            ratio_c = [f / s for f, s in zip(fc, cpu)]
            vs_floor = [s / f for s, f in zip(cpu, floor)]
            md.append(
                f"| {checkout.name} | {language} | {statistics.median(wall):.2f} ({max(wall):.2f}) | "
                f"{statistics.median(cpu):.2f} ({max(cpu):.2f}) | {statistics.median(fw):.2f} / "
                f"{statistics.median(fc):.2f} | "
                f"{statistics.median(ratio_w):.2f}x ({min(ratio_w):.2f}x) | {statistics.median(ratio_c):.2f}x "
                f"({min(ratio_c):.2f}x) | "
                f"{statistics.median(vs_floor):.1f}x ({max(vs_floor):.1f}x) |"
            )
    floor_w = [r["fork_floor_wall_s"] * 1000 for r in runs]  # type: ignore[index]
    floor_c = [r["fork_floor_cpu_s"] * 1000 for r in runs]  # type: ignore[index]
    md += [
        "",
        f"Fork floor (a warm Python forks a child that exits at once, reaped), same runs: wall "
        f"{statistics.median(floor_w):.3f} ms, "
        f"CPU {statistics.median(floor_c):.3f} ms (both processes).",
    ]
    program_c = [r["program_floor_cpu_s"] * 1000 for r in runs]  # type: ignore[index]
    python_cpu = [r["checkouts"][str(checkouts[-1])]["python"]["marginal_cpu_s"] * 1000 for r in runs]  # type: ignore[index]
    md += [
        "",
        f"Program floor (the same warm Python, with the sandbox's warm modules imported, forks a child that runs the "
        f"Python "
        f"program on one of the tests' inputs through pipes, reaped; no isolation, limits or checks), same runs: wall "
        f"{statistics.median(r['program_floor_wall_s'] * 1000 for r in runs):.3f} ms, CPU "
        f"{statistics.median(program_c):.3f} ms "  # type: ignore[index]
        f"({statistics.median(program_c) / statistics.median(floor_c):.1f}x the fork floor); the last checkout's "
        f"sandboxed Python "
        f"test costs {statistics.median(python_cpu) / statistics.median(program_c):.2f}x its CPU.",
    ]
    (res / "cli_tests.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
