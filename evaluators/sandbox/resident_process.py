"""Resident processes: long-lived processes in one sandbox each that answer framed requests over their
stdin and stdout (``Resident``): a session's supervisor (resident.Session), a warm compiler
(warm_compilers.WarmCompiler).
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import time
from pathlib import Path

from .cgroups import CGroup, CounterFiles, Counters, usage_near_limit
from .host import Bind, Host
from .limits import STDERR_CAP, Limits
from .results import decode_output
from .wire import HEADER

#: how often, while waiting for an answer, the parent checks that the process is not stopped
LIVENESS_SECONDS: float = 1.0


class Resident:
    """A long-lived process in one sandbox that answers framed requests (a 4-byte big-endian length,
    then the bytes) on its stdin and stdout: the test supervisor of a Session, a warm compiler of
    warm_compilers.WarmCompiler. It has its own uid, cgroup and network namespace for as long as it lives."""

    def __init__(self, host: Host, limits: Limits) -> None:
        self.host, self.limits = host, limits
        self.proc: subprocess.Popen[bytes] | None = None
        self.cgroup: CGroup | None = None
        self.netns: int | None = None
        self.uid: int | None = None
        #: why the last _exchange gave no answer
        self.failure: str = ""
        #: the counters read after the last request (a Session's: nothing runs in its sandbox between
        #: requests, so they are the next request's "before" too)
        self._previous: Counters | None = None
        #: the cgroup's counter files, opened once (read from offset 0 for each request)
        self._counter_fds: CounterFiles | None = None

    def _launch(
        self,
        command: list[str],
        *,
        env: dict[str, str],
        cgroup_limits: Limits,
        prog_dir: Path | None,
        writable_prog: bool,
        binds: tuple[Bind, ...],
        cwd: str,
        uid: int | None = None,
        supervisor: bool = False,
    ) -> None:
        host = self.host
        self.netns = host.netns_pool.acquire() if host.netns_pool is not None else None
        self.cgroup = host.new_cgroup(cgroup_limits)
        # a resident's uid is held (kept from other runs) until _close
        self.uid = uid if uid is not None else host.next_uid(hold=True)
        argv = host.bwrap_args(
            prog_dir=prog_dir,
            writable_prog=writable_prog,
            env=env,
            limits=self.limits,
            extra_binds=binds,
            cwd=cwd,
            own_netns=self.netns is None,
            supervisor=supervisor,
        )
        # no CPU rlimit: it would count the whole life of the process, not one request
        self.proc = host.launch(
            argv + ["--", *command],
            self.limits,
            cgroup=self.cgroup,
            netns=self.netns,
            uid=self.uid,
            cpu=False,
            supervisor=supervisor,
        )
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _stopped(self) -> bool:
        """Whether the process that answers is stopped (SIGSTOP): it would never answer."""
        if self.proc is None:
            return False
        try:  # bwrap --as-pid-1 forks once: its only child is the command itself
            with open(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children", encoding="ascii") as handle:
                children = handle.read().split()
            with open(f"/proc/{children[0]}/stat", encoding="ascii", errors="replace") as handle:
                return handle.read().rpartition(")")[2].split()[0] in ("T", "t")
        except (OSError, IndexError):
            return False

    def _exchange(self, request: bytes | None, deadline: float, max_reply: int) -> bytes | None:
        """Send one frame (none when ``request`` is None) and read one answer frame of at most
        ``max_reply`` bytes; None, with ``failure`` saying why, when the process died, stopped or gave
        no answer in time, or said what it may not: bytes before it was asked, more than one frame,
        or a frame over the cap (never read past its header: its length is refused from it)."""
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        out_fd, in_fd = self.proc.stdout.fileno(), self.proc.stdin.fileno()
        pending = memoryview(b"")
        if request is not None:
            try:
                early = os.read(out_fd, 1)
            except BlockingIOError:
                early = None
            if early is not None:
                self.failure = "answered before it was asked" if early else "ended"
                return None
            pending = memoryview(HEADER.pack(len(request)) + request)
            try:  # most requests fit in the pipe: written at once, without waiting to be asked
                pending = pending[os.write(in_fd, pending[: 1 << 20]) :]
            except BlockingIOError:
                pass
            except OSError:
                self.failure = "ended"
                return None
        reply = bytearray()
        needed: int | None = None
        poller = select.poll()
        if pending:
            poller.register(in_fd, select.POLLOUT)
        poller.register(out_fd, select.POLLIN)
        while True:
            now = time.monotonic()
            if now >= deadline:
                self.failure = "gave no answer in time"
                return None
            ready = poller.poll(min(deadline - now, LIVENESS_SECONDS) * 1000.0)
            if not ready and self._stopped():
                self.failure = "was stopped"
                return None
            for fd, _event in ready:
                if fd == in_fd:
                    try:
                        pending = pending[os.write(in_fd, pending[: 1 << 20]) :]
                    except BlockingIOError:
                        continue
                    except OSError:
                        self.failure = "ended"
                        return None
                    if not pending:
                        poller.unregister(in_fd)
                    continue
                try:  # the header and what may follow it (at most the cap), then the rest of the frame
                    chunk = os.read(
                        out_fd,
                        min(
                            1 << 20,
                            (needed if needed is not None else HEADER.size + min(max_reply, 65536)) - len(reply),
                        ),
                    )
                except BlockingIOError:
                    continue
                if not chunk:
                    self.failure = "ended"
                    return None
                reply += chunk
                if needed is None and len(reply) >= HEADER.size:
                    needed = HEADER.size + HEADER.unpack_from(reply)[0]
                    if needed - HEADER.size > max_reply:
                        self.failure = f"sent a {needed - HEADER.size}-byte answer (at most {max_reply} are read)"
                        return None
                if needed is not None and len(reply) >= needed:
                    if len(reply) > needed or pending:
                        self.failure = (
                            "answered more than one frame" if len(reply) > needed else "answered before it was asked"
                        )
                        return None
                    return bytes(reply[HEADER.size : needed])

    def _counters(self) -> Counters:
        """The cgroup's OOM kills, limit hits, CPU seconds and refused forks so far (for one request's
        share), from its counter files, opened once per cgroup and read with one system call each."""
        if self.cgroup is None:
            return Counters(0, 0, None, 0)
        if self._counter_fds is None:
            self._counter_fds = CounterFiles(self.cgroup)
        return self._counter_fds.read()

    def _oom_between(self, before: Counters, after: Counters) -> bool:
        return after.oom_kills > before.oom_kills or (
            after.failcnt > before.failcnt and self.cgroup is not None and usage_near_limit(self.cgroup.mem)
        )

    def _close(self) -> str:
        """End the process and free its cgroup and namespace; returns what it (or bwrap) printed on stderr."""
        proc, self.proc = self.proc, None
        self._previous = None
        if self._counter_fds is not None:
            self._counter_fds.close()
            self._counter_fds = None
        stderr = b""
        if proc is not None:
            try:
                proc.stdin.close()  # type: ignore[union-attr]
            except OSError:
                pass
            try:
                proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            if self.cgroup is not None:
                self.cgroup.kill_all()
            proc.wait()
            try:
                stderr = os.read(proc.stderr.fileno(), STDERR_CAP)  # type: ignore[union-attr]
            except OSError:
                pass
            for stream in (proc.stdout, proc.stderr):
                try:
                    stream.close()  # type: ignore[union-attr]
                except OSError:
                    pass
        if self.cgroup is not None:
            self.cgroup.destroy()
            self.cgroup = None
        if self.uid is not None:
            self.host.release_uid(self.uid)
            self.uid = None
        if self.netns is not None and self.host.netns_pool is not None:
            self.host.netns_pool.release(self.netns)
            self.netns = None
        return decode_output(stderr)

    def close(self) -> None:
        self._close()
