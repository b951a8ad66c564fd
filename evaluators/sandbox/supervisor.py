"""The supervisor inside a sandbox: runs one program's tests one after another, each as its own process.

It is the sandbox's init: bubblewrap execs it as pid 1 of the sandbox's PID namespace (``--as-pid-1``),
so no other process there holds the pipes to the parent, and no signal a test sends reaches it (the
kernel drops signals from inside the namespace to an init without handlers, SIGKILL and SIGSTOP
included). It has the same isolation as any sandboxed program (see ``evaluators.sandbox.sandbox``); the
parent (``resident.Session``) talks to it over its stdin and stdout with length-prefixed JSON frames: a
ready frame once it started (before it, a failure is bubblewrap's; after it, the program's), then a
request per test (argv, environment, working directory, input, limits, a nonce) and a reply per test
(exit status, capped stdout and stderr, wall time, the child's CPU time from its rusage, whether it
timed out or wrote too much, the request's nonce). Stdlib only; started as ``python3 -I -S -B``.

Every test runs under a seccomp filter (confine.py) that the supervisor installed on itself before it
started anything: no ``ptrace``, ``process_vm_readv``/``writev``, ``pidfd_getfd``, ``process_madvise``
or ``kcmp``, for the test and all it starts. The supervisor is also
non-dumpable, so a test (same uid) can neither read its memory nor reach its file descriptors through
/proc: it cannot forge a reply or read another test's input, which the supervisor only receives
after the previous test ended. Between tests nothing survives: every other process in the sandbox's
PID namespace is killed (and reaped: orphans are the supervisor's), /tmp (the working directory and
HOME) and /dev/shm are emptied, and every System V IPC object and POSIX message queue is removed.

A compiled test (any program but the warm Python's) is started with ``posix_spawn`` of the launcher
installed beside this file (launch.c: the test's rlimits, OOM score, directory, no other descriptor,
then exec), so the supervisor does not fork itself per test.

Python programs can start warm (``--warm-python``): each test is forked from a zygote that started
before any request was read and imported the standard library's common modules, and the program is
compiled and run as ``__main__`` in the fork. The supervisor hands the zygote the test's three pipe
ends (over a Unix socket, SCM_RIGHTS) with the command, environment and limits, never the input, which
the supervisor writes into the pipe itself; the zygote forks the test, waits for it and reports its
exit status and CPU time. The zygote never runs a program nor sees an input, so nothing a program
does at module level reaches the next test, and no input is in its memory.
"""
from __future__ import annotations

import base64
import ctypes
import json
import os
import resource
import selectors
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
PROTECTED, REAPED, kill_others = confine.PROTECTED, confine.REAPED, confine.kill_others


def read_exact(fd: int, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, n - got)
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> Message | None:
    header = read_exact(fd, HEADER.size)
    if header is None:
        return None
    body = read_exact(fd, HEADER.unpack(header)[0])
    return None if body is None else json.loads(body)


def write_frame(fd: int, message: Message) -> None:
    body = json.dumps(message).encode()
    data = memoryview(HEADER.pack(len(body)) + body)
    while data:
        data = data[os.write(fd, data):]


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


def child_setup(request: Message, fds: tuple[int, int, int]) -> None:
    """In a fork of the warm Python: its own session, the test's pipes as 0/1/2, the limits, OOM-killed first."""
    os.setsid()
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    os.closerange(3, 65536)
    for name, soft, hard in request["rlimits"]:
        resource.setrlimit(getattr(resource, name), (soft, hard))
    try:
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        try:
            os.write(fd, b"1000")
        finally:
            os.close(fd)
    except OSError:
        pass
    os.chdir(request["cwd"])


#: the launcher (launch.c, built on the host) that Sandbox installs beside this file
LAUNCHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "launch")


