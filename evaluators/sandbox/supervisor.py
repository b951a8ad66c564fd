"""The supervisor inside a sandbox: runs one program's tests one after another, each as its own process.

It is the sandbox's init: bubblewrap execs it as pid 1 of the sandbox's PID namespace (``--as-pid-1``),
so no other process there holds the pipes to the parent, and no signal a test sends reaches it (the
kernel drops signals from inside the namespace to an init without handlers, SIGKILL and SIGSTOP
included). It has the same isolation as any sandboxed program (see ``evaluators.sandbox.sandbox``); the
parent (``resident.Session``) talks to it over its stdin and stdout with length-prefixed frames (wire.py): a
ready frame once it started (before it, a failure is bubblewrap's; after it, the program's), then a
request per test and a reply per test. Stdlib only (and ``spawn.so``, built from spawn.c, through
ctypes: spawning.py); started as ``python3 -I -S -B``, with its modules beside it (confine.py,
spawning.py, warm_python.py, wire.py: each Sandbox installs them together, host.SUPERVISOR_FILES).

Every test runs under a seccomp filter (confine.py) that the supervisor installed on itself before it
started anything: no ``ptrace``, ``process_vm_readv``/``writev``, ``pidfd_getfd``, ``process_madvise``
or ``kcmp``, for the test and all it starts. The supervisor is also
non-dumpable, so a test (same uid) can neither read its memory nor reach its file descriptors through
/proc: it cannot forge a reply or read another test's input, which the supervisor only receives
after the previous test ended. Between tests nothing survives: every other process in the sandbox's
PID namespace is killed (and reaped: orphans are the supervisor's), /tmp (the working directory and
HOME) and /dev/shm are emptied, and every System V IPC object and POSIX message queue is removed.

A compiled test is started by ``spawn.so`` (spawning.py); Python programs can start warm
(``--warm-python``): each test is forked from a zygote (warm_python.py) that never sees an input.
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import sys
import time

if __package__:
    from . import confine, spawning, warm_python, wire
else:  # run as a script inside the sandbox, with its modules beside it (sandbox.Sandbox installs them all)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import confine  # type: ignore[no-redef]
    import spawning  # type: ignore[no-redef]
    import warm_python  # type: ignore[no-redef]
    import wire  # type: ignore[no-redef]

    del sys.path[0]

PROTECTED, REAPED, kill_others = confine.PROTECTED, confine.REAPED, confine.kill_others


def wait_for(pid: int) -> tuple[int, float | None]:
    """The child's exit status and CPU seconds, whether it is still to be reaped or kill_others reaped it."""
    if pid in REAPED:
        status, rusage = REAPED.pop(pid)
    else:
        try:
            _, status, rusage = os.wait4(pid, 0)
        except ChildProcessError:
            status, rusage = REAPED.pop(pid, (signal.SIGKILL, None))
    return status, spawning.cpu_of(rusage)


class Outcome:
    """What run_one saw of one test: its wait status, CPU seconds, output, and how it ended."""

    __slots__ = ("cpu", "lost", "output_exceeded", "status", "stderr", "stdout", "timed_out", "wall")

    def __init__(self) -> None:
        self.status: int = 0
        self.cpu: float | None = None
        self.stdout = self.stderr = b""
        self.timed_out = self.output_exceeded = self.lost = False
        self.wall = 0.0


def run_one(
    config: spawning.Config,
    stdin: memoryview,
    wall_limit: float,
    caps: tuple[int, int],
    zygote: warm_python.Zygote | None,
    spawner: spawning.Spawner | None,
) -> Outcome:
    """Run one test: start it, write its input, read its output up to the caps, kill it at the wall
    limit, and kill whatever it left running once it ended."""
    REAPED.clear()  # statuses of earlier orphans: a recycled pid must not find one
    test = _Test(zygote, caps)
    test.start(config, spawner)
    test.watch(stdin)
    test.follow(test.started + wall_limit)
    return test.finish()


