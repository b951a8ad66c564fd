"""Per-run cgroups (cgroup v1: memory, processes, CPU accounting): a run's groups (``CGroup``), the
sweep of the empty groups a process that ended left behind, and a resident's counter files, opened once
and read per request (``CounterFiles``).
"""

from __future__ import annotations

import os
import re
import signal
import time
import uuid
from pathlib import Path
from typing import NamedTuple

from .limits import Limits


class CGroup:
    """A per-run cgroup v1 set: memory and pids (the limits), and cpuacct where the host has it (the
    CPU the program really used, counted for every process of the run, even those killed before
    anyone reaped them)."""

    def __init__(self, mem_root: Path, pids_root: Path, cpu_root: Path | None, limits: Limits) -> None:
        name = f"r{os.getpid()}-{uuid.uuid4().hex[:12]}"  # the owner's pid: see sweep_orphaned_cgroups
        self.mem = mem_root / name
        self.pids = pids_root / name
        self.cpu: Path | None = cpu_root / name if cpu_root is not None else None
        self.mem.mkdir()
        try:
            self.pids.mkdir()
            if self.cpu is not None:
                self.cpu.mkdir()
            limit = limits.memory_mb * 1024 * 1024
            write_kernel_file(self.mem / "memory.limit_in_bytes", str(limit))
            memsw = self.mem / "memory.memsw.limit_in_bytes"
            if memsw.exists():
                write_kernel_file(memsw, str(limit), ignore_errors=True)
            write_kernel_file(self.mem / "memory.swappiness", "0", ignore_errors=True)
            write_kernel_file(self.pids / "pids.max", str(limits.processes))
        except BaseException:
            self.destroy()
            raise

    def oom_happened(self) -> bool:
        try:
            for line in (self.mem / "memory.oom_control").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
            return int((self.mem / "memory.failcnt").read_text()) > 0 and usage_near_limit(self.mem)
        except (OSError, ValueError):
            return False

    @property
    def procs_files(self) -> tuple[str, ...]:
        groups = (self.mem, self.pids) + ((self.cpu,) if self.cpu is not None else ())
        return tuple(str(group / "cgroup.procs") for group in groups)

    def cpu_seconds(self) -> float | None:
        """User plus system CPU of every process that ran in the group (read before destroy)."""
        if self.cpu is None:
            return None
        try:
            return int(read_kernel_file(f"{self.cpu}/cpuacct.usage")) / 1e9
        except (OSError, ValueError):
            return None

    def kill_all(self) -> None:
        deadline = time.monotonic() + 0.5
        delay = 0.0005
        while True:
            pids = _read_pids(self.pids / "cgroup.procs") | _read_pids(self.mem / "cgroup.procs")
            if not pids or time.monotonic() > deadline:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(delay)
            delay = min(delay * 2, 0.01)

    def destroy(self) -> None:
        self.kill_all()
        for path in (self.mem, self.pids) + ((self.cpu,) if self.cpu is not None else ()):
            delay = 0.0005
            for _ in range(120):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.01)


#: a per-run cgroup's name: its owner's pid, then a random part
_CGROUP_NAME = re.compile(r"r(\d+)-[0-9a-f]{12}")


def sweep_orphaned_cgroups(roots: tuple[Path, ...]) -> int:
    """Remove the empty per-run cgroups under ``roots`` whose owner (the pid in the name) has ended; returns
    how many. A process that ends without closing its sandboxes leaves them: a Celery prefork child exits
    with ``os._exit`` (no atexit handler, so its idle warm compilers are never closed), a worker killed with
    SIGKILL, a test run stopped. Their processes die with them (bubblewrap's --die-with-parent), the empty
    groups stayed. Never kills: a group that still holds a process is refused by the kernel and kept."""
    removed = 0
    for root in roots:
        try:
            entries = list(os.scandir(root))
        except OSError:
            continue
        for entry in entries:
            match = _CGROUP_NAME.fullmatch(entry.name)
            if match is None or _alive(int(match.group(1))):
                continue
            try:
                os.rmdir(entry.path)
                removed += 1
            except OSError:
                pass
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def usage_near_limit(mem: Path) -> bool:
    """Whether the memory cgroup ``mem`` peaked within 5% of its limit."""
    limit = int((mem / "memory.limit_in_bytes").read_text())
    peak = int((mem / "memory.max_usage_in_bytes").read_text())
    return peak >= limit * 0.95


def _read_pids(path: Path) -> set[int]:
    try:
        return {int(x) for x in path.read_text().split()}
    except (OSError, ValueError):
        return set()


def read_kernel_file(path: str) -> str:
    """A small kernel file (a cgroup counter), read with one system call."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, 65536).decode()
    finally:
        os.close(fd)


def write_kernel_file(path: Path | str, value: str, *, ignore_errors: bool = False) -> None:
    """Write a cgroup control file with one system call."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.write(fd, value.encode())
        finally:
            os.close(fd)
    except OSError:
        if not ignore_errors:
            raise


class Counters(NamedTuple):
    """A resident's cgroup counters at one moment: OOM kills, memory limit hits, CPU seconds (None
    without cpuacct) and forks refused at the process limit (pids.events)."""

    oom_kills: int
    failcnt: int
    cpu: float | None
    forks_refused: int


class CounterFiles:
    """A cgroup's counter files, open for as long as a resident lives: memory.oom_control (OOM kills),
    memory.failcnt (limit hits), memory.max_usage_in_bytes (reset to 0 after each reading, so that
    the next peak is the next request's), pids.events (forks refused), cpuacct.usage (CPU). Each is
    read from offset 0, one system call per file and request, where opening, reading and closing it
    each time took three."""

    def __init__(self, cgroup: CGroup) -> None:
        self._fds: list[int] = []
        self.oom, self.failcnt, self.events = (
            self._open(f"{path}", os.O_RDONLY)
            for path in (cgroup.mem / "memory.oom_control", cgroup.mem / "memory.failcnt", cgroup.pids / "pids.events")
        )
        self.peak = self._open(f"{cgroup.mem}/memory.max_usage_in_bytes", os.O_WRONLY)
        self.cpu = self._open(f"{cgroup.cpu}/cpuacct.usage", os.O_RDONLY) if cgroup.cpu is not None else -1

    def _open(self, path: str, flags: int) -> int:
        try:
            fd = os.open(path, flags | os.O_CLOEXEC)
        except OSError:
            return -1
        self._fds.append(fd)
        return fd

    @staticmethod
    def _read(fd: int) -> bytes:
        return os.pread(fd, 512, 0) if fd >= 0 else b""

    def read(self) -> Counters:
        oom_kills = failcnt = forks_refused = 0
        cpu: float | None = None
        try:
            for line in self._read(self.oom).splitlines():
                key, _, value = line.partition(b" ")
                if key == b"oom_kill":
                    oom_kills = int(value)
            failcnt = int(self._read(self.failcnt) or 0)
            if self.peak >= 0:
                try:
                    os.pwrite(self.peak, b"0", 0)
                except OSError:
                    pass
            forks_refused = int(self._read(self.events).split()[1])
        except (OSError, ValueError, IndexError):
            pass
        try:
            cpu = int(self._read(self.cpu)) / 1e9 if self.cpu >= 0 else None
        except (OSError, ValueError):
            cpu = None
        return Counters(oom_kills, failcnt, cpu, forks_refused)

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []
