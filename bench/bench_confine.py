"""What confining a test costs, measured inside a sandbox session as a test program (so under the
supervisor's own seccomp filter, its uid and namespaces), the cases interleaved sample by sample: a fork
and exit of the test's Python (the floor), the same with a seccomp filter attached in the child (what a
filter per test would cost), the same with a user, PID and IPC namespace and the first process in it
(what a PID namespace per test would cost: the tests have no capability, so a user namespace is
needed too), and the supervisor's cleanup between tests with and without the IPC objects.

Run: ``.venv/bin/python bench/bench_confine.py``; prints medians in microseconds (BENCH_SAMPLES, default 300).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from evaluators.sandbox import Limits, Sandbox
from evaluators.sandbox.resident import SUPERVISOR_DIR

SAMPLES = int(os.environ.get("BENCH_SAMPLES", "300"))

PROGRAM = """import ctypes, os, statistics, sys, time
sys.path.insert(0, %(dir)r)
import confine
libc = ctypes.CDLL(None, use_errno=True)
filter_ = confine.Confinement()
NEWUSER, NEWPID, NEWIPC = 0x10000000, 0x20000000, 0x08000000


def pid_namespace():
    if libc.unshare(NEWUSER | NEWPID | NEWIPC) != 0:
        raise OSError(ctypes.get_errno(), "unshare")
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)


def forked(setup):
    started = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            setup()
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    return time.perf_counter() - started


def timed(call):
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


cases = {"fork and exit": lambda: forked(lambda: None),
         "fork, seccomp filter attached, exit": lambda: forked(filter_.apply),
         "fork, user+PID+IPC namespace and its first process, exit": lambda: forked(pid_namespace),
         "cleanup: /tmp and /dev/shm": lambda: timed(confine._wipe_files),
         "cleanup: /tmp, /dev/shm and every IPC object": lambda: timed(lambda: confine.wipe(libc))}
samples = {name: [] for name in cases}
for _ in range(%(n)d):
    for name, case in cases.items():
        samples[name].append(case())
for name, values in samples.items():
    print(f"{name}: {statistics.median(values) * 1e6:.0f} us")
"""


def main() -> None:
    sandbox = Sandbox()
    load = os.getloadavg()[0]
    source = PROGRAM % {"dir": SUPERVISOR_DIR, "n": SAMPLES}
    with (
        sandbox.program("python", source) as program,
        program.session(Limits(wall_seconds=300, cpu_seconds=300, processes=64)) as session,
    ):
        result = session.run("")
    print(f"load average before: {load:.2f}; status {result.status}")
    print(result.stdout or result.stderr)


if __name__ == "__main__":
    main()
