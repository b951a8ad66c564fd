"""Sandbox overhead per test: sandboxed runs (one sandbox per program, each test its own process under
the sandbox's supervisor) against a fresh unsandboxed process per test (Python and C++), on two workloads: A+B (read two
numbers, print their sum: the shape of most tests, so the fixed cost per test dominates) and a heavy loop (200,000
steps: the program's own time dominates). For Python A+B, also LiveCodeBench's in-process method reproduced (its harness
is not installed here): one process per program, each test run by exec of the compiled program with stdin and stdout
swapped for strings, no isolation. Interpreters come from fixed paths (/usr/bin/python3), never from PATH, where a shim
can make a bare start 10x slower.

Run: ``.venv/bin/python bench/bench_sandbox.py [--publish]``; BENCH_REPEATS runs (default 3), medians per
run, worst run shown. Results: var/bench/sandbox.{json,md}, or bench/results/ with --publish."""

from __future__ import annotations

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

from bench.common import results_dir
from evaluators.sandbox import Limits, Sandbox, toolchain_versions
from evaluators.sandbox.warm_python import ZYGOTE_MODULES

#: what the sandbox's warm Python imports before the first test (its fork floor imports them too)
WARM_MODULES: tuple[str, ...] = ("site", *ZYGOTE_MODULES)

N = int(os.environ.get("BENCH_TESTS", "50"))
REPEATS = int(os.environ.get("BENCH_REPEATS", "3"))
PYTHON = "/usr/bin/python3"
#: memory held by the scoring process while it starts sandboxes (MB above its own), and runs per size
SPAWN_EXTRA_MB: tuple[int, ...] = tuple(int(mb) for mb in os.environ.get("BENCH_SPAWN_MB", "0,2048").split(","))
SPAWN_RUNS = int(os.environ.get("BENCH_SPAWN_RUNS", "5"))
WORKLOADS: dict[str, tuple[dict[str, str], str]] = {
    "a+b": (
        {
            "python": "a, b = map(int, input().split())\nprint(a + b)\n",
            "cpp": '#include <cstdio>\nint main(){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a+b);}\n',
        },
        "3 4\n",
    ),
    "loop": (
        {
            "python": "a, b = map(int, input().split())\nprint(sum(i * i for i in range(a, b)) % 1000003)\n",
            "cpp": (
                '#include <cstdio>\nint main(){long long a,b,s=0;scanf("%lld %lld",&a,&b);'
                'for(long long i=a;i<b;i++)s=(s+i*i)%1000003;printf("%lld\\n",s);}\n'
            ),
        },
        "1 200000\n",
    ),
}
#: LiveCodeBench's method for stdin problems (lcb_runner's testing_util, grade_stdio), reproduced: one
#: process per program, the program wrapped as a function once, and per test an alarm, captured stdout
#: and five mock patches of open/stdin (no process start, no isolation)
IN_PROCESS = """
import faulthandler, io, signal, sys, time
from io import StringIO
from unittest.mock import mock_open, patch

# LiveCodeBench's stdin method: the program wrapped once as a function; per test an alarm, stdout
# captured, and builtins.open / sys.stdin and its read functions patched with the test's input
source = open(sys.argv[1]).read()
wrapped = "def wrapped_function():\\n" + "".join("    " + line + "\\n" for line in source.splitlines())
namespace = {}
exec(compile(wrapped, "main.py", "exec"), namespace)
method = namespace["wrapped_function"]
faulthandler.enable()
signal.signal(signal.SIGALRM, lambda *a: (_ for _ in ()).throw(TimeoutError()))
stdin, n = sys.argv[2], int(sys.argv[3])


def call(inputs):
    lines = iter(inputs.split("\\n"))

    @patch("builtins.open", mock_open(read_data=inputs))
    @patch("sys.stdin", StringIO(inputs))
    @patch("sys.stdin.readline", lambda *args: next(lines))
    @patch("sys.stdin.readlines", lambda *args: inputs.split("\\n"))
    @patch("sys.stdin.read", lambda *args: inputs)
    def run():
        return method()
    return run()


times = []
for _ in range(n):
    started = time.perf_counter()
    signal.alarm(6)
    out, real = io.StringIO(), sys.stdout
    sys.stdout = out
    try:
        call(stdin)
    finally:
        sys.stdout = real
    signal.alarm(0)
    times.append(time.perf_counter() - started)
print(" ".join(map(str, times)))
"""


