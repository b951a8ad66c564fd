"""The supervisor inside a sandbox: runs one program's tests one after another, each as its own process.

It is the sandbox's init: bubblewrap execs it as pid 1 of the sandbox's PID namespace (``--as-pid-1``),
so no other process there holds the pipes to the parent, and no signal a test sends reaches it (the
kernel drops signals from inside the namespace to an init without handlers, SIGKILL and SIGSTOP
included). It has the same isolation as any sandboxed program (see ``evaluators.sandbox.sandbox``); the
parent (``resident.Session``) talks to it over its stdin and stdout with length-prefixed frames: a
ready frame once it started (before it, a failure is bubblewrap's; after it, the program's), then a
request per test and a reply per test, both binary (``REQUEST`` and ``REPLY`` below: fixed fields,
then raw bytes, no JSON nor base64 of the input or output). A request holds a nonce, the wall limit,
the output caps and the input; the command, environment, working directory and rlimits (a JSON
"configuration") only when they differ from the previous request's, which is once per session for a
program's tests. A reply holds the nonce, the exit status, the wall time, the child's CPU time from
its rusage, whether it timed out or wrote too much or the session must end, then the capped stdout
and stderr. Stdlib only (and ``spawn.so``, built from spawn.c, through ctypes); started as
``python3 -I -S -B``.

Every test runs under a seccomp filter (confine.py) that the supervisor installed on itself before it
started anything: no ``ptrace``, ``process_vm_readv``/``writev``, ``pidfd_getfd``, ``process_madvise``
or ``kcmp``, for the test and all it starts. The supervisor is also
non-dumpable, so a test (same uid) can neither read its memory nor reach its file descriptors through
/proc: it cannot forge a reply or read another test's input, which the supervisor only receives
after the previous test ended. Between tests nothing survives: every other process in the sandbox's
PID namespace is killed (and reaped: orphans are the supervisor's), /tmp (the working directory and
HOME) and /dev/shm are emptied, and every System V IPC object and POSIX message queue is removed.

A compiled test (any program but the warm Python's) is started by ``spawn.so`` installed beside this
file (spawn.c: a vfork whose child sets the test's rlimits, OOM score, directory, session and pipes,
closes every other descriptor and execs the program), so the supervisor neither forks itself nor
execs a launcher per test; without the library, with ``posix_spawn`` of the launcher (launch.c).

Python programs can start warm (``--warm-python``): each test is forked from a zygote that started
before any request was read and imported the standard library's common modules, and the program is
run as ``__main__`` in the fork. The supervisor hands the zygote the test's three pipe ends (over a
Unix socket, SCM_RIGHTS), with the command, environment and limits when they changed, never the
input, which the supervisor writes into the pipe itself; the zygote forks the test, waits for it and
reports its exit status and CPU time. The zygote compiles the program's file once (compiling runs
none of it) and each fork executes that code object; a source the zygote cannot compile cleanly (an
error, or a warning the interpreter would print on the test's stderr) is compiled in each fork as
before. The zygote never runs a program nor sees an input, so nothing a program does at module level
reaches the next test, and no input is in its memory.
"""
from __future__ import annotations

import ctypes
import json
import os
import resource
import select
import signal
import socket
import struct
import sys
import time
from typing import Any

if __package__:
    from . import confine
else:  # run as a script inside the sandbox, with confine.py beside it (sandbox.Sandbox installs both)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import confine  # type: ignore[no-redef]
    del sys.path[0]

