"""Attacks on the line between the platform and the supervisor (issue 29), one per route: copy the
descriptors of pid 1 or of the supervisor (pidfd_getfd), from Python, C++ and a JavaScript program that
starts python3; ptrace or process_vm_readv them; forge a reply; forge bubblewrap's start-up failure
after the supervisor answered; forge an oversized analysis reply. Each of these worked before the
supervisor became the sandbox's pid 1 and tests ran under a seccomp filter. Plus the reply's own
checks (parse_reply), a supervisor stopped from outside told in seconds, and messages a user can act on.
"""

from __future__ import annotations

import ast
import json
import os
import signal
import threading

import pytest

from evaluators.sandbox import Limits, Sandbox, SandboxUnavailable
from evaluators.sandbox.analysis import analysis_unavailable, run_analysis
from tests.sandbox.test_attacks import SHORT, assert_healthy, run

toolchains = pytest.mark.toolchains

#: every other process of the sandbox: pidfd_open it, then pidfd_getfd its descriptors 0-2 (the
#: platform's pipes, where the process is bwrap's init or the supervisor)
PY_COPY_FDS = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
tried, copied = [], []
for name in os.listdir('/proc'):
    if not name.isdigit() or int(name) == os.getpid():
        continue
    tried.append(int(name))
    pidfd = libc.syscall(434, int(name), 0)
    for target in range(3) if pidfd >= 0 else ():
        if libc.syscall(438, pidfd, target, 0) >= 0:
            copied.append(f'{name}:{target}')
print('COPIED' if copied else 'refused', sorted(tried), copied)
"""

CPP_COPY_FDS = r"""#include <cstdio>
#include <dirent.h>
#include <cstdlib>
#include <unistd.h>
#include <sys/syscall.h>
int main() {
    DIR* d = opendir("/proc"); int copied = 0; bool saw_init = false;
    while (dirent* e = readdir(d)) {
        int pid = atoi(e->d_name);
        if (pid <= 0 || pid == getpid()) continue;
        if (pid == 1) saw_init = true;
        long pidfd = syscall(434, pid, 0);
        for (int fd = 0; fd < 3 && pidfd >= 0; fd++) if (syscall(438, pidfd, fd, 0) >= 0) copied++;
    }
    printf("%s %s\n", copied ? "COPIED" : "refused", saw_init ? "[1" : "no-init");
}
"""

JS_STARTS_PYTHON = (
    f"const out = require('child_process').execFileSync('python3', ['-c', {json.dumps(PY_COPY_FDS)}]);\n"
    "process.stdout.write(out);\n"
)


@toolchains
@pytest.mark.parametrize("language", ["python", "cpp", "javascript"])
def test_no_test_can_copy_the_descriptors_of_pid_1_or_the_supervisor(sandbox: Sandbox, language: str) -> None:
    source = {"python": PY_COPY_FDS, "cpp": CPP_COPY_FDS, "javascript": JS_STARTS_PYTHON}[language]
    with sandbox.program(language, source) as program, program.session(SHORT) as session:
        results = [session.run("") for _ in range(2)]
    for result in results:
        assert result.status == "ok", result
        assert result.stdout.startswith("refused [1"), result.stdout  # pid 1 was among those tried
    assert_healthy(sandbox)


PY_PTRACE = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.process_vm_readv.restype = ctypes.c_long
class Iov(ctypes.Structure):
    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]
buf = ctypes.create_string_buffer(16)
tried, reached = [], []
for name in os.listdir('/proc'):
    if not name.isdigit() or int(name) == os.getpid():
        continue
    pid = int(name)
    tried.append(pid)
    if libc.ptrace(0x4206, pid, None, None) == 0:  # PTRACE_SEIZE: attach without stopping it
        reached.append(f'ptrace {pid}')
    try:
        start = int(open(f'/proc/{pid}/maps').readline().split('-')[0], 16)
    except (OSError, ValueError):
        start = 0x400000
    local, remote = Iov(ctypes.cast(buf, ctypes.c_void_p), 16), Iov(start, 16)
    if libc.process_vm_readv(pid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) > 0:
        reached.append(f'read {pid}')
print('REACHED' if reached else 'refused', sorted(tried), reached)
"""


