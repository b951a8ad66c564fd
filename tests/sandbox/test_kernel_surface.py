"""The kernel a test can reach (evaluators/sandbox/syscalls.py, confine.py): every system call outside
the allowlist is refused, the usual routes of kernel exploits first (io_uring, new user namespaces,
keyrings, perf, userfaultfd), from C and from Python, and nothing a test does that way reaches the next
test (a key, a pid); no signal a test sends stops the supervisor (pid 1) or the warm Python it is
forked from.

Each route is one test, and each passed on the blocklist filter this one replaced (io_uring_setup gave a
ring, unshare(CLONE_NEWUSER) returned 0, a key added in one test was found by the next, SIGINT killed
the supervisor or the zygote, test k's pid grew with k and with the forks of the tests before), so
each fails if its route opens again."""

from __future__ import annotations

import errno
import platform
from collections.abc import Iterator

import pytest

from evaluators.sandbox import Sandbox
from evaluators.sandbox.programs import Program
from tests.sandbox.test_attacks import SHORT, assert_healthy

toolchains = pytest.mark.toolchains

#: one route a line: the route's name on stdin, the program prints "<route> refused <errno>" or
#: "<route> OPEN" (its result when the kernel gave it)
PROBE_CPP = r"""
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include <linux/io_uring.h>
#include <linux/sched.h>
#include <linux/keyctl.h>

static long route(const std::string &name) {
    if (name == "io_uring_setup") {
        struct io_uring_params p; memset(&p, 0, sizeof p);
        return syscall(SYS_io_uring_setup, 8, &p);
    }
    if (name == "unshare_user") return syscall(SYS_unshare, CLONE_NEWUSER | CLONE_NEWNS);
    if (name == "clone_newuser") {
        long pid = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0);
        if (pid == 0) _exit(0);
        if (pid > 0) waitpid((pid_t)pid, nullptr, 0);
        return pid;
    }
    if (name == "clone3_newuser") {
        struct clone_args args; memset(&args, 0, sizeof args);
        args.flags = CLONE_NEWUSER; args.exit_signal = SIGCHLD;
        long pid = syscall(SYS_clone3, &args, sizeof args);
        if (pid == 0) _exit(0);
        if (pid > 0) waitpid((pid_t)pid, nullptr, 0);
        return pid;
    }
    if (name == "perf_event_open") {
        struct perf_event_attr a; memset(&a, 0, sizeof a);
        a.type = PERF_TYPE_SOFTWARE; a.size = sizeof a; a.config = PERF_COUNT_SW_TASK_CLOCK;
        a.exclude_kernel = 1; a.exclude_hv = 1;
        return syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    }
    if (name == "userfaultfd") return syscall(SYS_userfaultfd, O_CLOEXEC | 1 /* UFFD_USER_MODE_ONLY */);
    if (name == "ioprio_get") return syscall(SYS_ioprio_get, 1 /* IOPRIO_WHO_PROCESS */, 0);
    return -2;
}

int main() {
    char line[64];
    if (!fgets(line, sizeof line, stdin)) return 2;
    std::string name(line, strcspn(line, "\n"));
    errno = 0;
    long r = route(name);
    if (r == -2 && errno == 0) { printf("%s unknown\n", name.c_str()); return 3; }
    if (r < 0) printf("%s refused %d\n", name.c_str(), errno);
    else printf("%s OPEN %ld\n", name.c_str(), r);
    return 0;
}
"""

#: the route, and the errno it must fail with: ENOSYS where the runtimes probe and fall back (io_uring;
#: clone3, which glibc retries as clone), EPERM for everything else the allowlist leaves out
ROUTES = {
    "io_uring_setup": errno.ENOSYS,
    "unshare_user": errno.EPERM,
    "clone_newuser": errno.EPERM,
    "clone3_newuser": errno.ENOSYS,
    "perf_event_open": errno.EPERM,
    "userfaultfd": errno.EPERM,
    "ioprio_get": errno.EPERM,
}


@pytest.fixture(scope="module")
def probe(sandbox: Sandbox) -> Iterator[Program]:
    with sandbox.program("cpp", PROBE_CPP) as program:
        assert program.compile_result.ok, program.compile_result.output
        yield program


@toolchains
@pytest.mark.parametrize("name", sorted(ROUTES))
def test_a_route_to_the_kernel_is_refused_from_c(probe: Program, name: str) -> None:
    r = probe.run(name + "\n", SHORT)
    assert (r.status, r.stdout) == ("ok", f"{name} refused {ROUTES[name]}\n"), r


#: ioprio_get(IOPRIO_WHO_PROCESS, 0): harmless and allowed by the old blocklist, outside the allowlist
IOPRIO_GET = {"x86_64": 252, "aarch64": 31}


def test_a_call_outside_the_allowlist_is_refused_from_python(sandbox: Sandbox) -> None:
    if platform.machine() not in IOPRIO_GET:
        pytest.skip("the filter is defined for x86_64 and aarch64 only")
    source = (
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        f"r = libc.syscall({IOPRIO_GET[platform.machine()]}, 1, 0)\n"
        "print(r, ctypes.get_errno())\n"
    )
    with sandbox.program("python", source) as program:
        r = program.run("", SHORT)
    assert (r.status, r.stdout) == ("ok", f"-1 {errno.EPERM}\n"), r


