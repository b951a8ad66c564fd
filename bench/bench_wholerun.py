"""A whole Multi-LCB run as a newcomer waits for it: the sample's example predictions (the reference
solution of every problem in all 12 languages, 264 items, as the site's example file has them) scored
by the command line (``python -m evaluators score``, sandboxed, 2 items at a time) and, with --worker,
by a worker of the site, against the same
programs compiled and run unsandboxed with the same commands, limits and concurrency, in the same run.

Per language: compile seconds, seconds per test and the share of the summed time, for both; the
verdicts of both must agree (they are printed if not). The unsandboxed side maps the sandbox's paths
(/prog, /opt/toolchains) to a temporary directory and the project's .toolchains, with the sandbox's
environment (PATH, HOME, the languages' own variables) and wall limit per test; it stops at a
program's first failing test, as the evaluator does. Nothing isolates it: run it on trusted code only.

With ``--worker``, the same file is also submitted on the site (a fresh Postgres database, Redis db 13)
and scored by a real Celery worker, timed from the upload to the run's success.

Run: ``.venv/bin/python bench/bench_wholerun.py [--worker] [--publish]`` (10-15 minutes on 2 cores). Results:
var/bench/wholerun.{json,md}, or bench/results/ with --publish.

``--languages cpp,go,rust --runs 3``: only those languages' items, the whole comparison repeated (both
sides in each run), per language the median of the runs' per-test ratios (sandboxed over unsandboxed,
each run's medians) and the worst run's; results ``wholerun_native.{json,md}``. The sandboxed side reuses
a program's session for the next program of its language (Multi-LCB's sandbox); with
LEADERBOARD_REUSE_SESSIONS=0 in the environment it starts one per program, as before.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import write_results
from evaluators.core import evaluator_for
from evaluators.multi_lcb.compare import outputs_match
from evaluators.multi_lcb.prompts import extract_code
from evaluators.sandbox import (
    LANGUAGES,
    PROG_DIR,
    TOOLCHAIN_DIR,
    TOOLCHAINS,
    Limits,
    jar_main_class,
    placeholders,
    without_cds,
)

CONCURRENCY = 2
TIME_LIMIT = float(os.environ.get("BENCH_TIME_LIMIT", "15"))


def host(text: str, prog: Path) -> str:
    return text.replace(TOOLCHAIN_DIR, str(TOOLCHAINS)).replace(PROG_DIR, str(prog))


def fill(template: tuple[str, ...] | dict[str, str], limits: Limits, prog: Path, main: str = "") -> Any:
    """The sandbox's command on the host's paths. Its class-data sharing archives are left out: they
    were made for the sandbox's paths and would not match here, so the plain JVMs start from the JDK's
    own archive (and the compilers cold)."""
    fmt = placeholders(limits, main)
    if isinstance(template, dict):
        return {k: " ".join(without_cds(host(v.format(**fmt), prog).split(" "))) for k, v in template.items()}
    return [host(part.format(**fmt), prog) for part in without_cds(template)]


def unsandboxed_item(item: Any, output: str, limits: Limits, gocache: Path) -> dict[str, Any]:
    language = item.slices["language"]
    lang = LANGUAGES[language]
    code = extract_code(output)
    tests = [*(item.payload.get("public_test_cases") or []), *(item.payload.get("private_test_cases") or [])]
    with tempfile.TemporaryDirectory(prefix="wholerun-") as tmp:
        prog = Path(tmp) / "prog"
        prog.mkdir()
        (Path(tmp) / "home").mkdir()
        for sub in lang.mkdirs:
            (prog / sub).mkdir(parents=True, exist_ok=True)
        (prog / lang.source_name).write_text(code)
        env = {
            "PATH": f"{TOOLCHAINS}/go/bin:{TOOLCHAINS}/rust/bin:/usr/local/bin:/usr/bin:/bin",
            "HOME": f"{tmp}/home",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TMPDIR": tmp,
            "USER": "bench",
        }
        compile_env = {**env, **fill(lang.compile_env, limits, prog)}
        if "GOCACHE" in compile_env:
            compile_env.update(GOCACHE=str(gocache), GOPATH=f"{tmp}/gopath")
        started = time.perf_counter()
        done = subprocess.run(
            fill(lang.compile_cmd, limits, prog), env=compile_env, cwd=prog, capture_output=True, timeout=300
        )
        compile_s = time.perf_counter() - started
        result: dict[str, Any] = {"language": language, "compile_s": compile_s, "test_s": [], "verdict": "passed"}
        if done.returncode != 0:
            result["verdict"] = "compile_error"
            return result
        run_env = {**env, **fill(lang.env, limits, prog)}
        main = (jar_main_class(prog / lang.artifact) or "") if lang.jar_main_class and lang.artifact else ""
        for test in tests:
            started = time.perf_counter()
            try:
                ran = subprocess.run(
                    fill(lang.run_cmd, limits, prog, main),
                    input=test["input"].encode(),
                    env=run_env,
                    cwd=tmp,
                    capture_output=True,
                    timeout=limits.wall_seconds,
                )
            except subprocess.TimeoutExpired:
                result["test_s"].append(time.perf_counter() - started)
                result["verdict"] = "time_limit"
                break
            result["test_s"].append(time.perf_counter() - started)
            if ran.returncode != 0:
                result["verdict"] = "runtime_error"
                break
            if not outputs_match(ran.stdout.decode(errors="replace"), test["output"]):
                result["verdict"] = "wrong_answer"
                break
        return result


def per_language(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[row["language"]].append(row)
    total = sum(r["compile_s"] + sum(r["test_s"]) for r in rows) or 1.0
    for language, group in sorted(grouped.items()):
        tests = [t for r in group for t in r["test_s"]]
        spent = sum(r["compile_s"] + sum(r["test_s"]) for r in group)
        out[language] = {
            "items": len(group),
            "compile_s_median": statistics.median(r["compile_s"] for r in group),
            "compile_s_sum": sum(r["compile_s"] for r in group),
            "tests": len(tests),
            "test_s_median": statistics.median(tests) if tests else 0.0,
            "share": spent / total,
        }
    return out


def by_worker(predictions: bytes) -> float:
    """Seconds from submitting the example file on the site to its run's success, scored by a real Celery
    worker on a fresh Postgres database (RUN_CONCURRENCY 2, as the command line's 2 items at a time)."""
    import signal

    from bench.common import django_bench_setup

    django_bench_setup(
        "leaderboard_bench_wholerun",
        REPO / "var" / "bench-wholerun" / "site",
        LEADERBOARD_RUN_CONCURRENCY=str(CONCURRENCY),
        LEADERBOARD_EVALUATOR_SETTINGS=json.dumps({"multi-lcb": {"time_limit_seconds": TIME_LIMIT}}),
    )
    import redis
    from django.contrib.auth.models import User
    from django.db import connection

    from leaderboard.catalog.models import Benchmark
    from leaderboard.runs.services import submission_create_from_predictions

    redis.Redis.from_url(os.environ["CELERY_BROKER_URL"]).flushdb()  # the sample baselines' runs: not this bench's
    log_path = REPO / "var" / "bench-wholerun" / "worker.log"
    with log_path.open("wb") as log:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "workers.celery",
                "worker",
                "-Q",
                "cpu",
                "--concurrency",
                "1",
                "--loglevel",
                "INFO",
            ],
            cwd=REPO,
            env=dict(os.environ),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while b" ready." not in log_path.read_bytes() and time.monotonic() < deadline:
            time.sleep(0.2)
        owner = User.objects.create_user("newcomer", password="newcomer-password-long")
        started = time.perf_counter()
        submission = submission_create_from_predictions(
            owner=owner, benchmark=Benchmark.objects.get(slug="multi-lcb"), model_name="example", data=predictions
        )
        run = submission.runs.get()
        while not run.is_finished:
            time.sleep(0.5)
            run.refresh_from_db()
        elapsed = time.perf_counter() - started
        if run.status != "succeeded":
            raise SystemExit(f"the worker's run did not succeed: {run.failure_kind}: {run.failure_message}")
        return elapsed
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(60)
        connection.close()