def test_no_test_can_ptrace_or_read_the_memory_of_pid_1_or_the_supervisor(sandbox: Sandbox) -> None:
    with sandbox.program("python", PY_PTRACE) as program, program.session(SHORT) as session:
        result = session.run("")
    assert result.status == "ok", result
    assert result.stdout.startswith("refused [1, 2"), result.stdout  # pid 1 and the supervisor or the warm Python
    assert_healthy(sandbox)


#: its own child, which any process may trace without the filter
PY_TRACE_OWN_CHILD = """import ctypes, os, signal, time
libc = ctypes.CDLL(None, use_errno=True)
child = os.fork()
if child == 0:
    time.sleep(30)
    os._exit(0)
seized = libc.ptrace(0x4206, child, None, None) == 0
errno = ctypes.get_errno()
os.kill(child, signal.SIGKILL)
mode = open('/proc/self/status').read().split('Seccomp:')[1].split()[0]
print('SEIZED' if seized else 'refused', errno, 'seccomp', mode)
"""


@toolchains
@pytest.mark.parametrize("language", ["python", "cpp"])
def test_every_test_runs_under_the_seccomp_filter(sandbox: Sandbox, language: str) -> None:
    cpp = (
        "#include <cstdio>\n#include <cerrno>\n#include <csignal>\n#include <unistd.h>\n#include <sys/ptrace.h>\n"
        "int main(){pid_t c=fork();if(c==0){sleep(30);return 0;}long r=ptrace((__ptrace_request)0x4206,c,0,0);"
        'int e=errno;kill(c,SIGKILL);printf("%s %d\\n",r==0?"SEIZED":"refused",e);}\n'
    )
    with (
        sandbox.program(language, PY_TRACE_OWN_CHILD if language == "python" else cpp) as program,
        program.session(SHORT) as session,
    ):
        results = [session.run("") for _ in range(2)]
    for result in results:
        assert result.stdout.startswith("refused 1"), result  # EPERM
        if language == "python":
            assert result.stdout.split()[-1] == "2", result.stdout  # seccomp mode: filter


#: writes a reply saying "passed, 42" on pid 1's stdout (the platform's pipe under bwrap's own init),
#: then prints a wrong answer and fails
FORGE_REPLY = """import base64, ctypes, json, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
pidfd = libc.syscall(434, 1, 0)
fd = libc.syscall(438, pidfd, 1, 0) if pidfd >= 0 else -1
if fd >= 0:
    body = json.dumps({'exit_code': 0, 'signal': None, 'stdout': base64.b64encode(b'42\\n').decode(),
                       'stderr': '', 'timed_out': False, 'output_exceeded': False, 'wall': 0.01,
                       'cpu': 0.01}).encode()
    os.write(fd, struct.pack('>I', len(body)) + body)
print('wrong')
sys.exit(1)
"""


def test_a_test_cannot_forge_its_reply(sandbox: Sandbox) -> None:
    with sandbox.program("python", FORGE_REPLY) as program, program.session(SHORT) as session:
        results = [session.run("") for _ in range(2)]
    for result in results:
        assert (result.status, result.exit_code, result.stdout) == ("runtime_error", 1, "wrong\n"), result
    assert_healthy(sandbox)


#: bubblewrap's start-up failure, written on pid 1's stderr, then every other process killed
FORGE_BWRAP = """import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
pidfd = libc.syscall(434, 1, 0)
fd = libc.syscall(438, pidfd, 2, 0) if pidfd >= 0 else -1
if fd >= 0:
    os.write(fd, b"bwrap: Can't find source path /opt/forged: No such file or directory\\n")
for name in os.listdir('/proc'):
    if name.isdigit() and int(name) != os.getpid():
        try:
            os.kill(int(name), signal.SIGKILL)
        except OSError:
            pass
print('done')
"""


def test_a_forged_bwrap_line_after_the_supervisor_answered_is_the_programs_failure(sandbox: Sandbox) -> None:
    """The supervisor's ready frame is its first answer: after it, nothing a test writes or kills
    makes the platform report the sandbox as unavailable (which would stop the whole run)."""
    with sandbox.program("python", FORGE_BWRAP) as program, program.session(SHORT) as session:
        try:
            results = [session.run("") for _ in range(2)]
        except SandboxUnavailable as exc:
            pytest.fail(f"a test's forged line was taken for the platform's failure: {exc}")
    for result in results:
        assert result.status in ("ok", "runtime_error", "timeout"), result
    assert_healthy(sandbox)


