"""The JVM languages' costs, measured side by side in one run: per test (A+B, one sandbox per program,
each test its own JVM, as the Multi-LCB evaluator runs them) and per compile, today's commands against
the commands of before (e82cd87..8c25254) rebuilt here: Java without the run archive, Kotlin compiled with
``-include-runtime`` by the ``kotlinc`` script and started by ``java -jar``, Scala without the run archive;
and compiles cold (a JVM per compile, with the compiler's class-data sharing archive) against a warm
compiler (warm_compilers.WarmCompiler, the compile server). A fresh unsandboxed JVM per test, with the JDK's own
archive, is the floor.

Run: ``.venv/bin/python bench/bench_jvm.py [--publish]``; BENCH_REPEATS runs (default 3) of BENCH_TESTS
tests (default 20) and BENCH_COMPILES compiles (default 6; the warm figure is the median after the
first, which starts the server). Results: var/bench/jvm.{json,md}, or bench/results/ with --publish."""

from __future__ import annotations

import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import write_results
from evaluators.sandbox import (
    JVM_RUN_FLAGS,
    JVM_TOOL_OPTS,
    KOTLINC,
    LANGUAGES,
    PROG_DIR,
    TOOLCHAIN_DIR,
    TOOLCHAINS,
    Language,
    Limits,
    Sandbox,
    fill_command,
    toolchain_versions,
    without_cds,
)