def option(name: str) -> str | None:
    """The value of ``--name value`` or ``--name=value`` on the command line, else None."""
    for index, arg in enumerate(sys.argv):
        if arg == f"--{name}" and index + 1 < len(sys.argv):
            return sys.argv[index + 1]
        if arg.startswith(f"--{name}="):
            return arg.split("=", 1)[1]
    return None


def one_run(
    items: list[Any], outputs: dict[str, str], predictions: Path, work: Path, *, subset: bool
) -> dict[str, Any]:
    """Both sides once: the command line's sandboxed run and the unsandboxed one, in this order."""
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluators",
            "score",
            "--benchmark",
            "multi-lcb",
            "--dataset",
            str(evaluator_for("multi-lcb").presentation().sample_dataset()),
            "--predictions",
            str(predictions),
            "--concurrency",
            str(CONCURRENCY),
            "--setting",
            f"time_limit_seconds={TIME_LIMIT:g}",
            *(["--allow-missing"] if subset else []),
            "--out",
            str(work / "scores.json"),
        ],
        cwd=REPO,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    sandboxed_s = time.perf_counter() - started
    scores = json.loads((work / "scores.json").read_text())["item_scores"]
    sandboxed_rows = []
    for score in scores:
        for sample in score["detail"]["samples"]:
            tests_time = max(0.0, sample["wall_seconds"] - sample["compile_seconds"])
            runs = max(1, sample["tests_run"])
            sandboxed_rows.append(
                {
                    "item_id": score["item_id"],
                    "language": score["detail"]["language"],
                    "compile_s": sample["compile_seconds"],
                    "test_s": [tests_time / runs] * sample["tests_run"],
                    "verdict": sample["verdict"],
                }
            )

    gocache = work / "gocache"
    shutil.rmtree(gocache, ignore_errors=True)
    if (TOOLCHAINS / "gocache").is_dir():
        shutil.copytree(TOOLCHAINS / "gocache", gocache)
    limits = Limits(wall_seconds=TIME_LIMIT)
    started = time.perf_counter()
    with ThreadPoolExecutor(CONCURRENCY) as pool:
        plain_rows = list(
            pool.map(
                lambda item: {"item_id": item.id, **unsandboxed_item(item, outputs[item.id], limits, gocache)}, items
            )
        )
    plain_s = time.perf_counter() - started
    return {
        "sandboxed_s": sandboxed_s,
        "unsandboxed_s": plain_s,
        "sandboxed_rows": sandboxed_rows,
        "plain_rows": plain_rows,
    }