class _Test:
    """One test as the supervisor runs it: its three pipes, how its end is seen (a pidfd, or the warm
    Python's socket for a forked Python test), its input written and its output and stderr read up to
    the caps in one poll loop, the kills (at the wall limit, past the output cap, after its exit)."""

    def __init__(self, zygote: warm_python.Zygote | None, caps: tuple[int, int]) -> None:
        self.zygote = zygote
        self.r_in, self.w_in = os.pipe()
        self.r_out, self.w_out = os.pipe()
        self.r_err, self.w_err = os.pipe()
        self.out = Outcome()
        self.started = time.monotonic()
        self.pid = 0
        self.ended_fd = -1
        self.cap_of = {self.r_out: caps[0], self.r_err: caps[1]}
        self.bufs: dict[int, list[bytes]] = {self.r_out: [], self.r_err: []}
        self.totals = {self.r_out: 0, self.r_err: 0}
        self.poller = select.poll()
        self.watched: set[int] = set()
        self.pending = memoryview(b"")
        self.exited = self.killed = False
        self.drain_until: float | None = None

    def start(self, config: spawning.Config, spawner: spawning.Spawner | None) -> None:
        """The test started (spawned, or forked by the warm Python) on the pipes' far ends, closed here."""
        if self.zygote is None:
            try:
                self.pid = spawning.spawn_test(config, (self.r_in, self.w_out, self.w_err), spawner)
            except OSError as exc:  # the launcher could not be started: the test fails as it would have
                self.pid = os.fork()
                if self.pid == 0:
                    spawning.start_failed(exc)
            self.ended_fd = os.pidfd_open(self.pid)
        else:
            try:
                self.zygote.start(config, (self.r_in, self.w_out, self.w_err))
            except warm_python.ZygoteLost:
                self.out.lost = True
            self.ended_fd = self.zygote.sock.fileno()
        for fd in (self.r_in, self.w_out, self.w_err):
            os.close(fd)

    def watch(self, stdin: memoryview) -> None:
        """The poller set up: the end, the output and stderr, and the input while some is left to write
        (most inputs fit in the pipe: written at once, without waiting to be asked)."""
        self.watched = {self.ended_fd, self.r_out, self.r_err}
        self.poller.register(self.ended_fd, select.POLLIN)
        for fd in (self.r_out, self.r_err):
            os.set_blocking(fd, False)
            self.poller.register(fd, select.POLLIN)
        self.pending = stdin
        if self.pending:
            os.set_blocking(self.w_in, False)
            try:
                self.pending = self.pending[os.write(self.w_in, self.pending[:65536]) :]
            except BlockingIOError:
                pass
            except OSError:  # the program ended without reading
                self.pending = self.pending[:0]
        if self.pending:
            self.poller.register(self.w_in, select.POLLOUT)
            self.watched.add(self.w_in)
        else:
            os.close(self.w_in)
            self.w_in = -1
        if self.out.lost:  # nothing started: the pipes' other ends are closed already
            self.exited, self.out.status, self.drain_until = True, int(signal.SIGKILL), self.started
            self.unwatch(self.ended_fd)

    def unwatch(self, fd: int) -> None:
        self.poller.unregister(fd)
        self.watched.discard(fd)

    def ended(self, timeout: float | None) -> tuple[int, float | None, bool]:
        """The test's wait status, CPU seconds, and whether the zygote was lost meanwhile."""
        if self.zygote is None:
            return (*wait_for(self.pid), False)
        try:  # a zygote the test stopped never answers
            return (*self.zygote.ended(timeout), False)
        except warm_python.ZygoteLost:
            return int(signal.SIGKILL), None, True

    def follow(self, deadline: float) -> None:
        """Until the test ended and its pipes are drained (at most 2 s after its end), or, killed at
        ``deadline``, 2 s more without its end reported (a zygote the test stopped)."""
        out = self.out
        while True:
            if self.exited and not self.watched:
                break
            now = time.monotonic()
            if not self.exited and not out.timed_out and now >= deadline:
                out.timed_out = True
                kill_others()
            if self.drain_until is not None and now >= self.drain_until:
                break
            if out.timed_out and not self.exited and now >= deadline + 2.0:
                break  # killed, yet not reported ended: a zygote the test stopped (ZygoteLost below)
            limit = self.drain_until if self.exited else deadline
            wait = 0.5 if out.timed_out else max(0.0, (limit or now) - now)
            for fd, _event in self.poller.poll(wait * 1000.0):
                if fd not in self.watched:
                    continue
                if fd == self.ended_fd:
                    self._reap()
                elif fd == self.w_in:
                    self._write_input()
                else:
                    self._read_output(fd)

    def _reap(self) -> None:
        self.unwatch(self.ended_fd)
        self.out.status, self.out.cpu, lost = self.ended(None)
        self.out.lost = self.out.lost or lost
        self.exited = True
        kill_others()  # whatever the test left running, a stray holder of its pipes too
        self.killed = True
        self.drain_until = time.monotonic() + 2.0

    def _write_input(self) -> None:
        try:
            self.pending = self.pending[os.write(self.w_in, self.pending[:65536]) :]
        except BlockingIOError:
            return
        except OSError:  # the program stopped reading
            self.pending = self.pending[:0]
        if not self.pending:
            self.unwatch(self.w_in)
            os.close(self.w_in)
            self.w_in = -1

    def _read_output(self, fd: int) -> None:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.unwatch(fd)
            return
        if self.totals[fd] < self.cap_of[fd]:
            self.bufs[fd].append(chunk[: self.cap_of[fd] - self.totals[fd]])
        self.totals[fd] += len(chunk)
        if fd == self.r_out and self.totals[fd] > self.cap_of[fd] and not self.out.output_exceeded:
            self.out.output_exceeded = True
            kill_others()
            self.unwatch(fd)

    def finish(self) -> Outcome:
        """The test reaped (killed first if it never ended), its descriptors closed, nothing of it left
        running; what it did."""
        out = self.out
        if not self.exited:
            kill_others()
            out.status, out.cpu, lost = self.ended(2.0)  # the killed test is the zygote's to reap
            out.lost = out.lost or lost
            self.killed = False  # the kill came before the test was reaped: look again
        out.wall = time.monotonic() - self.started
        if self.zygote is None:
            os.close(self.ended_fd)
        for fd in (self.r_out, self.r_err, self.w_in):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if not self.killed:
            kill_others()
        out.stdout, out.stderr = b"".join(self.bufs[self.r_out]), b"".join(self.bufs[self.r_err])
        return out


