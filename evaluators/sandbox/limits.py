"""What a sandboxed process tree may use: ``Limits`` and the rlimits that enforce part of them.

Memory and processes are bounded by a per-run cgroup where the host has one (evaluators.sandbox.linux),
and by rlimits otherwise; CPU time, file size, core files, the stack and open files always by rlimits,
set by the launcher before bubblewrap starts (launch.c), or for each test inside the sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the most of a process's stderr read back (its stdout is capped by ``Limits.output_bytes``)
STDERR_CAP: int = 64 * 1024


@dataclass(frozen=True)
class Limits:
    """Resource limits for one process tree."""

    wall_seconds: float = 15.0
    cpu_seconds: float = 15.0
    memory_mb: int = 1024
    processes: int = 64
    file_size_mb: int = 64
    output_bytes: int = 8 * 1024 * 1024


DEFAULT_COMPILE_LIMITS: Limits = Limits(
    wall_seconds=60.0,
    cpu_seconds=120.0,
    memory_mb=2048,
    processes=256,
    file_size_mb=256,
    output_bytes=1024 * 1024,
)


def rlimits(limits: Limits, *, with_cgroup: bool, as_root: bool, cpu: bool = True) -> list[tuple[str, int, int]]:
    """A process tree's rlimits by name (soft, hard): CPU time (SIGXCPU, then SIGKILL a second later),
    file size, no core files, a 256 MiB stack, 1024 files; without cgroups also the address space
    and the uid's processes (with them, the cgroup bounds memory and processes). ``as_root``: the
    sandbox runs as root (each run under its own host uid)."""
    fsize = limits.file_size_mb * 1024 * 1024
    out = [
        ("RLIMIT_FSIZE", fsize, fsize),
        ("RLIMIT_CORE", 0, 0),
        ("RLIMIT_STACK", 268435456, 268435456),
        ("RLIMIT_NOFILE", 1024, 1024),
    ]
    if cpu:
        seconds = max(1, int(limits.cpu_seconds + 0.999))
        out.insert(0, ("RLIMIT_CPU", seconds, seconds + 1))
    if not with_cgroup:
        mem = max(limits.memory_mb, 2048) * 1024 * 1024 * 4
        out += [("RLIMIT_AS", mem, mem), ("RLIMIT_NPROC", limits.processes, limits.processes)]
    elif as_root:
        nproc = max(limits.processes * 2, 256)
        out += [("RLIMIT_NPROC", nproc, nproc)]
    return out
