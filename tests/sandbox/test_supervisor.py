"""Many tests in one sandbox (evaluators/sandbox/supervisor.py): each test is its own process with its
own limits, and nothing passes from one test to the next. The attacks a shared sandbox invites: leave
state for the next test (files in /tmp and /dev/shm, a process left running, module-level state of a
warm Python), kill or stop the supervisor, and read another test's input (from other processes'
/proc entries or memory, or from a warm interpreter's own memory). Plus: a program's verdicts are the
same through one session as through one sandbox per run, and a test's CPU time is its own."""

from __future__ import annotations

import pytest

from evaluators.sandbox import Limits, Sandbox
from tests.sandbox.test_attacks import SHORT, assert_healthy

toolchains = pytest.mark.toolchains

LEAVE_STATE = {
    "python": (
        "import os, subprocess, sys\n"
        "seen = [p for p in ('/tmp/mark', '/dev/shm/mark', 'mark') if os.path.exists(p)]\n"
        "procs = [p for p in os.listdir('/proc') if p.isdigit() and 'sleep' in open(f'/proc/{p}/cmdline', "
        "'rb').read().decode(errors='replace')]\n"
        "import json\nleft = getattr(json, 'LEFT', None)\njson.LEFT = 'x'\n"
        "for p in ('/tmp/mark', 'mark'):\n    open(p, 'w').write('1')\n"
        "try:\n    open('/dev/shm/mark', 'w').write('1')\nexcept OSError:\n    pass\n"
        "os.makedirs('/tmp/locked/deep', exist_ok=True)\nos.chmod('/tmp/locked', 0)\n"
        "subprocess.Popen(['sleep', '1000'], start_new_session=True)\n"
        "print('LEFT' if seen or procs or left else 'fresh', seen, procs, left)\n"
    ),
    "cpp": (
        "#include <cstdio>\n#include <unistd.h>\n#include <sys/stat.h>\nint main(){bool "
        'seen=access("/tmp/mark",F_OK)==0;'
        'FILE*f=fopen("/tmp/mark","w");fputs("1",f);fclose(f);if(fork()==0){setsid();sleep(1000);}'
        'puts(seen?"LEFT":"fresh");}\n'
    ),
}


@toolchains
@pytest.mark.parametrize("language", sorted(LEAVE_STATE))
def test_a_test_cannot_leave_state_for_the_next(sandbox: Sandbox, language: str) -> None:
    with sandbox.program(language, LEAVE_STATE[language]) as program:
        assert program.compile_result.ok, program.compile_result.output
        with program.session(SHORT) as session:
            outputs = [session.run("").stdout for _ in range(3)]
    assert all(out.startswith("fresh") for out in outputs), outputs
    assert_healthy(sandbox)


KILL_SUPERVISOR = (
    "import os, signal\n"
    "for p in os.listdir('/proc'):\n"
    "    if p.isdigit() and int(p) not in (1, os.getpid()):\n"
    "        try:\n            os.kill(int(p), signal.{sig})\n        except OSError:\n            pass\n"
    "print('passed')\n"
)


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGSTOP"])
def test_killing_or_stopping_the_supervisor_fails_the_test_and_the_next_test_runs(sandbox: Sandbox, sig: str) -> None:
    """Every process but pid 1 (the supervisor itself, which no signal from a test reaches: see
    test_control_channel.py) and the test: the warm Python the test was forked from goes, and with it the test."""
    limits = Limits(wall_seconds=2.0, cpu_seconds=2.0, memory_mb=256, processes=32)
    with sandbox.program("python", KILL_SUPERVISOR.format(sig=sig)) as attacker, attacker.session(limits) as session:
        first = session.run("")
        second = session.run("")  # a new sandbox: the first one is gone
    for result in (first, second):
        assert result.status in ("runtime_error", "timeout") and result.stdout == "", result
    assert "supervisor" in first.stderr or "killed" in first.stderr
    assert_healthy(sandbox)


KILL_ZYGOTE = "import os, signal\nif input() != 'fine':\n    os.kill(os.getppid(), signal.{sig})\nprint('ran')\n"


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGSTOP"])
def test_a_test_that_kills_or_stops_the_warm_python_fails_and_the_next_test_passes(sandbox: Sandbox, sig: str) -> None:
    """A Python test's parent is the zygote (the warm interpreter the tests are forked from): killed or
    stopped, it takes the test down with it (a new zygote forked from the supervisor could find earlier
    inputs in its memory), and the next test runs in a new sandbox."""
    attack = KILL_ZYGOTE.format(sig=sig)
    limits = Limits(wall_seconds=2.0, cpu_seconds=2.0, memory_mb=256, processes=32)
    with sandbox.program("python", attack) as program, program.session(limits) as session:
        before = session.run("fine\n")
        attacked = session.run("attack\n")
        after = [session.run("fine\n") for _ in range(2)]
    assert (before.status, before.stdout) == ("ok", "ran\n"), before
    assert attacked.status in ("runtime_error", "timeout") and attacked.stdout == "", attacked
    assert "starter was killed" in attacked.stderr, attacked.stderr
    for result in after:
        assert (result.status, result.stdout) == ("ok", "ran\n"), result
    assert_healthy(sandbox)


