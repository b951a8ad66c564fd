"""One process tree's run from the scoring process's side (``Exchange``): its input written, its output
and stderr read up to their caps, its exit seen, the whole tree killed at the wall limit; and what the
run did, as a ``RawResult`` (``raw_result``). host.Host.execute starts the tree and hands it here.
"""

from __future__ import annotations

import os
import resource
import selectors
import signal
import subprocess
import time

from .cgroups import CGroup
from .limits import STDERR_CAP, Limits
from .results import RawResult


class Exchange:
    """One process tree's run from the scoring process's side: its input written, its output and stderr
    read up to their caps, its exit seen (a pidfd), all in one thread with one selector; the whole tree
    killed at the wall limit, when the output passes its cap, and once it exited (whatever it left)."""

    def __init__(
        self, proc: subprocess.Popen[bytes], cgroup: CGroup | None, limits: Limits, stdin: bytes, start: float
    ) -> None:
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        self.proc, self.cgroup, self.limits = proc, cgroup, limits
        self.deadline = start + limits.wall_seconds
        self.timed_out = self.output_exceeded = self.exited = False
        self.status = 0
        self.rusage: resource.struct_rusage | None = None
        self.out_fd, self.err_fd, self.in_fd = proc.stdout.fileno(), proc.stderr.fileno(), proc.stdin.fileno()
        self.bufs: dict[int, list[bytes]] = {self.out_fd: [], self.err_fd: []}
        self.totals = {self.out_fd: 0, self.err_fd: 0}
        self.caps = {self.out_fd: limits.output_bytes, self.err_fd: STDERR_CAP}
        self.pending = memoryview(stdin)
        self.sel = selectors.DefaultSelector()
        self.pidfd = os.pidfd_open(proc.pid)

    @property
    def stdout(self) -> bytes:
        return b"".join(self.bufs[self.out_fd])

    @property
    def stderr(self) -> bytes:
        return b"".join(self.bufs[self.err_fd])

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if self.cgroup is not None:
            self.cgroup.kill_all()

    def run(self) -> Exchange:
        """Until the tree exited and its pipes are drained (or 5 s after its exit: a stray holder of the
        pipes, killed by then); the pipes and the pidfd closed, the process reaped."""
        self._register()
        try:
            self._loop()
        finally:
            if not self.exited:
                self.kill()
                _, self.status, self.rusage = os.wait4(self.proc.pid, 0)
            self.sel.close()
            os.close(self.pidfd)
            for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                try:
                    stream.close()  # type: ignore[union-attr]
                except OSError:
                    pass
        return self

    def _register(self) -> None:
        for fd in (self.out_fd, self.err_fd):
            os.set_blocking(fd, False)
            self.sel.register(fd, selectors.EVENT_READ)
        self.sel.register(self.pidfd, selectors.EVENT_READ)
        if self.pending:
            os.set_blocking(self.in_fd, False)
            self.sel.register(self.in_fd, selectors.EVENT_WRITE)
        else:
            self.proc.stdin.close()  # type: ignore[union-attr]

    def _loop(self) -> None:
        drain_deadline: float | None = None
        while True:
            if self.exited and len(self.sel.get_map()) == 0:
                return
            now = time.monotonic()
            if not self.exited and not self.timed_out and now >= self.deadline:
                self.timed_out = True
                self.kill()
            if drain_deadline is not None and now >= drain_deadline:
                return  # a stray holder of the pipes after the run: it has been killed
            limit = self.deadline if not self.exited else drain_deadline
            timeout = max(0.0, (limit or now) - now) if not self.timed_out else 0.5
            for key, _ in self.sel.select(timeout):
                fd = key.fd
                if fd == self.pidfd:
                    self.sel.unregister(self.pidfd)
                    _, self.status, self.rusage = os.wait4(self.proc.pid, 0)
                    self.exited = True
                    self.kill()  # whatever the run left behind (a stray holder of the pipes too)
                    drain_deadline = time.monotonic() + 5.0
                elif fd == self.in_fd:
                    self._write_input()
                else:
                    self._read_output(fd)

    def _write_input(self) -> None:
        try:
            n = os.write(self.in_fd, self.pending[:65536])
            self.pending = self.pending[n:]
        except BlockingIOError:
            return
        except OSError:  # EPIPE: the program stopped reading
            self.pending = self.pending[:0]
        if not self.pending:
            self.sel.unregister(self.in_fd)
            self.proc.stdin.close()  # type: ignore[union-attr]

    def _read_output(self, fd: int) -> None:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.sel.unregister(fd)
            return
        total = self.totals[fd]
        if total < self.caps[fd]:
            self.bufs[fd].append(chunk[: self.caps[fd] - total])
        self.totals[fd] = total + len(chunk)
        if fd == self.out_fd and self.totals[fd] > self.caps[fd] and not self.output_exceeded:
            self.output_exceeded = True
            self.kill()
            self.sel.unregister(fd)


def raw_result(done: Exchange, cgroup: CGroup | None, wall: float) -> RawResult:
    """What one run did: how it ended (an exit code or a signal), what it wrote, which limit stopped it,
    and its CPU (the cgroup's, else bwrap's rusage when the program ended on its own)."""
    exit_code: int | None = None
    sig: int | None = None
    if os.WIFEXITED(done.status):
        exit_code = os.WEXITSTATUS(done.status)
    elif os.WIFSIGNALED(done.status):
        sig = os.WTERMSIG(done.status)
    oom = cgroup.oom_happened() if cgroup is not None else False
    cpu_used = cgroup.cpu_seconds() if cgroup is not None else None
    if cpu_used is None and done.rusage is not None and not (done.timed_out or done.output_exceeded):
        # Without a cpuacct group, bwrap's rusage holds the program's CPU only when the program
        # ended on its own (bwrap reaped it); a killed tree's CPU is lost, so it stays unknown.
        cpu_used = done.rusage.ru_utime + done.rusage.ru_stime
    return RawResult(
        exit_code=exit_code,
        signal=sig,
        stdout=done.stdout,
        stderr=done.stderr,
        timed_out=done.timed_out,
        output_exceeded=done.output_exceeded,
        oom=oom,
        wall=wall,
        cpu=cpu_used,
    )
