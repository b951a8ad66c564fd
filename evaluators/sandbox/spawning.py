"""How the supervisor (supervisor.py) starts a test's process: a test's configuration (command,
environment, working directory, rlimits) decoded once into what starting it needs, and ``spawn.so``
(spawn.c) bound through ctypes.

A compiled test (any program but the warm Python's) is started by ``spawn.so`` installed beside this
file (spawn.c: a vfork whose child sets the test's rlimits, OOM score, directory, session and pipes,
closes every other descriptor and execs the program), so the supervisor neither forks itself nor
execs a launcher per test; without the library, with ``posix_spawn`` of the launcher (launch.c). A
fork of the warm Python (warm_python.py) sets itself up the same way (``child_setup``).

Stdlib only: each Sandbox installs it beside its private copy of supervisor.py (host.SUPERVISOR_FILES),
and the supervisor imports it from its own directory.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
from typing import Any

PR_SET_DUMPABLE = 4
HERE = os.path.dirname(os.path.abspath(__file__))
#: the launcher (launch.c, built on the host) that Sandbox installs beside this file: the fallback
LAUNCHER = os.path.join(HERE, "launch")
#: the spawn library (spawn.c) that Sandbox installs beside this file, when the host could build it
SPAWN_LIBRARY = os.path.join(HERE, "spawn.so")


def _has_handler(sig: int) -> bool:
    try:
        return callable(signal.getsignal(sig))
    except (ValueError, OSError):
        return False


#: the signals the interpreter has handlers for when the supervisor starts (SIGINT's): the supervisor
#: ignores them (confine.shield_init) and each compiled test gets them back at their default
CAUGHT: tuple[int, ...] = tuple(sig for sig in range(1, signal.NSIG) if _has_handler(sig))
#: the signals a test can send the warm Python that it can ignore (not SIGKILL nor SIGSTOP; not SIGCHLD,
#: which its wait for the test needs)
IGNORABLE: tuple[int, ...] = tuple(
    sig for sig in range(1, signal.NSIG) if sig not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD)
)
#: without spawn.so: the warm Python's handlers before ignore_signals, given back to each test
_SAVED_HANDLERS: dict[int, Any] = {}


def cpu_of(rusage: Any) -> float | None:
    return (rusage.ru_utime + rusage.ru_stime) if rusage is not None else None


class Spawner:
    """spawn.so (spawn.c) through ctypes: the test's set-up and exec in a vfork child (compiled tests),
    or in a fork of the warm Python (set_up_test); None of it when the library is missing."""

    def __init__(self, path: str) -> None:
        lib = ctypes.CDLL(path, use_errno=True)
        # this process's OOM score, writable only while it is dumpable: spawn_test raises it to 1000
        # while it creates a test, which inherits it (see spawn.c)
        try:
            self.oom_fd = os.open("/proc/self/oom_score_adj", os.O_RDWR | os.O_CLOEXEC)
            self.oom_restore = os.pread(self.oom_fd, 16, 0).strip() or b"0"
        except OSError:
            self.oom_fd, self.oom_restore = -1, b"0"
        # the signals the interpreter has handlers for (SIGINT's, at least), reset in each child
        self.caught = (ctypes.c_int * max(1, len(CAUGHT)))(*CAUGHT)
        self.n_caught = len(CAUGHT)
        self.spawn_test = lib.spawn_test
        self.spawn_test.restype = ctypes.c_int
        self.set_up_test = lib.set_up_test
        self.set_up_test.restype = ctypes.c_int
        self.ignore_signals = lib.ignore_signals
        self.ignore_signals.restype = ctypes.c_int


def load_spawner() -> Spawner | None:
    try:
        return Spawner(SPAWN_LIBRARY)
    except (OSError, AttributeError):
        return None


def c_strings(values: list[str]) -> Any:
    """A NULL-terminated ``char *[]`` (the bytes it points to live as long as the array)."""
    encoded = [os.fsencode(value) for value in values]
    array = (ctypes.c_char_p * (len(encoded) + 1))(*encoded, None)
    array._keep = encoded  # type: ignore[attr-defined]
    return array


class Config:
    """One configuration of the tests (command, environment, working directory, rlimits), decoded once
    and kept with everything a test built from it each time before: the launcher's argv, the C
    arrays of spawn.so, the rlimit numbers."""

    def __init__(self, raw: bytes) -> None:
        message = json.loads(raw)
        self.raw = raw
        self.argv: list[str] = message["argv"]
        self.env: dict[str, str] = message["env"]
        self.cwd: str = message["cwd"]
        self.rlimits: list[tuple[int, int, int]] = [
            (getattr(resource, name), int(soft), int(hard)) for name, soft, hard in message["rlimits"]
        ]
        n = len(self.rlimits)
        self.c_resources = (ctypes.c_int * max(1, n))(*[r for r, _, _ in self.rlimits])
        self.c_soft = (ctypes.c_longlong * max(1, n))(*[s for _, s, _ in self.rlimits])
        self.c_hard = (ctypes.c_longlong * max(1, n))(*[h for _, _, h in self.rlimits])
        self.c_argv = c_strings(self.argv)
        self.c_env = c_strings([f"{key}={value}" for key, value in self.env.items()])
        self.c_file = os.fsencode(self.argv[0])
        self.c_cwd = os.fsencode(self.cwd)
        args = [LAUNCHER, "-x", "-o", "1000", "-d", self.cwd]
        for which, soft, hard in self.rlimits:
            args += ["-r", f"{which}:{soft}:{hard}"]
        self.launcher_argv = [*args, "--", *self.argv]


def spawn_test(config: Config, fds: tuple[int, int, int], spawner: Spawner | None) -> int:
    """Start a test that is a program of its own, without forking this process (nothing of it is
    copied, nor can the test run in its memory): spawn.so's vfork child sets the limits, makes it
    OOM-killed first, enters its working directory, gives it the test's pipes as 0/1/2 in a session
    of its own, closes every other descriptor and execs the program (PATH lookup in the test's
    environment); without the library, posix_spawn of the launcher does the same and execs it.
    What child_setup does for the warm Python's forks."""
    if spawner is not None:
        pid = spawner.spawn_test(
            config.c_file,
            config.c_argv,
            config.c_env,
            (ctypes.c_int * 3)(*fds),
            len(config.rlimits),
            config.c_resources,
            config.c_soft,
            config.c_hard,
            config.c_cwd,
            spawner.oom_fd,
            spawner.oom_restore,
            spawner.caught,
            spawner.n_caught,
        )
        if pid < 0:
            raise OSError(-pid, os.strerror(-pid))
        return int(pid)
    return os.posix_spawn(
        LAUNCHER,
        config.launcher_argv,
        config.env,
        setsid=True,
        setsigdef=CAUGHT,
        file_actions=[(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(fds)],
    )


def ignore_signals(spawner: Spawner | None) -> None:
    """In the warm Python, once: ignore every signal a test can send it but SIGKILL and SIGSTOP (and
    SIGCHLD: see IGNORABLE), so that no test stops it with one; child_setup gives each test back the
    dispositions it had. Through spawn.so, which keeps them below the interpreter (the ``signal``
    module's view, which a program reads, stays as it was), else through the ``signal`` module."""
    if spawner is not None:
        spawner.ignore_signals()
        return
    for sig in IGNORABLE:
        try:
            _SAVED_HANDLERS[sig] = signal.signal(sig, signal.SIG_IGN)
        except (OSError, ValueError):  # glibc's own real-time signals
            pass


def child_setup(config: Config, fds: tuple[int, int, int], spawner: Spawner | None) -> None:
    """In a fork of the warm Python: its own session, the test's pipes as 0/1/2, the limits, OOM-killed
    first, its directory, dumpable again (as any freshly started program is: an exec does this by
    itself; /proc/self belongs to the program, its parents stay non-dumpable). One call of spawn.so
    where it is installed; the signal dispositions the warm Python had before ignore_signals."""
    if spawner is not None:
        if (
            spawner.set_up_test(
                (ctypes.c_int * 3)(*fds),
                len(config.rlimits),
                config.c_resources,
                config.c_soft,
                config.c_hard,
                config.c_cwd,
            )
            != 0
        ):
            os._exit(127)  # spawn.so said why on the test's stderr
        return
    for sig, handler in _SAVED_HANDLERS.items():
        signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
    os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, 65536)
    for which, soft, hard in config.rlimits:
        resource.setrlimit(which, (soft, hard))
    os.chdir(config.cwd)
    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # /proc/self is the test's only from here on
    try:
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        try:
            os.write(fd, b"1000")
        finally:
            os.close(fd)
    except OSError:
        pass


def start_failed(exc: BaseException) -> None:
    """In a forked child that could not become the test: say why on its stderr, and exit 127."""
    try:
        os.write(2, f"cannot start the program: {exc}\n".encode())
    finally:
        os._exit(127)