SNOOP = (
    "import gc, os, re, sys\n"
    "mine = sys.stdin.read().strip()\nfound = set()\n"
    "for p in os.listdir('/proc'):\n"
    "    if not p.isdigit() or int(p) == os.getpid():\n        continue\n"
    "    for part in ('cmdline', 'environ', 'mem'):\n"
    "        try:\n            data = open(f'/proc/{p}/{part}', 'rb').read(1 << 20)\n"
    "            found |= set(re.findall(rb'SECRET-[0-9]+', data))\n"
    "        except OSError:\n            pass\n"
    "    try:\n        fds = os.listdir(f'/proc/{p}/fd')\n    except OSError:\n        fds = []\n"
    "    for fd in fds:\n        for mode in (os.O_RDONLY, os.O_WRONLY):\n"
    "            try:\n                os.close(os.open(f'/proc/{p}/fd/{fd}', mode | os.O_NONBLOCK))\n"
    "                found.add(f'OPENED-{p}-{fd}'.encode())\n            except OSError:\n                pass\n"
    "for obj in gc.get_objects():\n"
    "    if isinstance(obj, (str, bytes, bytearray)):\n"
    "        text = obj if isinstance(obj, (bytes, bytearray)) else obj.encode(errors='replace')\n"
    "        found |= set(re.findall(rb'SECRET-[0-9]+', bytes(text)))\n"
    "maps = [line.split() for line in open('/proc/self/maps')]\n"
    "with open('/proc/self/mem', 'rb') as mem:\n"
    "    for fields in maps:\n"
    "        if 'r' not in fields[1] or (len(fields) > 5 and fields[5].startswith('[v')):\n            continue\n"
    "        start, end = (int(x, 16) for x in fields[0].split('-'))\n"
    "        try:\n            mem.seek(start)\n            found |= set(re.findall(rb'SECRET-[0-9]+', mem.read(end - "
    "start)))\n"
    "        except (OSError, ValueError, OverflowError):\n            pass\n"
    "print(sorted(x.decode() for x in found))\n"
)


def test_a_test_cannot_read_another_tests_input(sandbox: Sandbox) -> None:
    """Earlier inputs went through the supervisor (non-dumpable: no /proc access) and never through
    the warm Python the tests are forked from; a later input is not sent before the test ends. The
    pipes to the parent, held by bwrap's init too, were made by root: the sandbox's uid cannot reopen
    them through /proc/1/fd to read a request or forge a reply."""
    with (
        sandbox.program("python", SNOOP) as program,
        program.session(Limits(wall_seconds=20.0, cpu_seconds=20.0, memory_mb=512)) as session,
    ):
        results = [session.run(f"SECRET-{1000 + n}\n") for n in range(4)]
    for n, result in enumerate(results):
        assert result.status == "ok", result
        assert result.stdout == f"['SECRET-{1000 + n}']\n", result.stdout  # its own input, found by the same search


@toolchains
def test_a_session_gives_the_same_verdicts_and_each_test_its_own_cpu_time(sandbox: Sandbox) -> None:
    spin = (
        "import time\nend = time.process_time() + float(input())\nwhile time.process_time() < end:\n    "
        "pass\nprint('done')\n"
    )
    with (
        sandbox.program("python", spin) as program,
        program.session(Limits(wall_seconds=3.0, cpu_seconds=1.0)) as session,
    ):
        short, long, after = session.run("0.3\n"), session.run("5\n"), session.run("0.1\n")
    assert (short.status, short.stdout) == ("ok", "done\n") and 0.25 <= short.cpu_seconds < 0.6
    assert long.status == "timeout"
    assert (after.status, after.stdout) == ("ok", "done\n") and after.cpu_seconds < 0.4
    crash = "import sys\nprint('partial')\nsys.exit(3)\n"
    with sandbox.program("python", crash) as program, program.session(SHORT) as session:
        warm = session.run("")
    cold = sandbox.program("cpp", '#include <cstdio>\nint main(){puts("partial");return 3;}\n')
    with cold, cold.session(SHORT) as session:
        native = session.run("")
    for result in (warm, native):
        assert (result.status, result.exit_code, result.stdout) == ("runtime_error", 3, "partial\n"), result


def test_what_compiling_prints_reaches_every_tests_stderr(sandbox: Sandbox) -> None:
    """The warm Python compiles a program once, unless compiling it says something: a source with a
    SyntaxWarning is compiled in each test's fork, so that each test's stderr shows the warning, as
    ``python3 main.py`` prints it at every start; the program's annotations are evaluated as there
    (no ``from __future__ import annotations`` of the supervisor's leaks into the program)."""
    warned = "x = int(input())\nif x is 1:\n    print('one')\n"
    with sandbox.program("python", warned) as program, program.session(SHORT) as session:
        results = [session.run("1\n") for _ in range(2)]
    for result in results:
        assert result.status == "ok" and result.stdout == "one\n", result
        assert "SyntaxWarning" in result.stderr and '"is" with a literal' in result.stderr, result.stderr
    annotated = "def f(x: Undefined) -> None:\n    pass\nprint('defined')\n"
    with sandbox.program("python", annotated) as program, program.session(SHORT) as session:
        results = [session.run("") for _ in range(2)]
    for result in results:  # NameError at the definition, as the interpreter raises it
        assert result.status == "runtime_error" and "NameError" in result.stderr, result


def test_a_program_does_not_see_the_supervisors_modules(sandbox: Sandbox) -> None:
    """A program's ``import wire`` (or confine, spawning, warm_python) finds no module, as under
    ``python3 main.py`` in an empty directory: the supervisor's own modules are not the program's."""
    probe = (
        "import sys\nfor name in ('wire', 'spawning', 'warm_python', 'confine'):\n"
        "    try:\n        __import__(name)\n        print(name, 'found')\n"
        "    except ModuleNotFoundError:\n        print(name, 'absent')\n"
    )
    with sandbox.program("python", probe) as program, program.session(SHORT) as session:
        results = [session.run("") for _ in range(2)]
    for result in results:
        assert (result.status, result.stdout) == (
            "ok",
            "wire absent\nspawning absent\nwarm_python absent\nconfine absent\n",
        ), result