def spawn_test(request: Message, fds: tuple[int, int, int]) -> int:
    """Start a test that is a program of its own: posix_spawn (vfork and exec: nothing of this
    process is copied, nor can the test run in its memory) of the launcher with the test's pipes as
    0/1/2 in a session of its own; the launcher sets the limits, makes it OOM-killed first, enters
    its working directory, closes every other descriptor and execs the program (PATH lookup in the
    test's environment). What child_setup does for the warm Python's forks, without a fork of this
    process per test."""
    args = [LAUNCHER, "-x", "-o", "1000", "-d", request["cwd"]]
    for name, soft, hard in request["rlimits"]:
        args += ["-r", f"{getattr(resource, name)}:{soft}:{hard}"]
    return os.posix_spawn(LAUNCHER, [*args, "--", *request["argv"]], request["env"], setsid=True,
                          file_actions=[(os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(fds)])


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


def run_python(request: Message) -> None:
    """In a fork of the zygote: the program as ``__main__``, as ``python3 main.py`` would run it, or a
    command as ``python3 -c CODE ARG...`` would (the language's syntax check, Program's first request)."""
    import types

    argv = request["argv"]  # os.environ is the request's already: the zygote set it before the fork
    command = len(argv) >= 3 and argv[1] == "-c"
    path = "<string>" if command else argv[-1]
    sys.stdin, sys.stdout, sys.stderr = standard_streams(io_encoding(request["env"]))
    sys.argv = ["-c", *argv[3:]] if command else [path]
    sys.path[0] = "" if command else os.path.dirname(path)
    main = types.ModuleType("__main__")
    if not command:
        main.__file__ = path
    main.__dict__["__builtins__"] = __builtins__
    sys.modules["__main__"] = main
    code = 0
    try:
        if command:
            source = argv[2].encode()
        else:
            with open(path, "rb") as handle:
                source = handle.read()
        exec(compile(source, path, "exec"), main.__dict__)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if stop.code is not None and not isinstance(stop.code, int):
            print(stop.code, file=sys.stderr)
    except BaseException as exc:
        import traceback

        # as the interpreter prints it: from the program's own frames (not this function's)
        traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next if exc.__traceback__ else None)
        code = 1
    try:
        sys.stdout.flush()
    except BaseException:
        code = code or 120
    try:
        sys.stderr.flush()
    except BaseException:
        pass
    os._exit(code & 0xFF)


class ZygoteLost(Exception):
    """The zygote died or stopped answering (the test killed or stopped it)."""


