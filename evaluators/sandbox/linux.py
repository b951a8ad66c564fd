"""Linux primitives the sandbox is built from: per-run cgroups (memory, processes, CPU accounting), the
child's setup between fork and ``exec bwrap`` (cgroups, namespaces, rlimits, uid and capabilities),
pooled empty network namespaces, and the private mount namespace that stages what bwrap binds.

Nothing here knows about languages or programs; evaluators.sandbox.sandbox puts these together.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

from .limits import Limits

#: where, inside the sandbox's private staging mount namespace (root only), the toolchains and the
#: sandbox's base directory are bound, so that bubblewrap, running as an unprivileged uid, reaches
#: them whatever the permissions of their real parent directories (see StagingNamespace)
STAGE_CANDIDATES: tuple[Path, ...] = (Path("/run/leaderboard-sandbox"), Path("/tmp/.leaderboard-sandbox"))


class CGroup:
    """A per-run cgroup v1 set: memory and pids (the limits), and cpuacct where the host has it (the
    CPU the program really used, counted for every process of the run, even those killed before
    anyone reaped them)."""

    def __init__(self, mem_root: Path, pids_root: Path, cpu_root: Path | None, limits: Limits) -> None:
        name = "r" + uuid.uuid4().hex[:16]
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


# ---------------------------------------------------------------------- low-level process setup
_LIBC = ctypes.CDLL(None, use_errno=True)
_CLONE_NEWNET = 0x40000000
_CLONE_NEWNS = 0x00020000
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18
_PR_CAPBSET_DROP = 24
_PR_CAP_AMBIENT = 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _cap_last() -> int:
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        return 63


def _check(ret: int) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def make_preexec(*, netns_fd: int | None, mntns_fd: int | None, cgroup_procs: tuple[str, ...],
                  rlimits: tuple[tuple[int, tuple[int, int]], ...],
                  uid: int | None) -> Callable[[], None]:
    """The child's setup between fork and ``exec bwrap`` (replaces the old sh/prlimit/setpriv chain).

    Runs in the forked child only, so it calls nothing but pre-bound system-call wrappers (no
    imports, no logging, no locks); any failure raises, and subprocess then refuses to exec.
    Order: join the run's cgroups, the pooled empty network namespace and the staging mount
    namespace (see StagingNamespace) while still root, set the rlimits and a umask that leaves
    compiled programs readable by the (different) uid that runs them, then drop the capability bounding set, groups, gid and uid, and finally
    clear every remaining capability set (what ``setpriv --clear-groups --inh-caps=-all
    --bounding-set=-all`` did).
    """
    libc_setns = _LIBC.setns
    libc_prctl = _LIBC.prctl
    libc_capset = _LIBC.capset
    setrlimit = resource.setrlimit
    caps = range(_cap_last() + 1)
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    no_caps = (_CapData * 2)()
    os_open, os_write, os_close, getpid, os_umask = os.open, os.write, os.close, os.getpid, os.umask

    def preexec() -> None:
        pid = str(getpid()).encode()
        for path in cgroup_procs:
            fd = os_open(path, os.O_WRONLY)
            try:
                os_write(fd, pid)
            finally:
                os_close(fd)
        if netns_fd is not None:
            _check(libc_setns(netns_fd, _CLONE_NEWNET))
        if mntns_fd is not None:
            _check(libc_setns(mntns_fd, _CLONE_NEWNS))
        os_umask(0o022)
        for which, value in rlimits:
            setrlimit(which, value)
        if uid is not None:
            for cap in caps:
                _check(libc_prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0))
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
        libc_prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
        if uid is not None:
            _check(libc_capset(ctypes.byref(header), no_caps))

    return preexec


def _namespace_in_thread(kind: str, setup: Callable[[], None]) -> int:
    """A descriptor that keeps alive the ``kind`` ("net", "mnt") namespace ``setup`` unshares.

    ``setup`` runs in a short-lived thread, so the namespace change never touches the rest of the
    process; once the thread is gone, the descriptor alone holds the namespace, and the kernel frees
    it when the descriptor is closed (at the latest when this process exits).
    """
    opened: list[int] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            setup()
            opened.append(os.open(f"/proc/thread-self/ns/{kind}", os.O_RDONLY | os.O_CLOEXEC))
        except BaseException as exc:  # reported to the caller below
            failed.append(exc)

    thread = threading.Thread(target=run, name=f"sandbox-{kind}ns", daemon=True)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]
    return opened[0]


class NetnsPool:
    """Empty network namespaces (only a downed ``lo``), created once and reused run after run.

    Creating a network namespace per run (``bwrap --unshare-net``) costs tens to hundreds of ms on a
    loaded host (and tearing it down is deferred kernel work), so each concurrently running program
    borrows one namespace from this pool, exclusively, and gives it back when its process tree is
    dead. Concurrent runs therefore never share a namespace (no abstract-unix-socket or loopback
    cross-talk), and nothing of a run survives into the next one (all its processes are killed
    before the namespace is returned). A namespace is created by unsharing it in a short-lived
    thread and kept alive by an open ``/proc/thread-self/ns/net`` descriptor: no holder process
    to keep, kill or restart, and the kernel frees them when this process exits.
    """

    def __init__(self) -> None:
        self._free: list[int] = []
        self._all: set[int] = set()
        self._lock = threading.Lock()

    @staticmethod
    def _create() -> int:
        return _namespace_in_thread("net", lambda: _check(_LIBC.unshare(_CLONE_NEWNET)))

    def acquire(self) -> int:
        with self._lock:
            if self._free:
                return self._free.pop()
        fd = self._create()
        with self._lock:
            self._all.add(fd)
        return fd

    def release(self, fd: int) -> None:
        with self._lock:
            if fd in self._all:
                self._free.append(fd)

    def discard(self, fd: int) -> None:
        with self._lock:
            self._all.discard(fd)
        try:
            os.close(fd)
        except OSError:
            pass

    def close(self) -> None:
        with self._lock:
            fds, self._all, self._free = self._all, set(), []
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass

    def __len__(self) -> int:
        return len(self._all)


class StagingNamespace:
    """A private mount namespace, made once per Sandbox (root only), that every run's bwrap starts in.

    Programs run as an unprivileged host uid, and bubblewrap resolves every bind source as that uid:
    a checkout under ``/root`` or a ``mktemp -d`` directory (mode 0700) cannot be passed through, and
    making the user's directories world-readable is not an answer. So, as root, a short-lived thread
    unshares a mount namespace, mounts a small tmpfs on a root-owned, world-traversable staging
    directory (its real parents: ``/run`` or ``/tmp``) and bind-mounts the toolchains and the base
    directory (program directories, the private /etc, Go caches) under it. The forked child joins
    that namespace (``setns``) before it drops privileges and execs bwrap, which then binds the staged
    paths into the sandbox as before. Nothing is visible to other processes on the host, the
    namespace costs one ``setns`` per run, and the kernel frees it when the descriptor closes.
    """

    def __init__(self, *, toolchains: Path | None, base_dir: Path) -> None:
        self.mountpoint: Path = self._mountpoint()
        self._sources: dict[str, Path] = {"base": base_dir}
        if toolchains is not None:
            self._sources["toolchains"] = toolchains
        self.fd: int = self._create()

    @staticmethod
    def _mountpoint() -> Path:
        for candidate in STAGE_CANDIDATES:
            try:
                candidate.mkdir(mode=0o711, exist_ok=True)
                if candidate.is_symlink() or candidate.stat().st_uid != 0:
                    continue  # never mount over a directory another user controls
                os.chmod(candidate, 0o711)
                return candidate
            except OSError:
                continue
        raise OSError("no staging directory for the sandbox: tried "
                      + ", ".join(str(c) for c in STAGE_CANDIDATES))

    def staged(self, host_path: Path) -> Path | None:
        """Where ``host_path`` (a source or anything under one) is reached in the namespace, or None."""
        for name, source in self._sources.items():
            if host_path == source or source in host_path.parents:
                return self.mountpoint / name / host_path.relative_to(source)
        return None

    def host(self, staged_path: str) -> str:
        """The inverse of ``staged``: the host path a staged one stands for (for messages)."""
        for name, source in self._sources.items():
            prefix = str(self.mountpoint / name)
            if staged_path == prefix or staged_path.startswith(prefix + "/"):
                return str(source) + staged_path[len(prefix):]
        return staged_path

    def _create(self) -> int:
        stage = bytes(self.mountpoint)
        sources = {name: bytes(src) for name, src in self._sources.items()}

        def setup() -> None:
            # unshare(CLONE_NEWNS) also gives this thread its own filesystem context, so the rest
            # of the process keeps the host's mounts
            _check(_LIBC.unshare(_CLONE_NEWNS))
            _check(_LIBC.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None))
            _check(_LIBC.mount(b"leaderboard-sandbox", stage, b"tmpfs", 0, b"mode=0755,size=64k"))
            for name, src in sources.items():
                target = stage + b"/" + name.encode()
                os.mkdir(target, 0o755)
                _check(_LIBC.mount(src, target, None, _MS_BIND | _MS_REC, None))

        return _namespace_in_thread("mnt", setup)