def native(items: list[Any], outputs: dict[str, str], work: Path, languages: list[str], runs: int) -> None:
    """``--languages``: the per-test ratio of those languages' items over ``runs`` runs (module docstring)."""
    chosen = [item for item in items if item.slices["language"] in languages]
    predictions = work / "example-subset.jsonl"
    predictions.write_text(
        "".join(json.dumps({"item_id": item.id, "output": outputs[item.id]}) + "\n" for item in chosen)
    )
    per_run = []
    for _ in range(runs):
        load_before = os.getloadavg()
        done = one_run(chosen, outputs, predictions, work, subset=True)
        sandboxed, plain = per_language(done["sandboxed_rows"]), per_language(done["plain_rows"])
        per_run.append(
            {
                "load_average_before": load_before,
                "load_average_after": os.getloadavg(),
                "sandboxed_s": done["sandboxed_s"],
                "unsandboxed_s": done["unsandboxed_s"],
                "passed_sandboxed": sum(r["verdict"] == "passed" for r in done["sandboxed_rows"]),
                "per_language": {
                    lang: {
                        "sandboxed_test_s": sandboxed[lang]["test_s_median"],
                        "unsandboxed_test_s": plain[lang]["test_s_median"],
                        "ratio": sandboxed[lang]["test_s_median"] / max(1e-9, plain[lang]["test_s_median"]),
                    }
                    for lang in languages
                },
            }
        )
    summary = {
        lang: {
            "ratio_median": statistics.median(r["per_language"][lang]["ratio"] for r in per_run),
            "ratio_worst": max(r["per_language"][lang]["ratio"] for r in per_run),
            "sandboxed_test_s_median": statistics.median(r["per_language"][lang]["sandboxed_test_s"] for r in per_run),
            "unsandboxed_test_s_median": statistics.median(
                r["per_language"][lang]["unsandboxed_test_s"] for r in per_run
            ),
        }
        for lang in languages
    }
    reuse = os.environ.get("LEADERBOARD_REUSE_SESSIONS", "1") != "0"
    loads = [r["load_average_before"][0] for r in per_run] + [r["load_average_after"][0] for r in per_run]
    result = {
        "items": len(chosen),
        "languages": languages,
        "runs": runs,
        "concurrency": CONCURRENCY,
        "time_limit_s": TIME_LIMIT,
        "cpus": os.cpu_count(),
        "reuse_sessions": reuse,
        "per_run": per_run,
        "summary": summary,
        "goal_ratio_at_most": 1.3,
    }
    lines = [
        f"# A whole Multi-LCB run, native languages: a test against a bare process "
        f"({'sessions reused' if reuse else 'a session per program'})",
        "",
        f"{len(chosen)} items ({', '.join(languages)}: the reference solutions), {CONCURRENCY} at a time, {runs} "
        f"runs, both sides in "
        f"each run; {os.cpu_count()} CPUs, load average {min(loads):.1f}-{max(loads):.1f} over the runs (the machine "
        f"was shared). "
        f"Command: `{'LEADERBOARD_REUSE_SESSIONS=0 ' if not reuse else ''}.venv/bin/python bench/bench_wholerun.py "
        f"--languages "
        f"{','.join(languages)} --runs {runs}`.",
        "",
        "A sandboxed test is the item's time after its compile (session, tests, close) over its tests; a bare one is "
        "a fresh "
        "unsandboxed process per test with the same command and limits, run in the same run.",
        "",
        "| language | per test median (ms) sandboxed / bare | ratio, median of runs | ratio, worst run | goal 1.3x |",
        "|---|---:|---:|---:|---|",
    ]
    for lang in languages:
        row = summary[lang]
        lines.append(
            f"| {lang} | {row['sandboxed_test_s_median'] * 1000:.1f} / {row['unsandboxed_test_s_median'] * 1000:.1f} | "
            f"{row['ratio_median']:.2f}x | {row['ratio_worst']:.2f}x | "
            f"{'met' if row['ratio_median'] <= 1.3 else 'not met'} |"
        )
    lines += [
        "",
        "Per run: "
        + "; ".join(
            f"sandboxed {r['sandboxed_s']:.0f} s, bare {r['unsandboxed_s']:.0f} s, "
            f"{r['passed_sandboxed']}/{len(chosen)} passed, load {r['load_average_before'][0]:.1f}->"
            f"{r['load_average_after'][0]:.1f}"
            for r in per_run
        )
        + ".",
        "",
    ]
    write_results("wholerun_native" if reuse else "wholerun_native_per_program", result, lines)