class Zygote:
    """The supervisor's end of the warm Python: starts a test (its command, environment, limits and pipe
    ends; never its input) and hears how it ended."""

    def __init__(self) -> None:
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.pid = os.fork()
        if self.pid == 0:
            self.sock.close()
            null = os.open("/dev/null", os.O_RDWR)
            for fd in (0, 1, 2):  # the platform's pipes are the supervisor's alone
                os.dup2(null, fd)
            os.close(null)
            zygote_loop(theirs)
        theirs.close()
        PROTECTED.add(self.pid)

    def start(self, request: Message, fds: tuple[int, int, int]) -> None:
        order = {key: request[key] for key in ("argv", "env", "cwd", "rlimits")}
        try:
            socket.send_fds(self.sock, [json.dumps(order).encode()], list(fds))
        except OSError as exc:
            raise ZygoteLost() from exc

    def ended(self, timeout: float | None = None) -> tuple[int, float | None]:
        """The test's wait status and CPU seconds (after the zygote reaped it)."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(4096)
        except OSError as exc:  # socket.timeout included
            raise ZygoteLost() from exc
        finally:
            self.sock.settimeout(None)
        if not data:
            raise ZygoteLost()
        answer = json.loads(data)
        return answer["status"], answer["cpu"]


def run_one(request: Message, zygote: Zygote | None) -> Message:
    stdin = base64.b64decode(request["stdin"])
    REAPED.clear()  # statuses of earlier orphans: a recycled pid must not find one
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    r_err, w_err = os.pipe()
    started = time.monotonic()
    lost = False
    if zygote is None:
        try:
            pid = spawn_test(request, (r_in, w_out, w_err))
        except OSError as exc:  # the launcher could not be started: the test fails as it would have
            pid = os.fork()
            if pid == 0:
                start_failed(exc)
        ended_fd = os.pidfd_open(pid)
    else:
        pid = 0
        try:
            zygote.start(request, (r_in, w_out, w_err))
        except ZygoteLost:
            lost = True
        ended_fd = zygote.sock.fileno()
    for fd in (r_in, w_out, w_err):
        os.close(fd)
    caps = {r_out: request["output_cap"], r_err: request["stderr_cap"]}
    bufs: dict[int, list[bytes]] = {r_out: [], r_err: []}
    totals = {r_out: 0, r_err: 0}
    sel = selectors.DefaultSelector()
    sel.register(ended_fd, selectors.EVENT_READ)
    for fd in (r_out, r_err):
        os.set_blocking(fd, False)
        sel.register(fd, selectors.EVENT_READ)
    pending = memoryview(stdin)
    if pending:
        os.set_blocking(w_in, False)
        sel.register(w_in, selectors.EVENT_WRITE)
    else:
        os.close(w_in)
    def ended(timeout: float | None) -> tuple[int, float | None, bool]:
        """The test's wait status, CPU seconds, and whether the zygote was lost meanwhile."""
        if zygote is None:
            return (*wait_for(pid), False)
        try:  # a zygote the test stopped never answers
            return (*zygote.ended(timeout), False)
        except ZygoteLost:
            return int(signal.SIGKILL), None, True

    deadline = started + request["wall"]
    timed_out = output_exceeded = exited = False
    drain_until: float | None = None
    status, cpu = 0, None
    if lost:  # nothing started: the pipes' other ends are closed already
        exited, status, drain_until = True, int(signal.SIGKILL), started
        sel.unregister(ended_fd)
    while True:
        if exited and not sel.get_map():
            break
        now = time.monotonic()
        if not exited and not timed_out and now >= deadline:
            timed_out = True
            kill_others()
        if drain_until is not None and now >= drain_until:
            break
        if timed_out and not exited and now >= deadline + 2.0:
            break  # killed, yet not reported ended: a zygote the test stopped (ZygoteLost below)
        limit = drain_until if exited else deadline
        for key, _ in sel.select(0.5 if timed_out else max(0.0, (limit or now) - now)):
            fd = key.fd
            if fd == ended_fd:
                sel.unregister(ended_fd)
                status, cpu, lost = ended(None)
                exited = True
                kill_others()  # whatever the test left running, a stray holder of its pipes too
                drain_until = time.monotonic() + 2.0
            elif fd == w_in:
                try:
                    pending = pending[os.write(w_in, pending[:65536]):]
                except BlockingIOError:
                    continue
                except OSError:  # the program stopped reading
                    pending = pending[:0]
                if not pending:
                    sel.unregister(w_in)
                    os.close(w_in)
            else:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""
                if not chunk:
                    sel.unregister(fd)
                    continue
                if totals[fd] < caps[fd]:
                    bufs[fd].append(chunk[: caps[fd] - totals[fd]])
                totals[fd] += len(chunk)
                if fd == r_out and totals[fd] > caps[fd] and not output_exceeded:
                    output_exceeded = True
                    kill_others()
                    sel.unregister(fd)
    if not exited:
        kill_others()
        status, cpu, lost = ended(2.0)  # the killed test is the zygote's to reap
    wall = time.monotonic() - started
    for key in list(sel.get_map().values()):
        sel.unregister(key.fileobj)
    sel.close()
    if zygote is None:
        os.close(ended_fd)
    for fd in (r_out, r_err, w_in):
        try:
            os.close(fd)
        except OSError:
            pass
    if lost:  # a new zygote forked from this process could find earlier inputs in its freed memory,
        # so the session ends and the next test gets a new sandbox
        return {**killed_reply("the sandbox's Python starter was killed during this test"), "wall": wall,
                "timed_out": timed_out, "restart": True}
    return {"exit_code": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
            "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
            "stdout": base64.b64encode(b"".join(bufs[r_out])).decode(), "stderr": base64.b64encode(b"".join(bufs[r_err])).decode(),
            "timed_out": timed_out, "output_exceeded": output_exceeded, "wall": wall, "cpu": cpu}