def test_signals_to_pid_1_do_not_reach_the_supervisor(sandbox: Sandbox) -> None:
    attack = "import os, signal\nfor sig in (signal.SIGSTOP, signal.SIGKILL):\n    os.kill(1, sig)\nprint('passed')\n"
    with sandbox.program("python", attack) as program, program.session(SHORT) as session:
        results = [session.run("") for _ in range(2)]
    for result in results:
        assert (result.status, result.stdout) == ("ok", "passed\n"), result


def test_a_supervisor_stopped_from_outside_is_reported_as_stopped(sandbox: Sandbox) -> None:
    """The parent checks every second whether the supervisor is stopped, instead of waiting out the
    wall limit and its grace."""
    with (
        sandbox.program("python", "import time\nprint('started', flush=True)\ntime.sleep(2)\n") as program,
        program.session(Limits(wall_seconds=30.0, cpu_seconds=5.0)) as session,
    ):
        assert session.run("").status == "ok"
        assert session.proc is not None
        bwrap = session.proc.pid
        with open(f"/proc/{bwrap}/task/{bwrap}/children") as handle:
            supervisor = int(handle.read().split()[0])
        timer = threading.Timer(0.5, os.kill, (supervisor, signal.SIGSTOP))
        timer.start()
        result = session.run("")
        timer.join()
    assert result.status == "runtime_error", result
    assert "supervisor was stopped" in result.stderr, result.stderr
    assert_healthy(sandbox)


def test_a_reply_is_checked_before_it_is_believed() -> None:
    from evaluators.sandbox.results import parse_reply
    from evaluators.sandbox.wire import reply_body

    nonce = b"n" * 16
    good = {
        "exit_code": 0,
        "signal_number": None,
        "flags": 0,
        "wall": 0.1,
        "cpu": 0.05,
        "stdout": b"42\n",
        "stderr": b"",
    }

    def parse(reply: dict[str, object], cap: int = 100, of: bytes = nonce, tail: bytes = b"") -> object:
        return parse_reply(
            reply_body(of, **reply) + tail,
            nonce=nonce,
            output_cap=cap,  # type: ignore[arg-type]
            stderr_cap=cap,
        )

    parsed = parse(good)
    assert (parsed.raw.stdout, parsed.raw.exit_code, parsed.raw.cpu, parsed.restart) == (b"42\n", 0, 0.05, False)  # type: ignore[attr-defined]
    assert parse({**good, "exit_code": None, "signal_number": 9, "cpu": None, "flags": 4}).raw.signal == 9  # type: ignore[attr-defined]
    for bad in (
        {**good, "exit_code": None},
        {**good, "signal_number": 9},
        {**good, "exit_code": 300},
        {**good, "exit_code": -5, "signal_number": None},
        {**good, "flags": 8},
        {**good, "wall": -1.0},
        {**good, "wall": float("nan")},
        {**good, "cpu": 2e6},
    ):
        with pytest.raises(ValueError):
            parse(bad)
    with pytest.raises(ValueError):
        parse(good, of=b"o" * 16)  # another request's nonce
    with pytest.raises(ValueError):
        parse(good, tail=b"x")  # longer than its fields say
    with pytest.raises(ValueError):
        parse(good, cap=2)  # more output than the supervisor keeps
    with pytest.raises(ValueError):
        parse_reply(b"[1]", nonce=nonce, output_cap=100, stderr_cap=100)


#: a reply of 8 MB of output written on pid 1's stdout (the data sandbox reads back 64 KiB)
FORGE_BIG_REPLY = FORGE_REPLY.replace("b'42\\n'", "b'A' * (8 << 20)").replace(
    "print('wrong')\nsys.exit(1)", "print('done')"
)


@toolchains
def test_an_analysis_program_cannot_forge_an_oversized_reply(sandbox: Sandbox) -> None:
    assert analysis_unavailable() is None, analysis_unavailable()  # make test installs the analysis libraries
    assert "b'A' * (8 << 20)" in FORGE_BIG_REPLY
    result = run_analysis(sandbox, FORGE_BIG_REPLY)
    assert (result.status, result.stdout) == ("ok", "done\n"), (result.status, len(result.stdout), result.stderr[:300])


def test_a_python_syntax_error_shows_only_the_programs_file(sandbox: Sandbox) -> None:
    with sandbox.program("python", "x = 1\ndef f(:\n    pass\n") as program:
        output = program.compile_result.output
    assert program.compile_result.status == "compile_error"
    assert 'File "/prog/main.py", line 2' in output and "SyntaxError" in output, output
    assert "ast.py" not in output and "<string>" not in output and "Traceback" not in output, output


