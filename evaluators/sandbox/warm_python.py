"""The warm Python of a session (``supervisor.py --warm-python``): a zygote that Python tests are forked from.

The zygote starts before the supervisor reads any request and imports the standard library's common
modules; each test is forked from it and the program is run as ``__main__`` in the fork. The
supervisor hands the zygote the test's three pipe ends (over a Unix socket, SCM_RIGHTS), with the
command, environment and limits when they changed, never the input, which the supervisor writes into
the pipe itself; the zygote forks the test, waits for it and reports its exit status and CPU time.
The zygote compiles the program's file once (compiling runs none of it) and each fork executes that
code object; a source the zygote cannot compile cleanly (an error, or a warning the interpreter would
print on the test's stderr) is compiled in each fork as before. The zygote never runs a program nor
sees an input, so nothing a program does at module level reaches the next test, and no input is in
its memory.

Stdlib only: each Sandbox installs it beside its private copy of supervisor.py (host.SUPERVISOR_FILES),
and the supervisor imports it from its own directory.
"""

from __future__ import annotations

import builtins
import os
import socket
import struct
import sys
from typing import Any

if __package__:
    from . import confine, spawning
else:  # imported by supervisor.py run as a script, which put this directory on sys.path
    import confine  # type: ignore[no-redef]
    import spawning  # type: ignore[no-redef]

#: the supervisor's own modules (its files beside supervisor.py, run as a script): dropped from a test's
#: ``sys.modules`` before its program runs (this fork's code keeps them through its globals)
SUPERVISOR_MODULES: tuple[str, ...] = ("confine", "spawning", "syscalls", "warm_python", "wire")

#: the zygote's answer: the test's wait status and CPU seconds (-1.0: unknown)
ENDED = struct.Struct("=id")
#: sent to the zygote instead of a configuration: the same as the last one
SAME = b"="


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
            io.TextIOWrapper(
                io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                encoding=encoding,
                errors="backslashreplace",
                line_buffering=True,
            ),
        )
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


def run_python(config: spawning.Config, code: Any) -> None:
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
    main.__dict__["__builtins__"] = builtins  # what __main__ has in ``python3 main.py``
    for name in SUPERVISOR_MODULES:  # the program's ``import wire`` finds its own module, as in ``python3 main.py``
        sys.modules.pop(name, None)
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

    def __init__(self, spawner: spawning.Spawner | None) -> None:
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
        confine.PROTECTED.add(self.pid)

    def start(self, config: spawning.Config, fds: tuple[int, int, int]) -> None:
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


ZYGOTE_MODULES = (
    "collections",
    "itertools",
    "functools",
    "heapq",
    "bisect",
    "math",
    "re",
    "string",
    "decimal",
    "fractions",
    "random",
    "statistics",
    "array",
    "copy",
    "operator",
    "typing",
    "dataclasses",
    "io",
    "json",
    "datetime",
    "traceback",
    "types",
    "warnings",
)


def zygote_loop(sock: socket.socket, spawner: spawning.Spawner | None) -> None:
    """The warm Python: imports the common modules once, then for each test it is given (the test's
    pipe ends, and its configuration when it changed) forks the test, waits for it and reports its
    exit status and CPU time. It never reads an input: its memory, which every later test starts
    from, holds none."""
    import site

    confine.PIDS.give_up()  # the supervisor's capability and descriptor are not the tests'
    site.main()  # the site directories a plain ``python3 main.py`` has (the supervisor runs with -S)
    for name in ZYGOTE_MODULES:
        try:
            __import__(name)
        except ImportError:
            pass
    spawning.ignore_signals(spawner)  # a test (its child) can signal it; each test gets them back
    config: spawning.Config | None = None
    code: Any = None
    while True:
        try:
            order, fds, _flags, _addr = socket.recv_fds(sock, 1 << 20, 3)
        except OSError:
            os._exit(0)
        if not order or len(fds) != 3 or (order == SAME and config is None):
            os._exit(0)
        if order != SAME:
            config = spawning.Config(order)
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
                spawning.child_setup(config, (fds[0], fds[1], fds[2]), spawner)
                run_python(config, code)
            except BaseException as exc:
                spawning.start_failed(exc)
        for fd in fds:
            os.close(fd)
        if pid > 0:
            _, status, rusage = os.wait4(pid, 0)
            cpu = spawning.cpu_of(rusage)
        try:
            sock.send(ENDED.pack(status, -1.0 if cpu is None else cpu))
        except OSError:
            os._exit(0)
