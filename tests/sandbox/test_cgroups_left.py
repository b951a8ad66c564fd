"""No per-run cgroup is left behind: a closed Sandbox leaves none of its own (a kept warm compiler's
included), and the groups of a process that ended without closing its sandboxes (a Celery prefork child
exits with ``os._exit``, which runs no atexit handler) are removed by the next Sandbox set up. Per-run
groups are named after the pid that made them (``r<pid>-<random>``), which is how these tests tell theirs
from those of other processes on the machine."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from evaluators.sandbox import Limits, Sandbox
from evaluators.sandbox.sandbox import CGROUP_NAME, CGROUP_ROOT

pytestmark = [
    pytest.mark.toolchains,
    pytest.mark.skipif(os.geteuid() != 0, reason="per-run cgroups are made only when the sandbox runs as root"),
]

REPO = Path(__file__).resolve().parents[2]
JAVA = "public class Main { public static void main(String[] a) { System.out.println(1); } }"


def groups_of(pid: int) -> set[str]:
    """The per-run cgroups of process ``pid``, as controller/name."""
    return {
        f"{controller}/{entry.name}"
        for controller in ("memory", "pids", "cpuacct")
        if (CGROUP_ROOT / controller / CGROUP_NAME).is_dir()
        for entry in os.scandir(CGROUP_ROOT / controller / CGROUP_NAME)
        if entry.name.startswith(f"r{pid}-")
    }


def procs(group: str) -> str:
    try:
        return (CGROUP_ROOT / group / "cgroup.procs").read_text().strip()
    except FileNotFoundError:
        return ""


def test_a_closed_sandbox_leaves_no_cgroup() -> None:
    before = groups_of(os.getpid())
    sandbox = Sandbox()
    assert sandbox.uses_cgroups
    with sandbox.program("java", JAVA) as program:  # compiled by a warm compiler, which stays (idle) with its cgroup
        assert program.compile_result.ok, program.compile_result.output
        with program.session(Limits(wall_seconds=20)) as session:
            assert session.run("").stdout == "1\n"
    with sandbox.program("python", "print(input())\n") as program, program.session(Limits(wall_seconds=20)) as session:
        assert session.run("2\n").stdout == "2\n"
    kept = groups_of(os.getpid()) - before
    assert len(kept) == 3 * (
        sandbox.warm_compilers is not None
    )  # the idle warm compiler's memory, pids and cpuacct groups
    sandbox.close()
    assert groups_of(os.getpid()) - before == set()


def test_the_groups_of_a_process_that_ended_without_closing_are_removed_by_the_next_sandbox() -> None:
    """A child compiles a Java program (its warm compiler kept with its cgroup), runs it, and ends with os._exit
    as a Celery prefork child does: its groups stay, empty, until a Sandbox is set up."""
    child = textwrap.dedent(f"""
        import os
        from evaluators.sandbox import Limits, Sandbox
        sandbox = Sandbox()
        with sandbox.program("java", {JAVA!r}) as program:
            with program.session(Limits(wall_seconds=20)) as session:
                assert session.run("").stdout == "1\\n"
        with sandbox.program("python", "print(2)\\n") as program:  # a session left open, as a killed worker's
            program.session(Limits(wall_seconds=20)).run("")
            print(os.getpid(), flush=True)
            os._exit(0)
    """)
    done = subprocess.run(
        [sys.executable, "-c", child],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split()[-1])
    left = groups_of(pid)
    assert len(left) >= 3  # its open session's memory, pids and cpuacct groups (and its warm compiler's)
    deadline = time.monotonic() + 30  # the kernel ends their processes (--die-with-parent) as the child exits
    while any(procs(group) for group in left) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(procs(group) for group in left)
    Sandbox().close()
    assert groups_of(pid) == set()