def answer(nonce: bytes, out: Outcome, restart: bool) -> bytes:
    """The reply to the request that carried ``nonce``."""
    flags = (
        (wire.TIMED_OUT if out.timed_out else 0)
        | (wire.OUTPUT_EXCEEDED if out.output_exceeded else 0)
        | (wire.RESTART if restart else 0)
    )
    if out.lost:  # a new zygote forked from this process could find earlier inputs in its freed memory,
        # so the session ends and the next test gets a new sandbox
        return wire.reply_body(
            nonce,
            exit_code=None,
            signal_number=int(signal.SIGKILL),
            flags=flags | wire.RESTART,
            wall=out.wall,
            cpu=None,
            stdout=b"",
            stderr=b"the sandbox's Python starter was killed during this test\n",
        )
    status = out.status
    return wire.reply_body(
        nonce,
        exit_code=os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
        signal_number=os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
        flags=flags,
        wall=out.wall,
        cpu=out.cpu,
        stdout=out.stdout,
        stderr=out.stderr,
    )


def main() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    spawner = spawning.load_spawner()  # opens this process's OOM score while it can
    libc.prctl(spawning.PR_SET_DUMPABLE, 0, 0, 0, 0)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    PROTECTED.add(os.getpid())
    confine.PIDS.take(sys.argv)  # no capability for anything started from here on
    # no ptrace, pidfd_getfd, process_vm_readv... for anything started from here on (every test)
    confine.Confinement().apply()
    # the warm Python starts before any request is read, so that no test's input is in the memory
    # every Python test is forked from
    zygote = warm_python.Zygote(spawner) if "--warm-python" in sys.argv else None
    confine.shield_init()  # no handler left for a test's signal to reach (SIGINT's)
    confine.PIDS.reset()  # the first test's pid is every test's
    wire.write_frame(1, wire.READY)  # from here on, no failure is bubblewrap's (see resident.Session)
    config: spawning.Config | None = None
    while True:
        body = wire.read_frame(0)
        if body is None or len(body) < wire.REQUEST.size:
            return
        nonce, wall, output_cap, stderr_cap, config_size = wire.REQUEST.unpack_from(body)
        if config_size:
            config = spawning.Config(body[wire.REQUEST.size : wire.REQUEST.size + config_size])
        if config is None:
            return
        out = run_one(
            config, memoryview(body)[wire.REQUEST.size + config_size :], wall, (output_cap, stderr_cap), zygote, spawner
        )
        restart = not confine.wipe(libc)
        # the nonce is what only the reader of this request can answer
        wire.write_frame(1, answer(nonce, out, restart))
        if restart or out.lost:
            return


if __name__ == "__main__":
    main()