def in_process(src: str, stdin: str) -> list[float]:
    with tempfile.TemporaryDirectory() as d:
        (Path(d) / "main.py").write_text(src)
        (Path(d) / "harness.py").write_text(IN_PROCESS)
        done = subprocess.run(
            [PYTHON, f"{d}/harness.py", f"{d}/main.py", stdin, str(N)], capture_output=True, text=True, check=True
        )
        return [float(t) for t in done.stdout.split()]


def plain(language: str, src: str, stdin: str, cpu: list[float] | None = None) -> list[float]:
    with tempfile.TemporaryDirectory() as d:
        if language == "python":
            (Path(d) / "main.py").write_text(src)
            cmd = [PYTHON, f"{d}/main.py"]
        else:
            (Path(d) / "main.cpp").write_text(src)
            subprocess.run(["g++", "-O2", "-std=gnu++17", "-o", f"{d}/main", f"{d}/main.cpp"], check=True)
            cmd = [f"{d}/main"]
        times = []
        mine, children = time.process_time(), _children_cpu()
        for _ in range(N):
            t = time.perf_counter()
            subprocess.run(cmd, input=stdin.encode(), capture_output=True, check=True, timeout=15)
            times.append(time.perf_counter() - t)
        if cpu is not None:
            cpu.append((time.process_time() - mine + _children_cpu() - children) / N)
        return times


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def sandboxed(sandbox: Sandbox, language: str, src: str, stdin: str, cpu: list[float] | None = None) -> list[float]:
    """One sandbox for the program's N tests (a session, as the Multi-LCB evaluator runs them): each
    test its own process with its own limits, under the sandbox's supervisor. ``cpu`` gets the CPU
    seconds per test of everything involved: this process and the session's cgroup (the supervisor,
    the warm Python, the tests)."""
    with sandbox.program(language, src) as prog:
        assert prog.compile_result.ok, prog.compile_result.output
        times = []
        with prog.session(Limits(wall_seconds=15)) as session:
            session.run(stdin)  # started outside the clock: the per-test cost, not the sandbox's start
            group = session.cgroup.cpu_seconds() if session.cgroup is not None else None
            mine = time.process_time()
            for _ in range(N):
                t = time.perf_counter()
                r = session.run(stdin)
                times.append(time.perf_counter() - t)
                assert r.status == "ok", r
            if cpu is not None and group is not None and session.cgroup is not None:
                cpu.append((time.process_time() - mine + (session.cgroup.cpu_seconds() or 0.0) - group) / N)
        return times


