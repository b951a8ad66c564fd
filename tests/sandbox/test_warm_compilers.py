"""Warm compilers (warm_compilers.WarmCompiler): Java, Kotlin, Scala and TypeScript compiled by a compiler kept loaded
give the very outcome of a cold compile (status and message, for a program that compiles, one with a compile
error and one without an entry point); nothing of one program reaches the next program's compile; a server that
dies is replaced, and the compile it was given is done cold; closing the pool leaves no process."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time

import pytest

from evaluators.sandbox import Limits, Sandbox

pytestmark = pytest.mark.toolchains

PROGRAMS: dict[str, dict[str, str]] = {
    "java": {
        "ok": "import java.util.*;\npublic class Main {\n  public static void main(String[] args) {\n"
        "    Scanner in = new Scanner(System.in);\n    System.out.println(in.nextLong() + in.nextLong());\n  }\n}\n",
        "error": 'public class Main {\n  public static void main(String[] args) {\n    int x = "text";\n  }\n}\n',
        "no_entry": "public class Solution {\n  public static void main(String[] args) {}\n}\n",
        # javac's class path is /prog: a class the first program left there would be found
        "leaves": "class LeftByTheFirstProgram { static long value = 41; }\n"
        "public class Main {\n  public static void main(String[] args) {\n"
        "    System.out.println(LeftByTheFirstProgram.value);\n  }\n}\n",
        "uses": "public class Main {\n  public static void main(String[] args) {\n"
        "    System.out.println(LeftByTheFirstProgram.value + 1);\n  }\n}\n",
    },
    "kotlin": {
        "ok": 'fun main() {\n    val (a, b) = readln().split(" ").map { it.toLong() }\n    println(a + b)\n}\n',
        "error": 'fun main() {\n    val x: Int = "text"\n    println(x)\n}\n',
        "no_entry": "fun helper(x: Int): Int = x + 1\n",
        # defines a top-level function the next program calls: it must not exist for that compile
        "leaves": "fun leftByTheFirstProgram(): Long = 41\nfun main() { println(leftByTheFirstProgram()) }\n",
        "uses": "fun main() { println(leftByTheFirstProgram() + 1) }\n",
    },
    "scala": {
        "ok": "object Main {\n  def main(args: Array[String]): Unit = {\n"
        '    val Array(a, b) = scala.io.StdIn.readLine().split(" ").map(_.toLong)\n    println(a + b)\n  }\n}\n',
        "error": 'object Main {\n  def main(args: Array[String]): Unit = {\n    val x: Int = "text"\n  }\n}\n',
        "no_entry": "object Helper {\n  def f(x: Int): Int = x + 1\n}\n",
        "leaves": "object LeftByTheFirstProgram { val value = 41L }\n"
        "object Main { def main(args: Array[String]): Unit = println(LeftByTheFirstProgram.value) }\n",
        "uses": "object Main { def main(args: Array[String]): Unit = println(LeftByTheFirstProgram.value + 1) }\n",
    },
    "typescript": {  # type errors are not compile errors (tsc --noCheck), syntax errors are; no entry point to miss
        "ok": 'const [a, b] = require("fs").readFileSync(0, "utf8").trim().split(" ").map(Number);\nconsole.log(a + '
        "b);\n",
        "error": "const x = ;\nconsole.log(x);\n",
        "leaves": "var leftByTheFirstProgram = 41;\nconsole.log(leftByTheFirstProgram);\n",
        "uses": "console.log(leftByTheFirstProgram + 1);\n",
    },
}


@pytest.fixture(scope="module")
def warm() -> Sandbox:
    sandbox = Sandbox(warm_compilers=True)
    assert sandbox.warm_compilers is not None, "scripts/install-toolchains builds the compile server"
    yield sandbox
    sandbox.warm_compilers.close()


@pytest.fixture(scope="module")
def cold() -> Sandbox:
    sandbox = Sandbox(warm_compilers=False)
    assert sandbox.warm_compilers is None
    return sandbox


def server_pids(sandbox: Sandbox) -> list[int]:
    assert sandbox.warm_compilers is not None
    uids = sandbox.warm_compilers.resident_uids()
    out = subprocess.run(["ps", "-eo", "uid=,stat=,pid="], capture_output=True, text=True, check=True).stdout
    return [
        int(pid)
        for uid, stat, pid in (line.split() for line in out.splitlines())
        if int(uid) in uids and not stat.startswith("Z")
    ]


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_a_warm_compile_answers_as_a_cold_one(warm: Sandbox, cold: Sandbox, language: str) -> None:
    for kind in ("ok", "error", "no_entry", "ok"):  # the last one on a server that has compiled three
        if kind not in PROGRAMS[language]:
            continue
        source = PROGRAMS[language][kind]
        with warm.program(language, source) as hot, cold.program(language, source) as plain:
            assert hot.compile_result.status == plain.compile_result.status, (kind, hot.compile_result.output)
            assert hot.compile_result.output == plain.compile_result.output, kind
            assert hot.main_class == plain.main_class
            if kind == "ok":
                assert hot.compile_result.ok
                limits = Limits(wall_seconds=20, cpu_seconds=20, memory_mb=1024)
                assert hot.run("3 4\n", limits).stdout == plain.run("3 4\n", limits).stdout == "7\n"
    assert server_pids(warm), "a server waits for the next compile"


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_nothing_of_one_program_reaches_the_next_compile(warm: Sandbox, language: str) -> None:
    with warm.program(language, PROGRAMS[language]["leaves"]) as first:
        assert first.compile_result.ok, first.compile_result.output
        assert first.run("", Limits(wall_seconds=20, cpu_seconds=20, memory_mb=1024)).stdout == "41\n"
        with warm.program(language, PROGRAMS[language]["uses"]) as second:  # the same server
            # the name is unknown: to the compiler, or (tsc --noCheck resolves no names) to the run
            message = second.compile_result.output
            if language == "typescript":
                assert second.compile_result.ok, message
                run = second.run("", Limits(wall_seconds=20, cpu_seconds=20, memory_mb=1024))
                assert run.status == "runtime_error" and run.stdout == "", run
                message = run.stderr
            else:
                assert second.compile_result.status == "compile_error", message
            assert "LeftByTheFirstProgram" in message or "leftByTheFirstProgram" in message, message
    assert warm.warm_compilers is not None
    for idle in warm.warm_compilers._idle.values():
        for server in idle:
            assert list(server.work.iterdir()) == [], "a server's /prog is empty between compiles"


@pytest.mark.parametrize("language", sorted(PROGRAMS))
def test_a_server_that_died_is_replaced_and_the_compile_done_cold(warm: Sandbox, language: str) -> None:
    with warm.program(language, PROGRAMS[language]["ok"]) as first:
        assert first.compile_result.ok
    pids = server_pids(warm)
    assert pids
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):  # a server's own short-lived child may be gone by now
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while server_pids(warm) and time.monotonic() < deadline:
        time.sleep(0.05)
    # the pool finds a dead server when it hands it out (or, racing with the kill, loses the reply):
    # either way the program compiles, with the cold compile's outcome
    for kind in ("ok", "error"):
        with warm.program(language, PROGRAMS[language][kind]) as program:
            assert program.compile_result.status == ("ok" if kind == "ok" else "compile_error")
    assert server_pids(warm), "a new server took the dead one's place"


def test_closing_the_pool_ends_every_server() -> None:
    sandbox = Sandbox(warm_compilers=True)
    assert sandbox.warm_compilers is not None
    with sandbox.program("scala", PROGRAMS["scala"]["ok"]) as program:
        assert program.compile_result.ok
    uids = sandbox.warm_compilers.resident_uids()
    assert uids
    sandbox.warm_compilers.close()
    out = subprocess.run(["ps", "-eo", "uid=,stat="], capture_output=True, text=True, check=True).stdout
    assert not [
        line for line in out.splitlines() if int(line.split()[0]) in uids and not line.split()[1].startswith("Z")
    ]
    assert sandbox.warm_compilers.resident_uids() == set()