N = int(os.environ.get("BENCH_TESTS", "20"))
COMPILES = int(os.environ.get("BENCH_COMPILES", "6"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
LIMITS = Limits(wall_seconds=15, cpu_seconds=15, memory_mb=1024)
A_PLUS_B: dict[str, str] = {
    "java": "import java.util.*;\npublic class Main {\n  public static void main(String[] args) {\n"
    "    Scanner in = new Scanner(System.in);\n    long a = in.nextLong(), b = in.nextLong();\n"
    "    System.out.println(a + b);\n  }\n}\n",
    "kotlin": 'fun main() {\n    val (a, b) = readln().split(" ").map { it.toLong() }\n    println(a + b)\n}\n',
    "scala": "object Main {\n  def main(args: Array[String]): Unit = {\n"
    '    val Array(a, b) = scala.io.StdIn.readLine().split(" ").map(_.toLong)\n    println(a + b)\n  }\n}\n',
}


def before(language: str) -> Language:
    """The language as it was compiled and run before this change (no warm compiler either)."""
    lang = LANGUAGES[language]
    if language == "kotlin":
        return replace(
            lang,
            compile_cmd=(KOTLINC, "{prog}/main.kt", "-include-runtime", "-nowarn", "-d", "{prog}/main.jar"),
            compile_env={"JAVA_OPTS": JVM_TOOL_OPTS},
            compiler_main=None,
            run_cmd=("java", *JVM_RUN_FLAGS, "-jar", "{prog}/main.jar"),
            jar_main_class=False,
        )
    return replace(lang, run_cmd=without_cds(lang.run_cmd), compiler_main=None)


def per_test(sandbox: Sandbox, lang: Language) -> float:
    with sandbox.program(lang, A_PLUS_B[lang.key]) as program:
        assert program.compile_result.ok, program.compile_result.output
        times = []
        with program.session(LIMITS) as session:
            for _ in range(N):
                started = time.perf_counter()
                result = session.run("3 4\n")
                times.append(time.perf_counter() - started)
                assert result.stdout == "7\n", result
        return statistics.median(times[1:])


def fresh_jvm(sandbox: Sandbox, language: str) -> float:
    """A fresh unsandboxed JVM per test (the JDK's own archive), on the sandbox's compiled program."""
    lang = before(language)
    with sandbox.program(lang, A_PLUS_B[language]) as program, tempfile.TemporaryDirectory() as tmp:
        cmd = [
            part.replace(PROG_DIR, str(program.prog_dir)).replace(TOOLCHAIN_DIR, str(TOOLCHAINS))
            for part in fill_command(lang.run_cmd, LIMITS)
        ]
        times = []
        for _ in range(N):
            started = time.perf_counter()
            done = subprocess.run(cmd, input=b"3 4\n", capture_output=True, cwd=tmp, timeout=30)
            times.append(time.perf_counter() - started)
            assert done.stdout == b"7\n", (shlex.join(cmd), done)
        return statistics.median(times[1:])


def compiles(sandbox: Sandbox, lang: Language) -> list[float]:
    seconds = []
    for _ in range(COMPILES):
        with sandbox.program(lang, A_PLUS_B[lang.key]) as program:
            assert program.compile_result.ok, program.compile_result.output
            seconds.append(program.compile_result.seconds)
    return seconds


def measure_once(cold: Sandbox, warm: Sandbox) -> dict[str, Any]:
    row: dict[str, Any] = {"load_average_before": os.getloadavg()[0]}
    for language in A_PLUS_B:
        row[language] = {
            "test_before_s": per_test(cold, before(language)),
            "test_now_s": per_test(cold, LANGUAGES[language]),
            "test_fresh_jvm_s": fresh_jvm(cold, language),
        }
        if LANGUAGES[language].compiler_main:
            row[language].update(
                compile_before_s=statistics.median(compiles(cold, before(language))),
                compile_cold_s=statistics.median(compiles(cold, LANGUAGES[language])),
                compile_warm_s=statistics.median(compiles(warm, LANGUAGES[language])[1:]),
            )
    return row


def main() -> None:
    cold, warm = Sandbox(warm_compilers=False), Sandbox(warm_compilers=True)
    if warm.warm_compilers is None:
        raise SystemExit("the compile server is not built: run scripts/install-toolchains")
    runs = [measure_once(cold, warm) for _ in range(REPEATS)]

    def cell(language: str, field: str, scale: float = 1000.0, digits: int = 0) -> str:
        values = [run[language][field] * scale for run in runs]
        return f"{statistics.median(values):.{digits}f} ({max(values):.{digits}f})"

    def ratio(language: str, slow: str, fast: str) -> str:
        values = [run[language][slow] / run[language][fast] for run in runs]
        return f"{statistics.median(values):.2f}x ({min(values):.2f}x)"

    loads = [round(run["load_average_before"], 2) for run in runs]
    lines = [
        "# The JVM languages: per test and per compile",
        "",
        f"{N} tests and {COMPILES} compiles per language and run, {REPEATS} runs; load average before each run: "
        f"{loads}. "
        "Figures: median of the runs' medians (worst run in brackets). Command: `.venv/bin/python bench/bench_jvm.py`.",
        "",
        "## Per test (A+B, one sandbox per program, each test its own JVM)",
        "",
        "| language | before (ms) | now (ms) | now / before: faster by | a fresh unsandboxed JVM (ms) |",
        "|---|---:|---:|---:|---:|",
    ]
    for language in A_PLUS_B:
        lines.append(
            f"| {language} | {cell(language, 'test_before_s')} | {cell(language, 'test_now_s')} | "
            f"{ratio(language, 'test_before_s', 'test_now_s')} | {cell(language, 'test_fresh_jvm_s')} |"
        )
    lines += [
        "",
        "Before: Java and Scala without the run archive (`<language>-run.jsa`); Kotlin's jar with its runtime "
        "(`-include-runtime`) started by `java -jar`. Now: every JVM run maps its language's run archive (the JDK's "
        "and the runtime library's classes a typical program loads, evaluators/sandbox/warm.py), and Kotlin's jar "
        "holds the program only, started with the shared kotlin-stdlib.jar on the class path.",
        "",
        "## Per compile (s)",
        "",
        "| language | before: a JVM per compile | now, cold: a JVM per compile | now, warm compiler | warm / cold: "
        "faster by |",
        "|---|---:|---:|---:|---:|",
    ]
    for language in A_PLUS_B:
        if "compile_cold_s" in runs[0][language]:
            lines.append(
                f"| {language} | {cell(language, 'compile_before_s', 1, 2)} | "
                f"{cell(language, 'compile_cold_s', 1, 2)} | "
                f"{cell(language, 'compile_warm_s', 1, 2)} | {ratio(language, 'compile_cold_s', 'compile_warm_s')} |"
            )
    lines += [
        "",
        "Before, for Kotlin: the `kotlinc` launcher script writing the runtime into every jar. Its compiler archive "
        "was made for the script's class path and no longer matches it, so that figure starts the compiler without one "
        "(stop 24's whole run measured 4.08 s with it). The warm compiler is the median of the compiles after the "
        "first one (which starts the server).",
        "",
    ]
    versions = {k: v for k, v in toolchain_versions().items() if k in A_PLUS_B}
    write_results(
        "jvm", {"runs": runs, "tests": N, "compiles": COMPILES, "repeats": REPEATS, "versions": versions}, lines
    )


if __name__ == "__main__":
    main()
