"""Time and peak memory of importing and scoring releases as they grow: Multi-LCB at 1x, 10x and 50x
our 22-problem sample and at LiveCodeBench v6's shape, and a PoliCon-sized judged run.

Releases are generated in LiveCodeBench's format with a correct Python solution for every problem
(``evaluators.multi_lcb.synthetic``): the sample copied N times (its problems, tests and reference
solutions), and v6's shape (1,055 problems x 30 private tests, 20 of them with about 5 MB of tests,
private tests in the official compressed encoding). Each size is

- imported with the command line (``python -m evaluators items``: every item to the items file, each
  problem's tests once, and its index), timed, its peak memory taken;
- scored with the command line (``python -m evaluators score``, the worker's scoring loop): every one
  of the release's items is read and scored, the Python items of a deterministic subset of problems
  (about 22: every k-th, plus at v6's shape the first problem with 5 MB of tests) with their correct
  solutions, every other item with an answer without code (a no_code verdict, no program run). On
  this 2-core machine shared with other work, running every test of v6's shape would take hours; the
  per-test cost is the subset's scoring time over the tests it ran.

PoliCon: its release's size (2,172 / 2,022 / 1,530 tasks with 2 / 4 / 6 parties, five items a task:
28,620 items, 108,060 judge calls), the sample's tasks repeated, imported whole, and the items of every
k-th task (``--policon-every``, 10 by default; the others left out with ``--allow-missing``) scored by the
command line against a scripted judge over HTTP (``tests.support.openai_server`` in its own process,
answering "7" at once).

Peak memory is each command's own maximum resident set (``getrusage(RUSAGE_SELF)`` in a child process
that runs the command line's ``main``; the sandboxed programs and the judge are other processes).
The 1-minute load average is taken before each step; scoring runs ``--repeats`` times (median and
worst); imports run once.

    .venv/bin/python bench/bench_scale.py [--sizes 1,10,50,v6] [--policon [--policon-every 10]] [--repeats 2]
    [--publish]

Results: var/bench/scale.{json,md} (``--sizes ""``: the PoliCon run alone, in scale_policon.{json,md}), or
bench/results/ with --publish.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import load_average, median_worst, write_results

SUBSET = 22  # problems whose Python solutions run, at every size


def child(argv: list[str]) -> None:
    """Run the command line's main in this process and print its status, time and peak RSS as JSON."""
    import contextlib
    import io

    from evaluators.__main__ import main

    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        status = main(argv)
    print(
        json.dumps(
            {
                "status": status,
                "seconds": time.perf_counter() - started,
                "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                "stdout": out.getvalue(),
            }
        )
    )


def measured(argv: list[str]) -> dict[str, Any]:
    """One command line run in a child process: its time, peak memory and the load before it."""
    load = load_average()
    done = subprocess.run(
        [sys.executable, __file__, "--child", json.dumps(argv)], capture_output=True, text=True, cwd=REPO
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:3])} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result["status"] != 0:
        raise SystemExit(f"{' '.join(argv[:3])} exited {result['status']}:\n{result['stdout'][-3000:]}")
    return {**result, "load": load}


def scoring_fields(runs: list[dict[str, Any]], unit: str, units: int, *, digits: int) -> dict[str, Any]:
    """A size's scoring figures over its runs: time and peak memory (median and worst), time per
    ``unit`` (``units`` of them in a run; ``digits`` after the point) and the load before each run."""
    seconds, peaks = [r["seconds"] for r in runs], [r["peak_mb"] for r in runs]
    median_s, worst_s = median_worst(seconds, higher_is_better=False)
    median_mb, worst_mb = median_worst(peaks, higher_is_better=False)
    return {
        "score_s": round(median_s, 1),
        "score_s_worst": round(worst_s, 1),
        "score_peak_mb": round(median_mb, 1),
        "score_peak_mb_worst": round(worst_mb, 1),
        f"ms_per_{unit}": round(1000 * median_s / units, digits),
        f"ms_per_{unit}_worst": round(1000 * worst_s / units, digits),
        "score_loads": [r["load"] for r in runs],
    }