Message = dict[str, Any]
PR_SET_DUMPABLE = 4
HEADER = struct.Struct(">I")
#: a request's fixed fields: nonce, wall limit (s), stdout cap, stderr cap, length of the configuration
#: (JSON: argv, env, cwd, rlimits; 0 when unchanged) that follows; then the configuration, then the input
REQUEST = struct.Struct(">16sdqqI")
#: a reply's fixed fields: nonce, exit code (-1: none), signal (-1: none), flags (REPLY_FLAGS), wall
#: seconds, CPU seconds (-1.0: unknown), stdout length, stderr length; then stdout, then stderr
REPLY = struct.Struct(">16siiBddII")
#: the reply's flag bits
TIMED_OUT, OUTPUT_EXCEEDED, RESTART = 1, 2, 4
#: the zygote's answer: the test's wait status and CPU seconds (-1.0: unknown)
ENDED = struct.Struct("=id")
#: sent to the zygote instead of a configuration: the same as the last one
SAME = b"="
PROTECTED, REAPED, kill_others = confine.PROTECTED, confine.REAPED, confine.kill_others
HERE = os.path.dirname(os.path.abspath(__file__))
#: the launcher (launch.c, built on the host) that Sandbox installs beside this file: the fallback
LAUNCHER = os.path.join(HERE, "launch")
#: the spawn library (spawn.c) that Sandbox installs beside this file, when the host could build it
SPAWN_LIBRARY = os.path.join(HERE, "spawn.so")


def read_exact(fd: int, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, n - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> bytes | None:
    """One frame's body; None at the end of the stream. The parent sends the next request only after
    this one's reply, so a first read of up to 64 KiB takes no more than this frame."""
    data = os.read(fd, 65536)
    if len(data) < HEADER.size:
        rest = read_exact(fd, HEADER.size - len(data)) if data else None
        if rest is None:
            return None
        data += rest
    size = HEADER.unpack_from(data)[0]
    if len(data) - HEADER.size >= size:
        return data[HEADER.size:HEADER.size + size]
    rest = read_exact(fd, size - (len(data) - HEADER.size))
    return None if rest is None else data[HEADER.size:] + rest


def write_all(fd: int, data: bytes | memoryview) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def write_frame(fd: int, body: bytes) -> None:
    write_all(fd, HEADER.pack(len(body)) + body)


def reply_body(nonce: bytes, *, exit_code: int | None, signal_number: int | None, flags: int, wall: float,
               cpu: float | None, stdout: bytes, stderr: bytes) -> bytes:
    """A reply frame's body (results.parse_reply reads it)."""
    return REPLY.pack(nonce, -1 if exit_code is None else exit_code, -1 if signal_number is None else signal_number,
                      flags, wall, -1.0 if cpu is None else cpu, len(stdout), len(stderr)) + stdout + stderr


def cpu_of(rusage: Any) -> float | None:
    return (rusage.ru_utime + rusage.ru_stime) if rusage is not None else None


def wait_for(pid: int) -> tuple[int, float | None]:
    """The child's exit status and CPU seconds, whether it is still to be reaped or kill_others reaped it."""
    if pid in REAPED:
        status, rusage = REAPED.pop(pid)
    else:
        try:
            _, status, rusage = os.wait4(pid, 0)
        except ChildProcessError:
            status, rusage = REAPED.pop(pid, (signal.SIGKILL, None))
    return status, cpu_of(rusage)


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
        caught = [sig for sig in range(1, signal.NSIG) if _has_handler(sig)]
        self.caught = (ctypes.c_int * max(1, len(caught)))(*caught)
        self.n_caught = len(caught)
        self.spawn_test = lib.spawn_test
        self.spawn_test.restype = ctypes.c_int
        self.set_up_test = lib.set_up_test
        self.set_up_test.restype = ctypes.c_int


def _has_handler(sig: int) -> bool:
    try:
        return callable(signal.getsignal(sig))
    except (ValueError, OSError):
        return False


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
        self.rlimits: list[tuple[int, int, int]] = [(getattr(resource, name), int(soft), int(hard))
                                                    for name, soft, hard in message["rlimits"]]
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
        pid = spawner.spawn_test(config.c_file, config.c_argv, config.c_env, (ctypes.c_int * 3)(*fds),
                                 len(config.rlimits), config.c_resources, config.c_soft, config.c_hard, config.c_cwd,
                                 spawner.oom_fd, spawner.oom_restore, spawner.caught, spawner.n_caught)
        if pid < 0:
            raise OSError(-pid, os.strerror(-pid))
        return int(pid)
    return os.posix_spawn(LAUNCHER, config.launcher_argv, config.env, setsid=True,
                          file_actions=[(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(fds)])


def child_setup(config: Config, fds: tuple[int, int, int], spawner: Spawner | None) -> None:
    """In a fork of the warm Python: its own session, the test's pipes as 0/1/2, the limits, OOM-killed
    first, its directory, dumpable again (as any freshly started program is: an exec does this by
    itself; /proc/self belongs to the program, its parents stay non-dumpable). One call of spawn.so
    where it is installed."""
    if spawner is not None:
        if spawner.set_up_test((ctypes.c_int * 3)(*fds), len(config.rlimits), config.c_resources, config.c_soft,
                               config.c_hard, config.c_cwd) != 0:
            os._exit(127)  # spawn.so said why on the test's stderr
        return
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


def use_environment(env: dict[str, str]) -> None:
    """``env`` as os.environ, unless it is so already."""
    if os.environ != env:
        os.environ.clear()
        os.environ.update(env)


#: the standard streams a program gets, by encoding: made in the zygote, unused there (they name fds 0-2,
#: which are the test's pipes in each fork), so that a test does not build them
STREAMS: dict[str, tuple[Any, Any, Any]] = {}


def standard_streams(encoding: str) -> tuple[Any, Any, Any]:
    """sys.stdin, sys.stdout and sys.stderr over fds 0, 1 and 2, as the interpreter makes them for a pipe."""
    import io

    if encoding not in STREAMS:
        STREAMS[encoding] = (
            io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)), encoding=encoding),
            io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)), encoding=encoding),
            io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)), encoding=encoding,
                             errors="backslashreplace", line_buffering=True))
    return STREAMS[encoding]


def io_encoding(env: dict[str, str]) -> str:
    return env.get("PYTHONIOENCODING", "utf-8")


def is_command(argv: list[str]) -> bool:
    """``python3 -c CODE ARG...`` (the language's syntax check), not ``python3 FILE``."""
    return len(argv) >= 3 and argv[1] == "-c"


def compile_quietly(path: str) -> Any:
    """The program's code object, compiled as ``python3 path`` compiles it, or None when compiling it
    says anything (an error, or a warning the interpreter would print on the test's stderr): each
    fork then compiles it itself, and prints what the interpreter prints. Compiling runs none of it."""
    import warnings

    try:
        with open(path, "rb") as handle:
            source = handle.read()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            return compile(source, path, "exec", dont_inherit=True)
    except BaseException:
        return None


def run_python(config: Config, code: Any) -> None:
    """In a fork of the zygote: the program as ``__main__``, as ``python3 main.py`` would run it, or a
    command as ``python3 -c CODE ARG...`` would (the language's syntax check, Program's first request).
    ``code``: the program's code object, when the zygote compiled it."""
    import types

    argv = config.argv  # os.environ is the configuration's already: the zygote set it before the fork
    command = is_command(argv)
    path = "<string>" if command else argv[-1]
    sys.stdin, sys.stdout, sys.stderr = standard_streams(io_encoding(config.env))
    sys.argv = ["-c", *argv[3:]] if command else [path]
    sys.path[0] = "" if command else os.path.dirname(path)
    main = types.ModuleType("__main__")
    if not command:
        main.__file__ = path
    main.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = main
    status = 0
    try:
        if code is None:
            if command:
                source = argv[2].encode()
            else:
                with open(path, "rb") as handle:
                    source = handle.read()
            code = compile(source, path, "exec", dont_inherit=True)
        exec(code, main.__dict__)
    except SystemExit as stop:
        status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if stop.code is not None and not isinstance(stop.code, int):
            print(stop.code, file=sys.stderr)
    except BaseException as exc:
        import traceback

        # as the interpreter prints it: from the program's own frames (not this function's)
        traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next if exc.__traceback__ else None)
        status = 1
    try:
        sys.stdout.flush()
    except BaseException:
        status = status or 120
    try:
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(status & 0xFF)


class ZygoteLost(Exception):
    """The zygote died or stopped answering (the test killed or stopped it)."""


class Zygote:
    """The supervisor's end of the warm Python: starts a test (its pipe ends, and its configuration
    when it changed; never its input) and hears how it ended."""

    def __init__(self, spawner: Spawner | None) -> None:
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.config: bytes | None = None
        self.pid = os.fork()
        if self.pid == 0:
            self.sock.close()
            null = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):  # the platform's pipes are the supervisor's alone
                os.dup2(null, fd)
            os.close(null)
            zygote_loop(theirs, spawner)
        theirs.close()
        PROTECTED.add(self.pid)

    def start(self, config: Config, fds: tuple[int, int, int]) -> None:
        order = SAME if self.config == config.raw else config.raw
        try:
            socket.send_fds(self.sock, [order], list(fds))
        except OSError as exc:
            raise ZygoteLost() from exc
        self.config = config.raw

    def ended(self, timeout: float | None = None) -> tuple[int, float | None]:
        """The test's wait status and CPU seconds (after the zygote reaped it)."""
        if timeout is not None:
            self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(64)
        except OSError as exc:  # socket.timeout included
            raise ZygoteLost() from exc
        finally:
            if timeout is not None:
                self.sock.settimeout(None)
        if len(data) != ENDED.size:
            raise ZygoteLost()
        status, cpu = ENDED.unpack(data)
        return status, (cpu if cpu >= 0 else None)


class Outcome:
    """What run_one saw of one test: its wait status, CPU seconds, output, and how it ended."""

    __slots__ = ("status", "cpu", "stdout", "stderr", "timed_out", "output_exceeded", "wall", "lost")

    def __init__(self) -> None:
        self.status: int = 0
        self.cpu: float | None = None
        self.stdout = self.stderr = b""
        self.timed_out = self.output_exceeded = self.lost = False
        self.wall = 0.0


def run_one(config: Config, stdin: memoryview, wall_limit: float, caps: tuple[int, int], zygote: Zygote | None,
            spawner: Spawner | None) -> Outcome:
    """Run one test: start it, write its input, read its output up to the caps, kill it at the wall
    limit, and kill whatever it left running once it ended."""
    REAPED.clear()  # statuses of earlier orphans: a recycled pid must not find one
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    r_err, w_err = os.pipe()
    out = Outcome()
    started = time.monotonic()
    pid = 0
    if zygote is None:
        try:
            pid = spawn_test(config, (r_in, w_out, w_err), spawner)
        except OSError as exc:  # the launcher could not be started: the test fails as it would have
            pid = os.fork()
            if pid == 0:
                start_failed(exc)
        ended_fd = os.pidfd_open(pid)
    else:
        try:
            zygote.start(config, (r_in, w_out, w_err))
        except ZygoteLost:
            out.lost = True
        ended_fd = zygote.sock.fileno()
    for fd in (r_in, w_out, w_err):
        os.close(fd)
    cap_of = {r_out: caps[0], r_err: caps[1]}
    bufs: dict[int, list[bytes]] = {r_out: [], r_err: []}
    totals = {r_out: 0, r_err: 0}
    poller = select.poll()
    watched = {ended_fd, r_out, r_err}
    poller.register(ended_fd, select.POLLIN)
    for fd in (r_out, r_err):
        os.set_blocking(fd, False)
        poller.register(fd, select.POLLIN)
    pending = stdin
    if pending:  # most inputs fit in the pipe: written at once, without waiting to be asked
        os.set_blocking(w_in, False)
        try:
            pending = pending[os.write(w_in, pending[:65536]):]
        except BlockingIOError:
            pass
        except OSError:  # the program ended without reading
            pending = pending[:0]
    if pending:
        poller.register(w_in, select.POLLOUT)
        watched.add(w_in)
    else:
        os.close(w_in)
        w_in = -1

    def unwatch(fd: int) -> None:
        poller.unregister(fd)
        watched.discard(fd)

    def ended(timeout: float | None) -> tuple[int, float | None, bool]:
        """The test's wait status, CPU seconds, and whether the zygote was lost meanwhile."""
        if zygote is None:
            return (*wait_for(pid), False)
        try:  # a zygote the test stopped never answers
            return (*zygote.ended(timeout), False)
        except ZygoteLost:
            return int(signal.SIGKILL), None, True

    deadline = started + wall_limit
    exited = killed = False
    drain_until: float | None = None
    if out.lost:  # nothing started: the pipes' other ends are closed already
        exited, out.status, drain_until = True, int(signal.SIGKILL), started
        unwatch(ended_fd)
    while True:
        if exited and not watched:
            break
        now = time.monotonic()
        if not exited and not out.timed_out and now >= deadline:
            out.timed_out = True
            kill_others()
        if drain_until is not None and now >= drain_until:
            break
        if out.timed_out and not exited and now >= deadline + 2.0:
            break  # killed, yet not reported ended: a zygote the test stopped (ZygoteLost below)
        limit = drain_until if exited else deadline
        wait = 0.5 if out.timed_out else max(0.0, (limit or now) - now)
        for fd, _event in poller.poll(wait * 1000.0):
            if fd not in watched:
                continue
            if fd == ended_fd:
                unwatch(ended_fd)
                out.status, out.cpu, lost = ended(None)
                out.lost = out.lost or lost
                exited = True
                kill_others()  # whatever the test left running, a stray holder of its pipes too
                killed = True
                drain_until = time.monotonic() + 2.0
            elif fd == w_in:
                try:
                    pending = pending[os.write(w_in, pending[:65536]):]
                except BlockingIOError:
                    continue
                except OSError:  # the program stopped reading
                    pending = pending[:0]
                if not pending:
                    unwatch(w_in)
                    os.close(w_in)
                    w_in = -1
            else:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    unwatch(fd)
                    continue
                if totals[fd] < cap_of[fd]:
                    bufs[fd].append(chunk[: cap_of[fd] - totals[fd]])
                totals[fd] += len(chunk)
                if fd == r_out and totals[fd] > cap_of[fd] and not out.output_exceeded:
                    out.output_exceeded = True
                    kill_others()
                    unwatch(fd)
    if not exited:
        kill_others()
        out.status, out.cpu, lost = ended(2.0)  # the killed test is the zygote's to reap
        out.lost = out.lost or lost
        killed = False  # the kill came before the test was reaped: look again
    out.wall = time.monotonic() - started
    if zygote is None:
        os.close(ended_fd)
    for fd in (r_out, r_err, w_in):
        if fd >= 0:
            try:
                os.close(fd)
            except OSError:
                pass
    if not killed:
        kill_others()
    out.stdout, out.stderr = b"".join(bufs[r_out]), b"".join(bufs[r_err])
    return out


def start_failed(exc: BaseException) -> None:
    """In a forked child that could not become the test: say why on its stderr, and exit 127."""
    try:
        os.write(2, f"cannot start the program: {exc}\n".encode())
    finally:
        os._exit(127)