def main() -> None:
    evaluator = evaluator_for("multi-lcb")
    items = list(evaluator.import_release(evaluator.presentation().sample_dataset()))
    work = REPO / "var" / "bench-wholerun"
    work.mkdir(parents=True, exist_ok=True)
    predictions = work / "example.jsonl"
    predictions.write_bytes(evaluator.presentation().example_predictions(items))
    outputs = {
        json.loads(line)["item_id"]: json.loads(line)["output"]
        for line in predictions.read_text().splitlines()
        if line.strip()
    }
    languages = option("languages")
    if languages:
        native(items, outputs, work, languages.split(","), int(option("runs") or "1"))
        return
    load_before = os.getloadavg()
    done = one_run(items, outputs, predictions, work, subset=False)
    sandboxed_s, plain_s = done["sandboxed_s"], done["unsandboxed_s"]
    sandboxed_rows, plain_rows = done["sandboxed_rows"], done["plain_rows"]

    worker_s = by_worker(predictions.read_bytes()) if "--worker" in sys.argv else None

    sandboxed_verdicts = {r["item_id"]: r["verdict"] for r in sandboxed_rows}
    disagreements = [
        (r["item_id"], sandboxed_verdicts.get(r["item_id"]), r["verdict"])
        for r in plain_rows
        if sandboxed_verdicts.get(r["item_id"]) != r["verdict"]
    ]
    sandboxed_lang, plain_lang = per_language(sandboxed_rows), per_language(plain_rows)
    result = {
        "items": len(items),
        "concurrency": CONCURRENCY,
        "time_limit_s": TIME_LIMIT,
        "cpus": os.cpu_count(),
        "load_average_before": load_before,
        "load_average_after": os.getloadavg(),
        "sandboxed_cli_s": sandboxed_s,
        "sandboxed_worker_s": worker_s,
        "unsandboxed_s": plain_s,
        "ratio": sandboxed_s / plain_s,
        "sandboxed_items_per_s": len(items) / sandboxed_s,
        "passed_sandboxed": sum(v == "passed" for v in sandboxed_verdicts.values()),
        "verdict_disagreements": disagreements,
        "per_language": {"sandboxed": sandboxed_lang, "unsandboxed": plain_lang},
        "goals": {"ratio_at_most": 1.5, "newcomer_seconds_at_most": 120},
    }
    lines = [
        "# A whole Multi-LCB run: the sample's example predictions",
        "",
        f"{len(items)} items (the reference solutions in 12 languages), {CONCURRENCY} at a time, {TIME_LIMIT:g} s per "
        f"test; "
        f"{os.cpu_count()} CPUs, load average {load_before[0]:.1f} before and {result['load_average_after'][0]:.1f} "
        f"after. "
        "Command: `.venv/bin/python bench/bench_wholerun.py` (one run each way: a whole run takes minutes).",
        "",
        f"- Sandboxed, by the command line: **{sandboxed_s:.0f} s** ({result['sandboxed_items_per_s']:.2f} items/s), "
        f"{result['passed_sandboxed']} of {len(items)} passed.",
        *(
            [
                f"- Sandboxed, submitted on the site and scored by a Celery worker (2 items at a time): "
                f"**{worker_s:.0f} s** from the "
                f"upload to the run's success."
            ]
            if worker_s is not None
            else []
        ),
        f"- The same programs unsandboxed, same commands and limits: {plain_s:.0f} s. Ratio {result['ratio']:.2f}x "
        f"(goal at most 1.5x: {'met' if result['ratio'] <= 1.5 else 'not met'}; a newcomer's example submission in "
        f"under "
        f"2 minutes: {'met' if sandboxed_s <= 120 else 'not met'}).",
        f"- Verdicts that differ between the two: {len(disagreements)}"
        + (f" ({disagreements[:5]})" if disagreements else "")
        + ".",
        "",
        "| language | compile median (s) sandboxed / unsandboxed | per test median (s) sandboxed / unsandboxed | "
        "share of the summed time sandboxed / unsandboxed |",
        "|---|---:|---:|---:|",
    ]
    for language in sandboxed_lang:
        s, p = sandboxed_lang[language], plain_lang.get(language, {})
        lines.append(
            f"| {language} | {s['compile_s_median']:.2f} / {p.get('compile_s_median', 0):.2f} | "
            f"{s['test_s_median']:.3f} / {p.get('test_s_median', 0):.3f} | {s['share']:.0%} / {p.get('share', 0):.0%} |"
        )
    compile_share = sum(r["compile_s"] for r in sandboxed_rows) / max(
        1e-9, sum(r["compile_s"] + sum(r["test_s"]) for r in sandboxed_rows)
    )
    lines += [
        "",
        f"Compiling is {compile_share:.0%} of the sandboxed run's summed time. Per-test times on the sandboxed side "
        f"are the "
        "program's test time divided by its tests (the command line records one figure per program).",
        "",
    ]
    write_results("wholerun", result, lines)


if __name__ == "__main__":
    main()