#: adds a key to the user and the session keyrings, after looking for the one an earlier test added
KEYRING_PY = """
import ctypes, ctypes.util
libc = ctypes.CDLL(None, use_errno=True)
NR = {NUMBERS}
found = libc.syscall(NR['request_key'], b'user', b'carried', None, 0)
for keyring in (-4, -3):  # KEY_SPEC_USER_KEYRING, KEY_SPEC_SESSION_KEYRING
    libc.syscall(NR['add_key'], b'user', b'carried', b'from an earlier test', 20, keyring)
print('found' if found > 0 else 'none', ctypes.get_errno())
"""
KEY_NUMBERS = {"x86_64": {"add_key": 248, "request_key": 249}, "aarch64": {"add_key": 217, "request_key": 218}}


def test_a_key_added_by_one_test_is_not_found_by_the_next(sandbox: Sandbox) -> None:
    if platform.machine() not in KEY_NUMBERS:
        pytest.skip("the filter is defined for x86_64 and aarch64 only")
    source = KEYRING_PY.replace("{NUMBERS}", repr(KEY_NUMBERS[platform.machine()]))
    with sandbox.program("python", source) as program, program.session(SHORT) as session:
        outputs = [session.run("").stdout for _ in range(3)]
    assert outputs == [f"none {errno.EPERM}\n"] * 3, outputs


#: a pid-gap channel: each test prints its pid and starts as many processes as its input says
PID_GAP = {
    "python": "import os\nprint(os.getpid())\nfor _ in range(int(input())):\n    if os.fork() == 0:\n        "
    "os._exit(0)\n    os.wait()\n",
    "cpp": (
        '#include <cstdio>\n#include <unistd.h>\n#include <sys/wait.h>\nint main(){int n;if(scanf("%d",&n)!=1)return 2;'
        'printf("%d\\n",(int)getpid());fflush(stdout);for(int i=0;i<n;i++){if(fork()==0)_exit(0);wait(nullptr);}}\n'
    ),
}


@toolchains
@pytest.mark.parametrize("language", sorted(PID_GAP))
def test_a_tests_pid_says_nothing_of_the_tests_before_it(sandbox: Sandbox, language: str) -> None:
    """Test k's pid was the count of the processes started before it: which test it is, and a number
    test k-1 chose by forking. Every test now starts at the same pid."""
    with sandbox.program(language, PID_GAP[language]) as program, program.session(SHORT) as session:
        results = [session.run(f"{forks}\n") for forks in (7, 0, 3, 0)]
    assert all(r.status == "ok" for r in results), results
    assert len({r.stdout for r in results}) == 1, [r.stdout for r in results]


#: SIGINT and the other signals a test can send: to the supervisor (pid 1), and from a Python test to
#: the warm Python it was forked from (its parent)
SIGNALS_PY = """
import os, signal, time
for target in {TARGETS}:
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGALRM, signal.SIGRTMIN + 3):
        try:
            os.kill(target, sig)
        except OSError as exc:
            print('not sent', target, sig, exc)
time.sleep(0.3)
print('sent')
"""


@pytest.mark.parametrize("targets", ["(1,)", "(os.getppid(),)"], ids=["supervisor", "warm-python"])
def test_signals_reach_neither_the_supervisor_nor_the_warm_python(sandbox: Sandbox, targets: str) -> None:
    source = SIGNALS_PY.replace("{TARGETS}", targets)
    with sandbox.program("python", source) as program, program.session(SHORT) as session:
        first = session.run("")
        assert session.proc is not None
        supervisor = session.proc.pid
        second = session.run("")
        assert session.alive and session.proc.pid == supervisor  # the same sandbox: nothing was restarted
    assert (first.status, first.stdout, second.status, second.stdout) == ("ok", "sent\n", "ok", "sent\n"), (
        first,
        second,
    )
    assert_healthy(sandbox)


def test_a_python_test_still_gets_the_signal_handlers_python_gives_a_program(sandbox: Sandbox) -> None:
    """The warm Python ignores every signal; each test forked from it gets back what ``python3
    main.py`` starts with: KeyboardInterrupt on SIGINT, SIGPIPE ignored, the rest the default."""
    source = (
        "import os, signal\n"
        "print(signal.getsignal(signal.SIGINT) is signal.default_int_handler, signal.getsignal(signal.SIGPIPE),"
        " signal.getsignal(signal.SIGTERM))\n"
        "try:\n    os.kill(os.getpid(), signal.SIGINT)\nexcept KeyboardInterrupt:\n    print('interrupted', "
        "flush=True)\n"
        "os.kill(os.getpid(), signal.SIGTERM)\n"
    )
    with sandbox.program("python", source) as program:
        r = program.run("", SHORT)
    assert r.stdout == "True 1 0\ninterrupted\n", r  # SIG_IGN is 1, SIG_DFL 0
    assert r.exit_code == -15, r


@toolchains
def test_a_compiled_test_gets_the_default_signal_handlers(sandbox: Sandbox) -> None:
    """The supervisor ignores SIGINT (its interpreter's handler); a compiled test is killed by it."""
    source = "#include <signal.h>\n#include <unistd.h>\nint main(){kill(getpid(), SIGINT); pause(); return 3;}\n"
    with sandbox.program("cpp", source) as program:
        r = program.run("", SHORT)
    assert r.exit_code == -2, r