def answer(nonce: bytes, out: Outcome, restart: bool) -> bytes:
    """The reply to the request that carried ``nonce``."""
    flags = (TIMED_OUT if out.timed_out else 0) | (OUTPUT_EXCEEDED if out.output_exceeded else 0) | (RESTART if restart else 0)
    if out.lost:  # a new zygote forked from this process could find earlier inputs in its freed memory,
        # so the session ends and the next test gets a new sandbox
        return reply_body(nonce, exit_code=None, signal_number=int(signal.SIGKILL), flags=flags | RESTART, wall=out.wall,
                          cpu=None, stdout=b"", stderr=b"the sandbox's Python starter was killed during this test\n")
    status = out.status
    return reply_body(nonce, exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                      signal_number=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None, flags=flags,
                      wall=out.wall, cpu=out.cpu, stdout=out.stdout, stderr=out.stderr)


ZYGOTE_MODULES = ("collections", "itertools", "functools", "heapq", "bisect", "math", "re", "string", "decimal",
                  "fractions", "random", "statistics", "array", "copy", "operator", "typing", "dataclasses", "io",
                  "json", "datetime", "traceback", "types", "warnings")


def zygote_loop(sock: socket.socket, spawner: Spawner | None) -> None:
    """The warm Python: imports the common modules once, then for each test it is given (the test's
    pipe ends, and its configuration when it changed) forks the test, waits for it and reports its
    exit status and CPU time. It never reads an input: its memory, which every later test starts
    from, holds none."""
    import site

    site.main()  # the site directories a plain ``python3 main.py`` has (the supervisor runs with -S)
    for name in ZYGOTE_MODULES:
        try:
            __import__(name)
        except ImportError:
            pass
    config: Config | None = None
    code: Any = None
    while True:
        try:
            order, fds, _flags, _addr = socket.recv_fds(sock, 1 << 20, 3)
        except OSError:
            os._exit(0)
        if not order or len(fds) != 3 or (order == SAME and config is None):
            os._exit(0)
        if order != SAME:
            config = Config(order)
            use_environment(config.env)  # once per configuration, not in every test
            standard_streams(io_encoding(config.env))
            code = None if is_command(config.argv) else compile_quietly(config.argv[-1])
        assert config is not None
        try:
            pid = os.fork()
        except OSError as exc:
            os.write(fds[2], f"cannot start the program: {exc}\n".encode())
            pid, status, cpu = -1, 127 << 8, None
        if pid == 0:
            try:
                sock.close()
                child_setup(config, (fds[0], fds[1], fds[2]), spawner)
                run_python(config, code)
            except BaseException as exc:
                start_failed(exc)
        for fd in fds:
            os.close(fd)
        if pid > 0:
            _, status, rusage = os.wait4(pid, 0)
            cpu = cpu_of(rusage)
        try:
            sock.send(ENDED.pack(status, -1.0 if cpu is None else cpu))
        except OSError:
            os._exit(0)


def main() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    spawner = load_spawner()  # opens this process's OOM score while it can
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    PROTECTED.add(os.getpid())
    # no ptrace, pidfd_getfd, process_vm_readv... for anything started from here on (every test)
    confine.Confinement().apply()
    # the warm Python starts before any request is read, so that no test's input is in the memory
    # every Python test is forked from
    zygote = Zygote(spawner) if "--warm-python" in sys.argv else None
    write_frame(1, json.dumps({"ready": True}).encode())  # from here on, no failure is bubblewrap's (see resident.Session)
    config: Config | None = None
    while True:
        body = read_frame(0)
        if body is None or len(body) < REQUEST.size:
            return
        nonce, wall, output_cap, stderr_cap, config_size = REQUEST.unpack_from(body)
        if config_size:
            config = Config(body[REQUEST.size:REQUEST.size + config_size])
        if config is None:
            return
        out = run_one(config, memoryview(body)[REQUEST.size + config_size:], wall, (output_cap, stderr_cap), zygote, spawner)
        restart = not confine.wipe(libc)
        # the nonce is what only the reader of this request can answer
        write_frame(1, answer(nonce, out, restart))
        if restart or out.lost:
            return


if __name__ == "__main__":
    main()
