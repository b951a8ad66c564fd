"""Reused sessions (``Sandbox(reuse_sessions=True)``, resident.SessionPool; issue 47 point 5): a
program's session, its tests done, serves the next program of the same language and limits instead of
ending, and nothing of the first program reaches the second: /prog holds only the attached program's
files, /tmp and /dev/shm are empty, the pid counter starts again; a session whose supervisor did not
stay whole is never given back; another language or other limits get a session of their own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evaluators.sandbox import Limits, Sandbox

LIMITS = Limits(wall_seconds=10.0, cpu_seconds=10.0, memory_mb=256, processes=32, file_size_mb=8)

#: what a test sees of the sandbox a program before it may have touched, then it leaves its own traces
LOOK = """
import os
print("prog", sorted(os.listdir("/prog")), open("/prog/main.py").read().count("LOOK"))
print("tmp", sorted(os.listdir("/tmp")), "shm", sorted(os.listdir("/dev/shm")))
print("pid", os.getpid())
open("/tmp/left-by-" + input(), "w").write("x")
open("/dev/shm/left", "w").write("x")
"""


@pytest.fixture(scope="module")
def pooled() -> Iterator[Sandbox]:
    sandbox = Sandbox(warm_compilers=False, reuse_sessions=True)
    yield sandbox
    sandbox.close()


def test_the_next_program_reuses_the_session_and_finds_nothing_of_the_last(pooled: Sandbox) -> None:
    assert pooled.session_pool is not None
    pooled.session_pool.close()
    first = pooled.program("python", LOOK + "# LOOK\n", run_limits=LIMITS)
    second = None
    try:
        with first.session(LIMITS) as session:
            before = session.run("first")
            supervisor = session.proc
        assert len(pooled.session_pool.resident_uids()) == 1
        second = pooled.program("python", LOOK, run_limits=LIMITS)  # its syntax check in the session given back
        with second.session(LIMITS) as session:
            after = session.run("second")
            assert session.proc is supervisor  # the same sandbox, not a new one
        assert before.status == after.status == "ok", (before, after)
        # the first program's source has two LOOKs (its marker line), the second's one: /prog is the attached program's
        assert before.stdout.splitlines()[:2] == ["prog ['main.py'] 2", "tmp [] shm []"]
        assert after.stdout.splitlines()[:2] == ["prog ['main.py'] 1", "tmp [] shm []"]
        assert before.stdout.splitlines()[2] == after.stdout.splitlines()[2]  # the pid counter started again
        # detached: each program's files are back in its own directory, and it runs again
        assert sorted(p.name for p in first.prog_dir.iterdir()) == ["main.py"]
        assert first.run("again", LIMITS).stdout.startswith("prog ['main.py'] 2")
    finally:
        first.close()
        if second is not None:
            second.close()


def test_a_session_whose_supervisor_was_not_kept_whole_is_not_reused(pooled: Sandbox) -> None:
    assert pooled.session_pool is not None
    pooled.session_pool.close()
    killer = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"  # the warm Python it was forked from
    with pooled.program("python", killer, run_limits=LIMITS) as program:
        with program.session(LIMITS) as session:
            session.run("")
            lost = session.proc
        assert lost is None
    with pooled.program("python", "print(1)\n", run_limits=LIMITS) as program, program.session(LIMITS) as session:
        assert session.run("").stdout == "1\n"
        assert session.programs == 1  # a new session: nothing of the killed one was given back


def test_other_limits_and_other_languages_get_sessions_of_their_own(pooled: Sandbox) -> None:
    assert pooled.session_pool is not None
    pooled.session_pool.close()
    other = Limits(wall_seconds=5.0, cpu_seconds=5.0, memory_mb=128, processes=16, file_size_mb=4)
    with pooled.program("python", "print(1)\n", run_limits=LIMITS) as program, program.session(LIMITS) as session:
        session.run("")
    with pooled.program("python", "print(2)\n", run_limits=other) as program, program.session(other) as session:
        assert session.run("").stdout == "2\n" and session.programs == 1
    assert len(pooled.session_pool.resident_uids()) == 2