def start_failed(exc: BaseException) -> None:
    """In a forked child that could not become the test: say why on its stderr, and exit 127."""
    try:
        os.write(2, f"cannot start the program: {exc}\n".encode())
    finally:
        os._exit(127)


def killed_reply(why: str) -> Message:
    return {"exit_code": None, "signal": int(signal.SIGKILL), "stdout": "", "stderr": base64.b64encode(why.encode() + b"\n").decode(),
            "timed_out": False, "output_exceeded": False, "wall": 0.0, "cpu": None}


ZYGOTE_MODULES = ("collections", "itertools", "functools", "heapq", "bisect", "math", "re", "string", "decimal",
                  "fractions", "random", "statistics", "array", "copy", "operator", "typing", "dataclasses", "io",
                  "json", "datetime", "traceback", "types")


def zygote_loop(sock: socket.socket) -> None:
    """The warm Python: imports the common modules once, then for each test it is given (a command,
    its environment and limits, and the test's pipe ends) forks the test, waits for it and reports
    its exit status and CPU time. It never reads an input: its memory, which every later test starts
    from, holds none."""
    import site

    site.main()  # the site directories a plain ``python3 main.py`` has (the supervisor runs with -S)
    for name in ZYGOTE_MODULES:
        try:
            __import__(name)
        except ImportError:
            pass
    prctl = ctypes.CDLL(None).prctl  # resolved once, not in every test
    while True:
        try:
            order, fds, _flags, _addr = socket.recv_fds(sock, 1 << 20, 3)
        except OSError:
            os._exit(0)
        if not order or len(fds) != 3:
            os._exit(0)
        request = json.loads(order)
        use_environment(request["env"])  # once per session, not in every test
        standard_streams(io_encoding(request["env"]))
        try:
            pid = os.fork()
        except OSError as exc:
            os.write(fds[2], f"cannot start the program: {exc}\n".encode())
            pid, status, cpu = -1, 127 << 8, None
        if pid == 0:
            try:
                sock.close()
                child_setup(request, (fds[0], fds[1], fds[2]))
                # dumpable again, as any freshly started program is (an exec does this by itself):
                # /proc/self belongs to the program; its parents stay non-dumpable
                prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)
                run_python(request)
            except BaseException as exc:
                start_failed(exc)
        for fd in fds:
            os.close(fd)
        if pid > 0:
            _, status, rusage = os.wait4(pid, 0)
            cpu = cpu_of(rusage)
        try:
            sock.send(json.dumps({"status": status, "cpu": cpu}).encode())
        except OSError:
            os._exit(0)


def main() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    PROTECTED.add(os.getpid())
    # no ptrace, pidfd_getfd, process_vm_readv... for anything started from here on (every test)
    confine.Confinement().apply()
    # the warm Python starts before any request is read, so that no test's input is in the memory
    # every Python test is forked from
    zygote = Zygote() if "--warm-python" in sys.argv else None
    write_frame(1, {"ready": True})  # from here on, no failure is bubblewrap's (see resident.Session)
    while True:
        request = read_frame(0)
        if request is None:
            return
        reply = run_one(request, zygote)
        kill_others()
        if not confine.wipe(libc):
            reply["restart"] = True
        reply["nonce"] = request["nonce"]  # what only the reader of this request can answer
        write_frame(1, reply)
        if reply.get("restart"):
            return


if __name__ == "__main__":
    main()