def multi_lcb_size(size: str, folder: Path, repeats: int) -> dict[str, Any]:
    from evaluators.multi_lcb.prompts import LANGUAGE_KEYS
    from evaluators.multi_lcb.synthetic import V6_SHAPE, replicate_sample, write_predictions, write_release

    started = time.perf_counter()
    release_path = folder / "release.jsonl"
    if size == "v6":
        release = write_release(V6_SHAPE, release_path)
        bigs = _big_ids(release)
        big = next(qid for qid in release.question_ids if qid in bigs)
        scored = release.every(len(release.question_ids) // SUBSET + 1) + [big]
    else:
        release = replicate_sample(int(size), release_path)
        scored = release.every(int(size))
    generated_s = time.perf_counter() - started
    programs = write_predictions(release, folder / "predictions.jsonl", LANGUAGE_KEYS, scored)
    items_path = folder / "items.jsonl"
    imported = measured(["items", "--benchmark", "multi-lcb", "--release", str(release_path), "--out", str(items_path)])
    index_bytes = (folder / "items.jsonl.index").stat().st_size
    items_bytes = items_path.stat().st_size
    old_bytes = _old_format_bytes(items_path, len(LANGUAGE_KEYS))
    runs = [
        measured(
            [
                "score",
                "--benchmark",
                "multi-lcb",
                "--dataset",
                str(items_path),
                "--predictions",
                str(folder / "predictions.jsonl"),
                "--concurrency",
                "2",
            ]
        )
        for _ in range(repeats)
    ]
    tests_run = sum(release.tests[qid] for qid in scored)
    for run in runs:
        if "language=python" not in run["stdout"]:
            raise SystemExit(run["stdout"])
    row = {
        "size": size if size == "v6" else f"{size}x",
        "problems": len(release.question_ids),
        "items": len(release.question_ids) * len(LANGUAGE_KEYS),
        "tests": sum(release.tests.values()),
        "released_mb": round(release.released_bytes / 1e6, 1),
        "tests_decoded_mb": round(release.test_bytes / 1e6, 1),
        "items_file_mb": round(items_bytes / 1e6, 1),
        "old_items_file_mb": round(old_bytes / 1e6, 1),
        "index_kb": round(index_bytes / 1e3, 1),
        "generate_s": round(generated_s, 1),
        "import_s": round(imported["seconds"], 1),
        "import_peak_mb": round(imported["peak_mb"], 1),
        "import_load": imported["load"],
        "scored_problems": len(scored),
        "programs": programs,
        "tests_run": tests_run,
        **scoring_fields(runs, "test", tests_run, digits=1),
    }
    print(row, flush=True)
    return row


def _big_ids(release: Any) -> set[str]:
    """The problems of a v6-shaped release whose tests are the big ones (the sort problems among every
    52nd problem, as ``write_release`` spreads them)."""
    from evaluators.multi_lcb.synthetic import V6_SHAPE

    every = V6_SHAPE.problems // V6_SHAPE.big_problems
    return {
        qid
        for n, qid in enumerate(release.question_ids)
        if n % every == every // 2 and n // every < V6_SHAPE.big_problems
    }


def _old_format_bytes(items_path: Path, languages: int) -> int:
    """What the items file would have weighed before shared parts: each shared line once per language
    item instead of once (counted from the file, a line at a time)."""
    total = 0
    with items_path.open("rb") as handle:
        for line in handle:
            total += len(line) * languages if line.startswith(b'{"shared": ') else len(line)
    return total


def policon(folder: Path, repeats: int, every: int) -> dict[str, Any]:
    """A PoliCon-sized release from the sample's tasks, imported and scored against a scripted judge."""
    from evaluators.core.registry import evaluator_for
    from evaluators.policon.release import iter_tasks

    sample = evaluator_for("policon").presentation().sample_dataset()
    root = sample / "task_datas" if (sample / "task_datas").is_dir() else sample
    counts = {"2": 2172, "4": 2022, "6": 1530}  # the paper's tasks by party count
    tasks_dir = folder / "datas" / "task_datas"
    items = 0
    for parties, wanted in counts.items():
        records = [json.loads(f.read_text()) for f in sorted((root / parties).glob("*.json"))]
        flat = [r for file_records in records for r in file_records]
        (tasks_dir / parties).mkdir(parents=True)
        by_topic: dict[str, list[dict[str, Any]]] = {}
        for n in range(wanted):
            record = dict(flat[n % len(flat)])
            record["id"] = n + 1
            by_topic.setdefault(record["topic"], []).append(record)
        for topic, topic_records in by_topic.items():
            (tasks_dir / parties / f"{topic}.json").write_text(json.dumps(topic_records))
        items += 5 * wanted
    assert sum(1 for _ in iter_tasks(folder / "datas")) == sum(counts.values())
    items_path = folder / "items.jsonl"
    imported = measured(
        ["items", "--benchmark", "policon", "--release", str(folder / "datas"), "--out", str(items_path)]
    )
    parties = {
        record["id"]: int(record["slices"]["parties"])
        for record in map(json.loads, items_path.read_text().splitlines())
        if "id" in record
    }
    ids = list(parties)
    assert len(ids) == items
    # the items of every ``every``-th task are judged (--allow-missing: the others are left out)
    tasks = list(dict.fromkeys(i.rsplit("/", 1)[0] for i in ids))
    chosen = set(tasks[::every])
    answered = [i for i in ids if i.rsplit("/", 1)[0] in chosen]
    calls = sum(parties[i] for i in answered)  # one judge call per party
    predictions = folder / "predictions.jsonl"
    predictions.write_text(
        "".join(
            json.dumps({"item_id": i, "output": f"The European Parliament resolved task {i}."}) + "\n" for i in answered
        )
    )
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_server", "0", "7"], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        base_url = (server.stdout.readline() if server.stdout else "").strip()
        runs = [
            measured(
                [
                    "score",
                    "--benchmark",
                    "policon",
                    "--dataset",
                    str(items_path),
                    "--predictions",
                    str(predictions),
                    "--judge",
                    f"{base_url},judge",
                    "--judge-concurrency",
                    "8",
                    "--concurrency",
                    "2",
                    "--allow-missing",
                ]
            )
            for _ in range(repeats)
        ]
    finally:
        server.kill()
        server.wait()
    row = {
        "size": "PoliCon",
        "tasks": sum(counts.values()),
        "items": items,
        "judged_items": len(answered),
        "every": every,
        "judge_calls": calls,
        "release_judge_calls": 5 * sum(int(k) * v for k, v in counts.items()),
        "items_file_mb": round(items_path.stat().st_size / 1e6, 1),
        "import_s": round(imported["seconds"], 1),
        "import_peak_mb": round(imported["peak_mb"], 1),
        "import_load": imported["load"],
        **scoring_fields(runs, "call", calls, digits=2),
    }
    print(row, flush=True)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="1,10,50,v6", help="sample multiples and/or v6, comma-separated")
    parser.add_argument("--policon", action="store_true", help="also the PoliCon-sized judged run")
    parser.add_argument("--policon-every", type=int, default=10, help="judge the items of every k-th PoliCon task")
    parser.add_argument("--repeats", type=int, default=2, help="scoring runs per size")
    parser.add_argument("--publish", action="store_true", help="write to bench/results/")
    args = parser.parse_args()
    if args.child:
        child(json.loads(args.child))
        return
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-scale-", dir=REPO / "var") as tmp:
        for size in [size for size in args.sizes.split(",") if size]:
            folder = Path(tmp) / size
            folder.mkdir()
            rows.append(multi_lcb_size(size, folder, args.repeats))
            for path in folder.iterdir():
                path.unlink()  # a size's files go before the next is generated (the disk is shared)
        if args.policon:
            folder = Path(tmp) / "policon"
            folder.mkdir()
            rows.append(policon(folder, args.repeats, args.policon_every))
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "repeats": args.repeats,
        "rows": rows,
    }
    lcb = [r for r in rows if r["size"] != "PoliCon"]
    lines = [
        "# Scale: import and scoring as releases grow",
        "",
        f"Generated releases on {result['cpu_count']} CPUs shared with other work ({result['date']}); "
        f"imports run once, scoring {args.repeats} times (median, worst in brackets); the 1-minute load average "
        "before each step is in the last column. Peak: the command's own maximum resident set. Multi-LCB: every "
        "item is read and scored, the Python solutions of a deterministic subset of problems run (the rest answer "
        "without code); ms/test is the scoring time over the tests run.",
        "",
        "| size | problems | items | released MB | items file MB (before: tests per language) | import s | import "
        "peak MB "
        "| scored problems / tests run | score s | score peak MB | ms/test | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in lcb:
        lines.append(
            f"| {r['size']} | {r['problems']:,} | {r['items']:,} | {r['released_mb']} | {r['items_file_mb']} "
            f"({r['old_items_file_mb']}) | {r['import_s']} | {r['import_peak_mb']} | {r['scored_problems']} / "
            f"{r['tests_run']:,} | {r['score_s']} ({r['score_s_worst']}) | {r['score_peak_mb']} "
            f"({r['score_peak_mb_worst']}) | {r['ms_per_test']} ({r['ms_per_test_worst']}) | "
            f"{r['import_load']}; {', '.join(map(str, r['score_loads']))} |"
        )
    for r in (r for r in rows if r["size"] == "PoliCon"):
        lines += [
            "",
            f"PoliCon-sized ({r['tasks']:,} tasks, {r['items']:,} items, {r['release_judge_calls']:,} judge calls in "
            f"all): "
            + (
                "every item judged"
                if r["every"] == 1
                else f"the whole release imported; the items of every "
                f"{r['every']}th task judged ({r['judged_items']:,} items, the others left out with --allow-missing)"
            )
            + f" ({r['judge_calls']:,} calls against a scripted judge answering at once, 8 calls in flight, 2 items "
            f"at a "
            f"time): items file {r['items_file_mb']} MB, import "
            f"{r['import_s']} s at {r['import_peak_mb']} MB peak; scoring {r['score_s']} s ({r['score_s_worst']}) "
            f"at {r['score_peak_mb']} MB ({r['score_peak_mb_worst']}) peak, {r['ms_per_call']} ms a judge call "
            f"({r['ms_per_call_worst']}); load {r['import_load']}; {', '.join(map(str, r['score_loads']))}.",
        ]
    if not lcb:  # the PoliCon run alone (--sizes ""): its own results file, the Multi-LCB table kept
        lines = [lines[0] + ": PoliCon", *lines[-2:]]
    write_results("scale" if lcb else "scale_policon", result, lines + [""])


if __name__ == "__main__":
    main()