def test_a_fork_bomb_is_told_it_reached_the_process_limit(sandbox: Sandbox) -> None:
    bomb = "import os, time\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        time.sleep(0.01)\n"
    result = run(sandbox, "python", bomb, limits=Limits(wall_seconds=2.0, cpu_seconds=2.0, processes=16))
    assert result.status != "ok"
    assert "process limit (16 processes)" in result.stderr, result


def test_a_test_that_runs_long_still_gets_its_own_verdict_after_a_fast_one(sandbox: Sandbox) -> None:
    """The reply to each request is read whole and exactly: no byte of one reply is taken for the next."""
    program_source = "import sys\nn = int(input())\nsys.stdout.write('x' * n)\n"
    with sandbox.program("python", program_source) as program, program.session(SHORT) as session:
        sizes = [0, 1, 70000, 3, 500000, 2]
        results = [session.run(f"{n}\n") for n in sizes]
    assert [len(r.stdout) for r in results] == sizes


#: leaves a System V shared memory segment, message queue and semaphore set, a POSIX message queue and
#: a file in /dev, and says which of them an earlier test left
LEAVE_IPC = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
KEY, CREATE = 0x5EED, 0o1000 | 0o600
left = [name for name, found in (('shm', libc.shmget(KEY, 0, 0)), ('msg', libc.msgget(KEY, 0)),
                                 ('sem', libc.semget(KEY, 0, 0)), ('mqueue', libc.mq_open(b'/leftover', os.O_RDONLY)))
        if found >= 0]
left += [f'/dev/{name}' for name in os.listdir('/dev') if name.startswith('leftover')]
left += [f'/dev/shm/{name}' for name in os.listdir('/dev/shm')]
made = [name for name, ok in (('shm', libc.shmget(KEY, 1 << 20, CREATE)), ('msg', libc.msgget(KEY, CREATE)),
                              ('sem', libc.semget(KEY, 1, CREATE)),
                              ('mqueue', libc.mq_open(b'/leftover', os.O_CREAT | os.O_RDWR, 0o600, None)))
        if ok >= 0]
for path in ('/dev/leftover', '/dev/shm/leftover'):
    try:
        with open(path, 'wb') as handle:
            handle.write(b'x' * (1 << 20))
        made.append(path)
    except OSError:
        pass
print('LEFT' if left else 'fresh', left, made)
"""


def test_no_ipc_object_or_dev_file_survives_a_test(sandbox: Sandbox) -> None:
    """The sandbox's IPC namespace and /dev are the session's: between tests the supervisor removes
    every System V object and POSIX message queue and empties /dev/shm, and /dev itself is read-only."""
    with sandbox.program("python", LEAVE_IPC) as program, program.session(SHORT) as session:
        results = [session.run("") for _ in range(3)]
    assert [result.stdout.split(" [")[0] for result in results] == ["fresh"] * 3, [r.stdout for r in results]
    for result in results:
        assert result.status == "ok", result
        # each test did create them all (the attack is real), but nothing in /dev outside /dev/shm
        assert result.stdout.rstrip().endswith("['shm', 'msg', 'sem', 'mqueue', '/dev/shm/leftover']"), result.stdout
    assert_healthy(sandbox)


def test_dev_is_minimal_and_read_only(sandbox: Sandbox) -> None:
    probe = (
        "import os\nprint(sorted(os.listdir('/dev')))\n"
        "for path in ('/dev/new', '/dev/null', '/dev/shm/x'):\n"
        "    try:\n        open(path, 'w').write('x')\n        print('wrote', path)\n"
        "    except OSError as exc:\n        print('refused', path, exc.strerror)\n"
    )
    result = run(sandbox, "python", probe)
    listing, *writes = result.stdout.splitlines()
    assert set(ast.literal_eval(listing)) <= {
        "core",
        "fd",
        "full",
        "mqueue",
        "null",
        "ptmx",
        "pts",
        "random",
        "shm",
        "stderr",
        "stdin",
        "stdout",
        "tty",
        "urandom",
        "zero",
    }, listing
    assert writes == ["refused /dev/new Read-only file system", "wrote /dev/null", "wrote /dev/shm/x"], writes