def one_sandbox_per_test(sandbox: Sandbox, language: str, src: str, stdin: str) -> list[float]:
    """A new sandbox (bwrap and supervisor) for every test: the cost of one isolated single run."""
    with sandbox.program(language, src) as prog:
        times = []
        for _ in range(max(5, N // 5)):
            t = time.perf_counter()
            assert prog.run(stdin, Limits(wall_seconds=15)).status == "ok"
            times.append(time.perf_counter() - t)
        return times


#: the floor of any design with a process per test: a warm Python forks a child that exits at once, and
#: reaps it (no isolation, no input or output, no interpreter start); with arguments after the count,
#: it imports those modules first (the warm fork floor: the sandbox's warm Python holds them). With
#: FLOOR_PROGRAM and FLOOR_INPUT set (the program floor), the child runs that program instead of exiting:
#: compiled once before the forks, run as ``__main__`` with the input on a pipe as its stdin and its
#: stdout a pipe the parent reads (what any process per test must do for a Python program, with no
#: isolation, limits, supervisor or checks)
FORK_FLOOR = """
import io, os, resource, sys, time
for name in sys.argv[2:]:
    __import__(name)
program, stdin = os.environ.get("FLOOR_PROGRAM"), os.environ.get("FLOOR_INPUT", "").encode()
code = compile(program, "main.py", "exec") if program else None
times = []
cpu = time.process_time()
for _ in range(int(sys.argv[1])):
    started = time.perf_counter()
    if code is not None:
        (in_r, in_w), (out_r, out_w) = os.pipe(), os.pipe()
        os.write(in_w, stdin)
        os.close(in_w)
    pid = os.fork()
    if pid == 0:
        if code is not None:
            os.dup2(in_r, 0)
            os.dup2(out_w, 1)
            sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)))
            sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)))
            exec(code, {"__name__": "__main__", "__builtins__": __builtins__})
            sys.stdout.flush()
        os._exit(0)
    if code is not None:
        os.close(in_r)
        os.close(out_w)
        while os.read(out_r, 65536):
            pass
        os.close(out_r)
    os.waitpid(pid, 0)
    times.append(time.perf_counter() - started)
children = resource.getrusage(resource.RUSAGE_CHILDREN)
times.append((time.process_time() - cpu + children.ru_utime + children.ru_stime) / int(sys.argv[1]))
print(" ".join(map(str, times)))
"""


def fork_floor(
    cpu: list[float] | None = None, modules: tuple[str, ...] = (), program: tuple[str, str] | None = None
) -> list[float]:
    """Per fork, reaped: wall seconds (and the CPU seconds of both processes per fork into ``cpu``),
    from a Python that imported ``modules`` first; ``program``: (source, input) the child runs."""
    env = {**os.environ, **({"FLOOR_PROGRAM": program[0], "FLOOR_INPUT": program[1]} if program else {})}
    done = subprocess.run(
        [PYTHON, "-I", "-S", "-c", FORK_FLOOR, str(N), *modules], capture_output=True, text=True, check=True, env=env
    )
    values = [float(t) for t in done.stdout.split()]
    if cpu is not None:
        cpu.append(values[-1])
    return values[:-1]


def spawn_at_rss(sandbox: Sandbox, extra_mb: int, runs: int) -> list[float]:
    """Seconds for one isolated C++ run (a new sandbox: bubblewrap started by the scoring process, one
    test) while this process holds ``extra_mb`` more memory, touched page by page: a fork of the
    scoring process copies its page tables, a vfork does not."""
    held = bytearray(extra_mb << 20)
    held[::4096] = b"\x01" * len(range(0, len(held), 4096))
    src, stdin = WORKLOADS["a+b"][0]["cpp"], WORKLOADS["a+b"][1]
    times = []
    with sandbox.program("cpp", src) as prog:
        for _ in range(runs):
            t = time.perf_counter()
            assert prog.run(stdin, Limits(wall_seconds=15)).status == "ok"
            times.append(time.perf_counter() - t)
    del held
    return times


def bare_bwrap() -> list[float]:
    """Floor: a minimal bwrap (user+pid+mount namespaces, /usr only) running /bin/true."""
    cmd = [
        "/usr/bin/bwrap",
        "--unshare-user",
        "--unshare-pid",
        "--ro-bind",
        "/usr",
        "/usr",
        "--symlink",
        "usr/lib",
        "/lib",
        "--symlink",
        "usr/lib64",
        "/lib64",
        "--symlink",
        "usr/bin",
        "/bin",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "/bin/true",
    ]
    times = []
    for _ in range(N):
        t = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True, timeout=15)
        times.append(time.perf_counter() - t)
    return times


OVERHEAD_NOTE = """
## Where the time goes

A program gets one sandbox for all its tests (evaluators/sandbox/supervisor.py): bubblewrap, its cgroup
(memory, processes, CPU accounting) and a pooled empty network namespace are set up once, and a small
supervisor inside (the sandbox's pid 1) runs each test as its own process with its own limits (CPU,
file size, memory through the cgroup, output) under a seccomp filter, kills whatever the test left
running, empties /tmp and /dev/shm and removes every IPC object before the next. Python tests are
forked from a warm interpreter (the zygote) that imported the standard library before any input
arrived, and compiled the program once; the supervisor hands it the test's pipe ends and never the
input, which it writes into the pipe itself. Per test what remains is: a binary request and reply
over a pipe (fixed fields, then the raw input or output; the command, environment and limits only
once per session; the reply checked: its nonce, lengths and ranges), the cgroup counters read once
after the test from descriptors kept open (OOM kills, CPU, refused forks; the last test's reading
stands for "before"), one fork of the warm Python and one call of the spawn library in the child
(its set-up), or for a compiled test a vfork of the supervisor whose child sets the test up and execs
it (spawn.so: no launcher exec, no fork of the supervisor), the exit of the test's process and its
reaping, the scan of the sandbox's /proc to kill strays, and the wipe (a stat of /tmp, /dev/shm and
/dev/mqueue, whose tmpfs and mqueue sizes say whether they are empty, and one call per kind of
System V IPC object that says whether any exists; a scan only when something is there). The fork and
the exit alone cost about as much as LiveCodeBench's whole in-process test (the "fork floor" line
above), and a fork of the warm interpreter, which holds the standard library's common modules, costs
more than that of a bare one (the "warm fork floor" line), so a process per test, which is what keeps
one test's module-level state and memory from the next, cannot reach that harness's rate on this machine.

Starting a sandbox (bwrap's namespaces and ~25 mounts, the cgroup, the supervisor's interpreter) is
now paid once per program; a single isolated run (`Program.run`) pays it every time, which is the
"single run" figure above. On this 2-core machine shared with other jobs every hand-off waits for a
CPU, so absolute numbers vary between runs; compare ratios within one run.
"""


def measure_once(sandbox: Sandbox) -> dict:
    load = os.getloadavg()[0]
    rows = []
    for workload, (programs, stdin) in WORKLOADS.items():
        for language, src in programs.items():
            plain_cpu: list[float] = []
            sandbox_cpu: list[float] = []
            p = statistics.median(plain(language, src, stdin, plain_cpu))
            s = statistics.median(sandboxed(sandbox, language, src, stdin, sandbox_cpu))
            row = {
                "workload": workload,
                "language": language,
                "tests": N,
                "plain_median_s": p,
                "sandbox_median_s": s,
                "sandbox_vs_plain_rate": p / s,
                "overhead_s": s - p,
                "sandbox_tests_per_s": 1 / s,
                "plain_tests_per_s": 1 / p,
                "plain_cpu_s": plain_cpu[0],
                "sandbox_cpu_s": sandbox_cpu[0] if sandbox_cpu else None,
            }
            if workload == "a+b":
                row["one_sandbox_per_test_median_s"] = statistics.median(
                    one_sandbox_per_test(sandbox, language, src, stdin)
                )
            if language == "python" and workload == "a+b":
                inproc = statistics.median(in_process(src, stdin))
                row.update(
                    in_process_median_s=inproc, in_process_tests_per_s=1 / inproc, sandbox_vs_in_process_rate=inproc / s
                )
            rows.append(row)
    floor_cpu: list[float] = []
    warm_cpu: list[float] = []
    program_cpu: list[float] = []
    return {
        "load_average_before": load,
        "load_average_after": os.getloadavg()[0],
        "rows": rows,
        "bare_bwrap_true_median_s": statistics.median(bare_bwrap()),
        "fork_floor_median_s": statistics.median(fork_floor(floor_cpu)),
        "fork_floor_cpu_s": floor_cpu[0],
        "warm_fork_floor_median_s": statistics.median(fork_floor(warm_cpu, WARM_MODULES)),
        "warm_fork_floor_cpu_s": warm_cpu[0],
        "program_floor_median_s": statistics.median(
            fork_floor(program_cpu, WARM_MODULES, (WORKLOADS["a+b"][0]["python"], WORKLOADS["a+b"][1]))
        ),
        "program_floor_cpu_s": program_cpu[0],
        "spawn_s": {str(mb): statistics.median(spawn_at_rss(sandbox, mb, SPAWN_RUNS)) for mb in SPAWN_EXTRA_MB},
    }


def main() -> None:
    sandbox = Sandbox()
    runs = [measure_once(sandbox) for _ in range(REPEATS)]
    keys = [(r["workload"], r["language"]) for r in runs[0]["rows"]]

    def across(key: tuple[str, str], field: str) -> list[float]:
        return [next(r for r in run["rows"] if (r["workload"], r["language"]) == key)[field] for run in runs]

    out = {
        "runs": runs,
        "tests_per_run": N,
        "repeats": REPEATS,
        "uses_cgroups": sandbox.uses_cgroups,
        "pooled_netns": sandbox.pooled_netns,
        "versions": {k: v for k, v in toolchain_versions().items() if k in ("python", "cpp")},
        "load_averages": [round(run["load_average_before"], 2) for run in runs],
        "load_averages_after": [round(run["load_average_after"], 2) for run in runs],
        "note": "2-core shared machine; per-test wall time incl. process start, cgroup setup and teardown",
    }
    res = results_dir()
    (res / "sandbox.json").write_text(json.dumps(out, indent=2) + "\n")
    md = [
        f"{N} tests per row and run, {REPEATS} runs; load average before each run: {out['load_averages']}, after: "
        f"{out['load_averages_after']}. Figures: median of the runs' medians (worst run in brackets). CPU: the CPU "
        "seconds per test of every process involved (the scoring process, and the session's cgroup: supervisor, "
        "warm Python, test; for a fresh process, it and its parent), which the load moves far less than the wall "
        "clock. "
        "Command: `.venv/bin/python bench/bench_sandbox.py`.",
        "",
        "| workload | language | fresh process per test (ms) | sandboxed, one sandbox per program (ms) | sandboxed "
        "tests/s "
        "| sandboxed / fresh-process rate | CPU per test, fresh / sandboxed (ms) |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for key in keys:
        plain_ms = [v * 1000 for v in across(key, "plain_median_s")]
        sand_ms = [v * 1000 for v in across(key, "sandbox_median_s")]
        rate = across(key, "sandbox_vs_plain_rate")
        plain_cpu = [v * 1000 for v in across(key, "plain_cpu_s")]
        sand_cpu = [v * 1000 for v in across(key, "sandbox_cpu_s") if v is not None]
        cpu_cell = (
            f"{statistics.median(plain_cpu):.2f} / {statistics.median(sand_cpu):.2f} ({max(sand_cpu):.2f})"
            if sand_cpu
            else f"{statistics.median(plain_cpu):.2f} / -"
        )
        md.append(
            f"| {key[0]} | {key[1]} | {statistics.median(plain_ms):.1f} ({max(plain_ms):.1f}) | "
            f"{statistics.median(sand_ms):.1f} "
            f"({max(sand_ms):.1f}) | {1000 / statistics.median(sand_ms):.0f} | {statistics.median(rate):.2f}x "
            f"({min(rate):.2f}x) "
            f"| {cpu_cell} |"
        )
    inproc = [v * 1000 for v in across(("a+b", "python"), "in_process_median_s")]
    vs_inproc = across(("a+b", "python"), "sandbox_vs_in_process_rate")
    floor = [run["bare_bwrap_true_median_s"] * 1000 for run in runs]
    forks = [run["fork_floor_median_s"] * 1000 for run in runs]
    singles = {
        key: statistics.median(v * 1000 for v in across(key, "one_sandbox_per_test_median_s"))
        for key in keys
        if key[0] == "a+b"
    }
    md += [
        "",
        "A single isolated run (a new sandbox and supervisor for it, as `Program.run` does) on A+B: "
        + "; ".join(f"{key[1]} {ms:.1f} ms" for key, ms in singles.items())
        + ".",
    ]
    md += [
        "",
        f"Python A+B, LiveCodeBench's in-process method reproduced (no isolation): {statistics.median(inproc):.3f} ms "
        f"per test "
        f"({1000 / statistics.median(inproc):.0f} tests/s); the sandbox runs at {statistics.median(vs_inproc):.3f}x "
        f"that rate "
        f"(worst run {min(vs_inproc):.3f}x).",
        f"A fork of a Python that exits at once, reaped (the floor of a process per test, no isolation), same runs: "
        f"median {statistics.median(forks):.3f} ms (worst {max(forks):.3f}); the in-process method takes "
        f"{statistics.median(inproc) / statistics.median(forks):.2f}x that per test.",
        f"Bare bwrap running /bin/true (the floor of any one-sandbox-per-test design), same runs: median "
        f"{statistics.median(floor):.1f} ms "
        f"(worst {max(floor):.1f}).",
        f"cgroups: {sandbox.uses_cgroups}; pooled network namespaces: {sandbox.pooled_netns}.",
    ]
    floor_cpu = [run["fork_floor_cpu_s"] * 1000 for run in runs]
    py = [v * 1000 for v in across(("a+b", "python"), "sandbox_median_s")]
    py_cpu = [v * 1000 for v in across(("a+b", "python"), "sandbox_cpu_s") if v is not None]
    md += [
        "",
        f"Python A+B against the fork floor, same runs: {statistics.median(py) / statistics.median(forks):.1f}x its "
        f"wall time "
        f"(worst run {max(p / f for p, f in zip(py, forks)):.1f}x)"
        + (
            f", {statistics.median(py_cpu) / statistics.median(floor_cpu):.1f}x its CPU "
            f"({statistics.median(floor_cpu):.2f} ms per fork "
            "of both processes)"
            if py_cpu
            else ""
        )
        + ".",
    ]
    warm = [run["warm_fork_floor_median_s"] * 1000 for run in runs]
    warm_cpu = [run["warm_fork_floor_cpu_s"] * 1000 for run in runs]
    md += [
        "",
        f"Warm fork floor (the same, from a Python that imported what the sandbox's warm Python imports: "
        f"{len(WARM_MODULES)} modules), same runs: median {statistics.median(warm):.3f} ms wall (worst "
        f"{max(warm):.3f}), "
        f"{statistics.median(warm_cpu):.2f} ms CPU; Python A+B is "
        f"{statistics.median(py) / statistics.median(warm):.1f}x its wall time"
        + (f" and {statistics.median(py_cpu) / statistics.median(warm_cpu):.1f}x its CPU" if py_cpu else "")
        + ".",
    ]
    program = [run["program_floor_median_s"] * 1000 for run in runs]
    program_cpu = [run["program_floor_cpu_s"] * 1000 for run in runs]
    md += [
        "",
        f"Program floor (the warm fork floor's Python forks a child that runs Python A+B itself: its input on a pipe, "
        f"its output read from one, nothing else: no isolation, limits, supervisor or checks), same runs: median "
        f"{statistics.median(program):.3f} ms wall (worst {max(program):.3f}), {statistics.median(program_cpu):.2f} "
        f"ms CPU, "
        f"{statistics.median(program_cpu) / statistics.median(floor_cpu):.1f}x the bare fork floor's CPU; the "
        f"sandboxed test is "
        f"{statistics.median(py) / statistics.median(program):.2f}x its wall time"
        + (f" and {statistics.median(py_cpu) / statistics.median(program_cpu):.2f}x its CPU" if py_cpu else "")
        + ".",
    ]
    sizes = sorted({mb for run in runs for mb in run["spawn_s"]}, key=int)
    md += [
        "",
        f"Starting a sandbox while the scoring process holds more memory (one isolated C++ A+B run, a new sandbox "
        f"each, "
        f"{SPAWN_RUNS} per size and run; median of the runs' medians, worst run in brackets): "
        + "; ".join(
            f"+{mb} MB: {statistics.median(run['spawn_s'][mb] * 1000 for run in runs):.1f} ms "
            f"({max(run['spawn_s'][mb] * 1000 for run in runs):.1f})"
            for mb in sizes
        )
        + ".",
    ]
    (res / "sandbox.md").write_text("# Sandbox overhead per test\n\n" + "\n".join(md) + "\n" + OVERHEAD_NOTE)
    print("\n".join(md))


if __name__ == "__main__":
    main()
