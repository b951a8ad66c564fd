"""Bubblewrap sandbox: compile once, run each test as a fresh, isolated, resource-limited process.

Isolation: new user, PID, mount, IPC, UTS and cgroup namespaces per run (bwrap) and an empty
network namespace (only a downed ``lo``) that no other run uses at the same time: as root, taken
from a per-Sandbox pool (creating one per run is slow on a loaded host), otherwise bwrap's own
``--unshare-net``. A new session, ``--die-with-parent``, no new privileges, a cleared environment,
a minimal read-only filesystem (``/usr``, an allow-listed private ``/etc``, the project
toolchains), a private tmpfs for ``/tmp``, and a distinct unprivileged host uid per run with no
supplementary groups and empty capability sets including the bounding set (set up in the forked
child before ``exec bwrap``), so sandboxed code can neither see nor signal host processes. Limits: wall time (parent timer, kills the whole tree), CPU time
(RLIMIT_CPU), memory and process count (a per-run cgroup v1 when writable; RLIMIT_AS / RLIMIT_NPROC
fallback otherwise), file size (RLIMIT_FSIZE plus a size-capped tmpfs) and output size (capped
reading in the parent).
"""

from __future__ import annotations

import atexit
import base64
import ctypes
import hashlib
import itertools
import json
import os
import re
import resource
import selectors
import secrets
import shutil
import signal
import struct
import subprocess
import tempfile
import threading
import time
import uuid
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from evaluators.core.types import InfrastructureError

from .languages import CDS_ARCHIVE_FLAG, DATA_DIR, LANGUAGES, PROG_DIR, TOOLCHAIN_DIR, Language

REPO_ROOT: Path = Path(__file__).resolve().parents[2]
TOOLCHAINS: Path = REPO_ROOT / ".toolchains"
STDERR_CAP: int = 64 * 1024
COMPILE_OUTPUT_CAP: int = 64 * 1024
CGROUP_ROOT: Path = Path("/sys/fs/cgroup")
CGROUP_NAME: str = "llm-sandbox"
UID_BASE: int = 200_000
UID_POOL: int = 50_000
BWRAP: str = "/usr/bin/bwrap"
#: where, inside the sandbox's private staging mount namespace (root only), the toolchains and the
#: sandbox's base directory are bound, so that bubblewrap, running as an unprivileged uid, reaches
#: them whatever the permissions of their real parent directories (see _StagingNamespace)
STAGE_CANDIDATES: tuple[Path, ...] = (Path("/run/leaderboard-sandbox"), Path("/tmp/.leaderboard-sandbox"))

_ETC_BINDS: tuple[str, ...] = (
    "/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
    "/etc/java-17-openjdk", "/etc/mono", "/etc/php", "/etc/ssl", "/etc/ca-certificates",
    "/etc/localtime", "/etc/nsswitch.conf", "/etc/ruby", "/etc/gemrc", "/etc/npmrc", "/etc/host.conf",
)


#: every sandboxed process's environment, before its language's own variables
BASE_ENV: dict[str, str] = {"PATH": ":".join([f"{TOOLCHAIN_DIR}/go/bin", f"{TOOLCHAIN_DIR}/rust/bin", "/usr/local/bin", "/usr/bin", "/bin"]),
                            "HOME": "/tmp", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp", "USER": "sandbox"}
#: the supervisor that runs a program's tests inside one sandbox (see supervisor.py), and where it is bound
SUPERVISOR: Path = Path(__file__).resolve().parent / "supervisor.py"
SUPERVISOR_DIR: str = "/opt/supervisor"
#: memory the supervisor (and Python's warm starter) may use besides a test's own limit
SUPERVISOR_MEMORY_MB: int = 64
#: the warm compilers' servers: CompileServer.java for the JVM compilers, compile-server.js for tsc;
#: evaluators.sandbox.warm builds (javac) and copies them into .toolchains/compile-server, and they are
#: reached inside the sandbox through the toolchain mount
COMPILE_SERVER_SOURCES: tuple[Path, ...] = tuple(Path(__file__).resolve().parent / name
                                                 for name in ("CompileServer.java", "compile-server.js"))
COMPILE_SERVER_DIR: str = TOOLCHAIN_DIR + "/compile-server"
COMPILE_SERVER_CLASS: str = "leaderboard.sandbox.CompileServer"
NODE_COMPILE_SERVER: str = COMPILE_SERVER_DIR + "/compile-server.js"
WARM_COMPILER_IDLE_SECONDS: int = 120
WARM_COMPILER_RECYCLE: int = 200

#: bwrap's message when a bind source cannot be opened: the path and the system's reason
_BWRAP_UNREACHABLE = re.compile(r"Can't find source path (.+?): (.+)$", re.MULTILINE)
#: fragments of bwrap's messages when the kernel refuses it namespaces
_BWRAP_USERNS_MARKERS: tuple[str, ...] = (
    "No permissions to create new namespace", "Creating new namespace failed", "setting up uid map",
    "unprivileged_userns_clone", "max_user_namespaces", "Operation not permitted")


#: exit status of the probe when the sandbox's uid cannot read the toolchains
_UNREADABLE = 97
#: how every refusal to start the sandbox ends: code is never run without it
_REFUSAL = "; refusing to run untrusted code unsandboxed"


class SandboxUnavailable(InfrastructureError):
    """Raised when the sandbox cannot be used; code is never run unsandboxed instead."""


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
    wall_seconds=60.0, cpu_seconds=120.0, memory_mb=2048, processes=256,
    file_size_mb=256, output_bytes=1024 * 1024,
)


@dataclass(frozen=True)
class RunResult:
    """Outcome of one run."""

    status: str  # ok | runtime_error | timeout | memory_limit | output_limit
    exit_code: int | None
    stdout: str
    stderr: str
    wall_seconds: float
    cpu_seconds: float | None


@dataclass(frozen=True)
class CompileResult:
    """Outcome of compiling one program."""

    ok: bool
    status: str  # ok | compile_error | timeout | memory_limit | output_limit
    output: str
    seconds: float


@dataclass
class _Raw:
    exit_code: int | None
    signal: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool
    output_exceeded: bool
    oom: bool
    wall: float
    cpu: float | None


class _CGroup:
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
            _write(self.mem / "memory.limit_in_bytes", str(limit))
            memsw = self.mem / "memory.memsw.limit_in_bytes"
            if memsw.exists():
                _write(memsw, str(limit), ignore_errors=True)
            _write(self.mem / "memory.swappiness", "0", ignore_errors=True)
            _write(self.pids / "pids.max", str(limits.processes))
        except BaseException:
            self.destroy()
            raise

    def oom_happened(self) -> bool:
        try:
            for line in (self.mem / "memory.oom_control").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    return True
            return int((self.mem / "memory.failcnt").read_text()) > 0 and _usage_near_limit(self.mem)
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
            return int(_read_small(f"{self.cpu}/cpuacct.usage")) / 1e9
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


def _usage_near_limit(mem: Path) -> bool:
    limit = int((mem / "memory.limit_in_bytes").read_text())
    peak = int((mem / "memory.max_usage_in_bytes").read_text())
    return peak >= limit * 0.95


def _read_pids(path: Path) -> set[int]:
    try:
        return {int(x) for x in path.read_text().split()}
    except (OSError, ValueError):
        return set()


def _read_small(path: str) -> str:
    """A small kernel file (a cgroup counter), read with one system call."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, 65536).decode()
    finally:
        os.close(fd)


def _write(path: Path | str, value: str, *, ignore_errors: bool = False) -> None:
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


def _rmtree_at_exit(path: Path) -> None:
    """Remove ``path`` when this process exits (a private per-instance directory)."""
    atexit.register(shutil.rmtree, str(path), True)


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


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


def _make_preexec(*, netns_fd: int | None, mntns_fd: int | None, cgroup_procs: tuple[str, ...],
                  rlimits: tuple[tuple[int, tuple[int, int]], ...],
                  uid: int | None) -> Callable[[], None]:
    """The child's setup between fork and ``exec bwrap`` (replaces the old sh/prlimit/setpriv chain).

    Runs in the forked child only, so it calls nothing but pre-bound system-call wrappers (no
    imports, no logging, no locks); any failure raises, and subprocess then refuses to exec.
    Order: join the run's cgroups, the pooled empty network namespace and the staging mount
    namespace (see _StagingNamespace) while still root, set the rlimits and a umask that leaves
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


class _NetnsPool:
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


class _StagingNamespace:
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


class Sandbox:
    """Factory for sandboxed programs; cheap to share between threads."""

    # random start: concurrent worker processes rarely share a host uid
    _uid_counter = itertools.count(secrets.randbelow(UID_POOL))
    _uid_lock = threading.Lock()

    def __init__(self, *, base_dir: Path | None = None, warm_compilers: bool | None = None) -> None:
        """``warm_compilers``: keep the Kotlin and Scala compilers loaded between compiles (default: on
        unless LEADERBOARD_WARM_COMPILERS=0; off anyway until evaluators.sandbox.warm built the server)."""
        if not os.access(BWRAP, os.X_OK):
            raise SandboxUnavailable(
                f"{BWRAP} is missing: install the Debian package bubblewrap "
                "(scripts/install-toolchains)" + _REFUSAL)
        self.is_root: bool = os.geteuid() == 0
        #: host uids given to sandboxed processes by this instance (for leak checks)
        self.uids_used: set[int] = set()
        root = Path(base_dir) if base_dir is not None else Path(tempfile.gettempdir()) / "llm-sandbox"
        root.mkdir(parents=True, exist_ok=True)
        os.chmod(root, 0o711)
        root = root.resolve()
        self.base_dir: Path = root
        self._etc_dir: Path = self._build_etc(root)
        self._supervisor_dir: Path = self._install_supervisor(root)
        self._mem_root: Path | None = None
        self._pids_root: Path | None = None
        self._cpu_root: Path | None = None
        if self.is_root:
            self._setup_cgroups()
        self._toolchains: Path | None = TOOLCHAINS if TOOLCHAINS.is_dir() else None
        #: the private mount namespace bwrap starts in (root only: an unprivileged caller runs
        #: programs as itself, and can reach its own directories)
        self._staging: _StagingNamespace | None = None
        if self.is_root:
            try:
                self._staging = _StagingNamespace(toolchains=self._toolchains, base_dir=root)
            except OSError:
                self._staging = None  # e.g. no CAP_SYS_ADMIN; the probe says what cannot be reached
        #: pooled empty network namespaces (root only; otherwise bwrap makes one per run)
        self._netns: _NetnsPool | None = None
        if self.is_root:
            pool = _NetnsPool()
            try:
                pool.release(pool.acquire())
                self._netns = pool
            except OSError:
                pool.close()
        self._probe()
        if warm_compilers is None:
            warm_compilers = os.environ.get("LEADERBOARD_WARM_COMPILERS", "1") != "0"
        self.warm_compilers: _WarmCompilers | None = (
            _WarmCompilers(self) if warm_compilers and _WarmCompilers.ready() else None)

    # ------------------------------------------------------------------ setup
    @staticmethod
    def _build_etc(root: Path) -> Path:
        """The sandbox's whole /etc as one private directory, bound read-only with a single mount.

        It holds the allow-listed host entries (hard links where possible, else copies; taken once
        per Sandbox instance) plus our own passwd/group/hosts. One bind instead of ~20 per run saves
        bwrap a mount and a /proc/self/mountinfo scan per entry. Owned by root (or the caller) and
        never writable from inside.
        """
        etc = Path(tempfile.mkdtemp(prefix="etc-", dir=root))
        _rmtree_at_exit(etc)
        for src in _ETC_BINDS:
            if not os.path.lexists(src):
                continue
            dst = etc / os.path.basename(src)
            done = subprocess.run(["cp", "-a", "-l", src, str(dst)], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL).returncode == 0
            if not done:
                if dst.is_dir() and not dst.is_symlink():
                    shutil.rmtree(dst, ignore_errors=True)
                subprocess.run(["cp", "-a", src, str(dst)], check=False, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        (etc / "passwd").write_text(
            "root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:65534:65534:sandbox:/tmp:/usr/sbin/nologin\n")
        (etc / "group").write_text("root:x:0:\nsandbox:x:65534:\n")
        (etc / "hosts").write_text("127.0.0.1 localhost\n")
        for name in ("passwd", "group", "hosts"):
            os.chmod(etc / name, 0o644)
        os.chmod(etc, 0o755)
        return etc

    @staticmethod
    def _install_supervisor(root: Path) -> Path:
        """A private, read-only copy of supervisor.py under the base directory, which bwrap's uid can
        reach wherever the checkout is (the base directory is staged; the checkout may not be)."""
        target = Path(tempfile.mkdtemp(prefix="supervisor-", dir=root))
        shutil.copyfile(SUPERVISOR, target / "supervisor.py")
        os.chmod(target / "supervisor.py", 0o444)
        os.chmod(target, 0o555)
        _rmtree_at_exit(target)
        return target

    def _setup_cgroups(self) -> None:
        mem = CGROUP_ROOT / "memory" / CGROUP_NAME
        pids = CGROUP_ROOT / "pids" / CGROUP_NAME
        try:
            mem.mkdir(exist_ok=True)
            pids.mkdir(exist_ok=True)
            test = mem / ("probe" + uuid.uuid4().hex[:8])
            test.mkdir()
            test.rmdir()
        except OSError:
            return
        self._mem_root, self._pids_root = mem, pids
        cpu = CGROUP_ROOT / "cpuacct" / CGROUP_NAME
        try:
            cpu.mkdir(exist_ok=True)
            self._cpu_root = cpu
        except OSError:
            self._cpu_root = None  # CPU time then comes from bwrap's rusage (see _spawn)

    @property
    def uses_cgroups(self) -> bool:
        return self._mem_root is not None

    @property
    def pooled_netns(self) -> bool:
        """True when runs join pooled empty network namespaces instead of bwrap --unshare-net."""
        return self._netns is not None

    def _probe(self) -> None:
        """Start one sandbox, which also checks that its uid can enter and read the toolchains."""
        cmd = ["/bin/true"]
        if self._toolchains is not None:
            cmd = ["/bin/sh", "-c", f"test -r {TOOLCHAIN_DIR} -a -x {TOOLCHAIN_DIR} || exit {_UNREADABLE}"]
        try:
            raw = self._execute(cmd, limits=Limits(wall_seconds=20.0), prog_dir=None,
                                writable_prog=False, stdin=b"", env={}, extra_binds=())
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxUnavailable(f"cannot start bubblewrap: {exc}") from exc
        if raw.exit_code == _UNREADABLE and self._toolchains is not None:
            raise SandboxUnavailable(self._unreachable(str(self._toolchains), "Permission denied"))
        if raw.exit_code != 0:
            raise SandboxUnavailable(self._diagnose(raw.exit_code, _decode(raw.stderr).strip()))

    def _unreachable(self, path: str, reason: str) -> str:
        who = "the unprivileged uid that runs sandboxed programs" if self.is_root else "this user"
        return (f"the sandbox cannot reach {path} ({reason}): {who} needs read and search permission "
                f"on it and on its contents. Make the toolchains readable with `chmod -R a+rX {path}` "
                "(scripts/install-toolchains does this)" + _REFUSAL)

    def _diagnose(self, exit_code: int | None, stderr: str) -> str:
        """Why bubblewrap refused to start, in terms of the real cause and its fix."""
        unreachable = _BWRAP_UNREACHABLE.search(stderr)
        if unreachable:
            return self._unreachable(self._host_path(unreachable.group(1)), unreachable.group(2))
        if any(marker in stderr for marker in _BWRAP_USERNS_MARKERS):
            return (f"bubblewrap cannot create its namespaces here (exit {exit_code}): {stderr[:500]}. "
                    "Unprivileged user namespaces must be enabled (sysctl "
                    "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces>0), or the "
                    "worker run as root" + _REFUSAL)
        return f"bubblewrap failed to start (exit {exit_code}): {stderr[:500] or 'no message'}" + _REFUSAL

    def _source(self, host_path: Path) -> str:
        """The path bwrap binds ``host_path`` from: its staged twin when there is one (root)."""
        staged = self._staging.staged(host_path) if self._staging is not None else None
        return str(staged if staged is not None else host_path)

    def _host_path(self, source: str) -> str:
        """The inverse of _source, for messages that name a path the user can act on."""
        return self._staging.host(source) if self._staging is not None else source

    def _next_uid(self) -> int:
        with self._uid_lock:
            uid = UID_BASE + next(self._uid_counter) % UID_POOL
            self.uids_used.add(uid)
            return uid

    # ------------------------------------------------------------------ public
    def program(self, language: str | Language, source: str, *, compile_limits: Limits | None = None) -> Program:
        """A program in one of the twelve LANGUAGES (by key) or in another ``Language`` (the analysis
        Python of evaluators.sandbox.analysis)."""
        if isinstance(language, str):
            if language not in LANGUAGES:
                raise ValueError(f"unknown language {language!r}; expected one of {sorted(LANGUAGES)}")
            language = LANGUAGES[language]
        return Program(self, language, source, compile_limits or DEFAULT_COMPILE_LIMITS)

    def data_dir(self, source: Path) -> DataDir:
        """A read-only copy of the regular files under ``source`` (a dataset's CSV files), which
        ``Program.run(..., data=)`` mounts at DATA_DIR. A copy, not a bind of ``source`` itself: the
        sandbox's uid reaches only its own base directory, and nothing a program does can reach
        the original."""
        return DataDir(self, source)

    # ------------------------------------------------------------------ execution
    def _bwrap_args(self, *, uid_host: int, prog_dir: Path | None, writable_prog: bool,
                    env: dict[str, str], limits: Limits,
                    extra_binds: tuple[tuple[str, str, bool], ...], cwd: str,
                    own_netns: bool = True) -> list[str]:
        tmp_size = max(1, min(limits.file_size_mb * 4, limits.memory_mb)) * 1024 * 1024
        # Every namespace is new; the network one is either bwrap's own (--unshare-all) or, when
        # own_netns is False, a pooled empty one the child has already joined (see _NetnsPool).
        unshare = ["--unshare-all"] if own_netns else [
            "--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup"]
        args: list[str] = [
            BWRAP, *unshare, "--die-with-parent", "--new-session",
            "--uid", "65534", "--gid", "65534", "--hostname", "sandbox",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/sbin", "/sbin",
            "--proc", "/proc", "--dev", "/dev",
            "--size", str(tmp_size), "--tmpfs", "/tmp",
        ]
        args += ["--ro-bind", self._source(self._etc_dir), "/etc"]  # see _build_etc
        if self._toolchains is not None:
            args += ["--ro-bind", self._source(self._toolchains), TOOLCHAIN_DIR]
        if prog_dir is not None:
            args += ["--bind" if writable_prog else "--ro-bind", self._source(prog_dir), PROG_DIR]
        for src, dst, writable in extra_binds:
            args += ["--bind" if writable else "--ro-bind", self._source(Path(src)), dst]
        args += ["--remount-ro", "/"]  # the sandbox's own root tmpfs: only /tmp (and /prog when compiling) are writable
        base_env = {**BASE_ENV, **env}
        args.append("--clearenv")
        for key, value in base_env.items():
            args += ["--setenv", key, value]
        args += ["--chdir", cwd]
        del uid_host
        return args

    def _execute(self, cmd: list[str], *, limits: Limits, prog_dir: Path | None, writable_prog: bool,
                 stdin: bytes, env: dict[str, str],
                 extra_binds: tuple[tuple[str, str, bool], ...], cwd: str = "/tmp",
                 uid_host: int | None = None) -> _Raw:
        uid = uid_host if uid_host is not None else self._next_uid()
        cgroup: _CGroup | None = None
        netns: int | None = self._netns.acquire() if self._netns is not None else None
        try:
            if self._mem_root is not None and self._pids_root is not None:
                cgroup = _CGroup(self._mem_root, self._pids_root, self._cpu_root, limits)
            return self._spawn(cmd, limits=limits, prog_dir=prog_dir, writable_prog=writable_prog,
                               stdin=stdin, env=env, extra_binds=extra_binds, cwd=cwd, uid=uid,
                               cgroup=cgroup, netns=netns)
        except BaseException:
            if netns is not None and self._netns is not None:
                self._netns.discard(netns)  # unknown state: never hand it to another run
                netns = None
            raise
        finally:
            if cgroup is not None:
                cgroup.destroy()
            if netns is not None and self._netns is not None:
                self._netns.release(netns)  # the run's whole process tree is dead by now

    def _rlimits(self, limits: Limits, *, with_cgroup: bool, cpu: bool = True) -> list[tuple[str, int, int]]:
        """A process tree's rlimits by name (soft, hard): CPU time (SIGXCPU, then SIGKILL a second later),
        file size, no core files, a 256 MiB stack, 1024 files; without cgroups also the address space
        and the uid's processes (with them, the cgroup bounds memory and processes)."""
        fsize = limits.file_size_mb * 1024 * 1024
        out = [("RLIMIT_FSIZE", fsize, fsize), ("RLIMIT_CORE", 0, 0), ("RLIMIT_STACK", 268435456, 268435456),
               ("RLIMIT_NOFILE", 1024, 1024)]
        if cpu:
            seconds = max(1, int(limits.cpu_seconds + 0.999))
            out.insert(0, ("RLIMIT_CPU", seconds, seconds + 1))
        if not with_cgroup:
            mem = max(limits.memory_mb, 2048) * 1024 * 1024 * 4
            out += [("RLIMIT_AS", mem, mem), ("RLIMIT_NPROC", limits.processes, limits.processes)]
        elif self.is_root:
            nproc = max(limits.processes * 2, 256)
            out += [("RLIMIT_NPROC", nproc, nproc)]
        return out

    def _preexec(self, limits: Limits, *, cgroup: _CGroup | None, netns: int | None, uid: int, cpu: bool = True) -> Callable[[], None]:
        rl = tuple((getattr(resource, name), (soft, hard)) for name, soft, hard in self._rlimits(limits, with_cgroup=cgroup is not None, cpu=cpu))
        return _make_preexec(netns_fd=netns, mntns_fd=self._staging.fd if self._staging is not None else None,
                             cgroup_procs=cgroup.procs_files if cgroup is not None else (), rlimits=rl,
                             uid=uid if self.is_root else None)

    def _spawn(self, cmd: list[str], *, limits: Limits, prog_dir: Path | None, writable_prog: bool,
               stdin: bytes, env: dict[str, str], extra_binds: tuple[tuple[str, str, bool], ...],
               cwd: str, uid: int, cgroup: _CGroup | None, netns: int | None) -> _Raw:
        preexec = self._preexec(limits, cgroup=cgroup, netns=netns, uid=uid)
        argv = self._bwrap_args(
            uid_host=uid, prog_dir=prog_dir, writable_prog=writable_prog, env=env, limits=limits,
            extra_binds=extra_binds, cwd=cwd, own_netns=netns is None) + ["--"] + cmd
        start = time.monotonic()
        # preexec_fn instead of a sh/prlimit/setpriv exec chain (see _make_preexec). The netns fd is
        # O_CLOEXEC and used before exec only: neither bwrap nor the program inherits it.
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True,
                                env={"PATH": "/usr/bin:/bin"}, preexec_fn=preexec)
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        timed_out = output_exceeded = False

        def kill() -> None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            if cgroup is not None:
                cgroup.kill_all()

        # One thread, one selector: stdout/stderr (capped), stdin, and a pidfd for the exit.
        sel = selectors.DefaultSelector()
        pidfd = os.pidfd_open(proc.pid)
        out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
        bufs: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
        totals = {out_fd: 0, err_fd: 0}
        caps = {out_fd: limits.output_bytes, err_fd: STDERR_CAP}
        for fd in (out_fd, err_fd):
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        sel.register(pidfd, selectors.EVENT_READ)
        in_fd = proc.stdin.fileno()
        pending = memoryview(stdin)
        if pending:
            os.set_blocking(in_fd, False)
            sel.register(in_fd, selectors.EVENT_WRITE)
        else:
            proc.stdin.close()
        deadline = start + limits.wall_seconds
        exited = False
        drain_deadline: float | None = None
        status = 0
        rusage = None
        try:
            while True:
                if exited and len(sel.get_map()) == 0:
                    break
                now = time.monotonic()
                if not exited and not timed_out and now >= deadline:
                    timed_out = True
                    kill()
                if drain_deadline is not None and now >= drain_deadline:
                    break  # a stray holder of the pipes after the run: it has been killed
                limit = deadline if not exited else drain_deadline
                timeout = max(0.0, (limit or now) - now) if not timed_out else 0.5
                for key, _ in sel.select(timeout):
                    fd = key.fd
                    if fd == pidfd:
                        sel.unregister(pidfd)
                        _, status, rusage = os.wait4(proc.pid, 0)
                        exited = True
                        kill()  # whatever the run left behind (a stray holder of the pipes too)
                        drain_deadline = time.monotonic() + 5.0
                    elif fd == in_fd:
                        try:
                            n = os.write(in_fd, pending[:65536])
                            pending = pending[n:]
                        except BlockingIOError:
                            continue
                        except OSError:  # EPIPE: the program stopped reading
                            pending = pending[:0]
                        if not pending:
                            sel.unregister(in_fd)
                            proc.stdin.close()
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
                        total = totals[fd]
                        if total < caps[fd]:
                            bufs[fd].append(chunk[: caps[fd] - total])
                        totals[fd] = total + len(chunk)
                        if fd == out_fd and totals[fd] > caps[fd] and not output_exceeded:
                            output_exceeded = True
                            kill()
                            sel.unregister(fd)
        finally:
            if not exited:
                kill()
                _, status, rusage = os.wait4(proc.pid, 0)
            sel.close()
            os.close(pidfd)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                try:
                    stream.close()
                except OSError:
                    pass
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        exit_code: int | None = None
        sig: int | None = None
        if os.WIFEXITED(status):
            exit_code = os.WEXITSTATUS(status)
        elif os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
        oom = cgroup.oom_happened() if cgroup is not None else False
        cpu_used = cgroup.cpu_seconds() if cgroup is not None else None
        if cpu_used is None and rusage is not None and not (timed_out or output_exceeded):
            # Without a cpuacct group, bwrap's rusage holds the program's CPU only when the program
            # ended on its own (bwrap reaped it); a killed tree's CPU is lost, so it stays unknown.
            cpu_used = rusage.ru_utime + rusage.ru_stime
        return _Raw(exit_code=exit_code, signal=sig, stdout=b"".join(bufs[out_fd]),
                    stderr=b"".join(bufs[err_fd]), timed_out=timed_out, output_exceeded=output_exceeded,
                    oom=oom, wall=wall, cpu=cpu_used)


#: a class name as the JVM takes it on its command line
_JVM_CLASS_NAME = re.compile(r"[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*")


def _jar_main_class(jar: Path) -> str | None:
    """The Main-Class a jar written inside the sandbox names (read without following links), or None."""
    try:
        fd = os.open(jar, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        try:
            with zipfile.ZipFile(handle) as archive:
                info = archive.getinfo("META-INF/MANIFEST.MF")
                if info.file_size > 1024 * 1024:
                    return None
                manifest = archive.read(info).decode("utf-8", errors="replace")
        except (KeyError, OSError, zipfile.BadZipFile, RuntimeError, ValueError, EOFError):
            return None
    for line in manifest.splitlines():
        if line.startswith("Main-Class:"):
            name = line[len("Main-Class:"):].strip()
            return name if _JVM_CLASS_NAME.fullmatch(name) else None
    return None


def _placeholders(limits: Limits, main: str = "") -> dict[str, str | int]:
    heap = max(32, int(limits.memory_mb * 0.7))
    return {"prog": PROG_DIR, "tc": TOOLCHAIN_DIR, "heap_mb": heap, "mem_mb": limits.memory_mb, "main": main}


def _fill(template: tuple[str, ...], limits: Limits, *, main: str = "") -> list[str]:
    """A command with its placeholders filled; a class-data sharing archive that is not installed is
    left out (a JVM told to use a missing archive would start without even the JDK's own)."""
    values = _placeholders(limits, main)
    filled = [part.format(**values) for part in template]
    return [part for part in filled if not (part.startswith(CDS_ARCHIVE_FLAG + TOOLCHAIN_DIR + "/") and
                                            not (TOOLCHAINS / part[len(CDS_ARCHIVE_FLAG + TOOLCHAIN_DIR + "/"):]).is_file())]


def _fill_env(env: dict[str, str], limits: Limits) -> dict[str, str]:
    values = _placeholders(limits)
    return {k: v.format(**values) for k, v in env.items()}


def compile_server_digest() -> str:
    """The digest of the warm compilers' sources, stamped on what evaluators.sandbox.warm installs: a
    server built from other sources is never started."""
    digest = hashlib.sha256()
    for source in COMPILE_SERVER_SOURCES:
        digest.update(source.name.encode() + b"\0" + source.read_bytes() + b"\0")
    return digest.hexdigest()


def _compile_server_command(language: Language, limits: Limits) -> tuple[list[str], list[str], frozenset[bytes]]:
    """How a warm compiler of ``language`` starts (the cold compile's command up to its compiler, then
    the server in the compiler's place), the arguments each compile sends it (the cold command's own),
    and the exit codes that are a compile's normal answers (any other ends the server)."""
    assert language.compile_cmd is not None and language.compiler_main is not None
    cmd = _fill(language.compile_cmd, limits)
    main = _fill((language.compiler_main,), limits)[0]
    at = cmd.index(main)
    head, args = cmd[:at], cmd[at + 1:]
    idle = str(WARM_COMPILER_IDLE_SECONDS)
    if head[0] == "node":  # tsc: 1 and 2 are errors reported (2: and the output written anyway)
        return [*head, NODE_COMPILE_SERVER, main, idle], args, frozenset({b"0", b"1", b"2"})
    if "-cp" in head:  # kotlinc's 2 and 137 are its internal errors
        head[head.index("-cp") + 1] += ":" + COMPILE_SERVER_DIR
    else:
        head += ["-cp", COMPILE_SERVER_DIR]
    return [*head, COMPILE_SERVER_CLASS, main, idle], args, frozenset({b"0", b"1"})


class _Resident:
    """A long-lived process in one sandbox that answers framed requests (a 4-byte big-endian length,
    then the bytes) on its stdin and stdout: the test supervisor of a _Session, a warm compiler of
    _WarmCompiler. It has its own uid, cgroup and network namespace for as long as it lives."""

    def __init__(self, sandbox: Sandbox, limits: Limits) -> None:
        self.sandbox, self.limits = sandbox, limits
        self.proc: subprocess.Popen[bytes] | None = None
        self.cgroup: _CGroup | None = None
        self.netns: int | None = None
        self.uid: int | None = None

    def _launch(self, command: list[str], *, env: dict[str, str], cgroup_limits: Limits, prog_dir: Path | None,
                writable_prog: bool, binds: tuple[tuple[str, str, bool], ...], cwd: str, uid: int | None = None) -> None:
        sb = self.sandbox
        self.netns = sb._netns.acquire() if sb._netns is not None else None
        if sb._mem_root is not None and sb._pids_root is not None:
            self.cgroup = _CGroup(sb._mem_root, sb._pids_root, sb._cpu_root, cgroup_limits)
        self.uid = uid if uid is not None else sb._next_uid()
        argv = sb._bwrap_args(uid_host=self.uid, prog_dir=prog_dir, writable_prog=writable_prog, env=env, limits=self.limits,
                              extra_binds=binds, cwd=cwd, own_netns=self.netns is None)
        # no CPU rlimit: it would count the whole life of the process, not one request
        self.proc = subprocess.Popen(argv + ["--", *command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True, env={"PATH": "/usr/bin:/bin"},
                                     preexec_fn=sb._preexec(self.limits, cgroup=self.cgroup, netns=self.netns, uid=self.uid, cpu=False))
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def _exchange(self, request: bytes, deadline: float) -> bytes | None:
        """Send one frame and read the reply frame; None when the process died or stopped answering."""
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout is not None
        out_fd, in_fd = self.proc.stdout.fileno(), self.proc.stdin.fileno()
        pending = memoryview(struct.pack(">I", len(request)) + request)
        reply = bytearray()
        needed: int | None = None
        with selectors.DefaultSelector() as sel:
            sel.register(in_fd, selectors.EVENT_WRITE)
            sel.register(out_fd, selectors.EVENT_READ)
            while True:
                now = time.monotonic()
                if now >= deadline:
                    return None
                for key, _ in sel.select(deadline - now):
                    if key.fd == in_fd:
                        try:
                            pending = pending[os.write(in_fd, pending[:1 << 20]):]
                        except BlockingIOError:
                            continue
                        except OSError:
                            return None
                        if not pending:
                            sel.unregister(in_fd)
                    else:
                        try:
                            chunk = os.read(out_fd, 1 << 20)
                        except BlockingIOError:
                            continue
                        if not chunk:
                            return None
                        reply += chunk
                        if needed is None and len(reply) >= 4:
                            needed = 4 + struct.unpack(">I", bytes(reply[:4]))[0]
                        if needed is not None and len(reply) >= needed:
                            return bytes(reply[4:needed])

    def _counters(self) -> tuple[int, int, float | None]:
        """The cgroup's OOM kills, limit hits and CPU seconds so far (for one request's share); read
        twice per test, so with plain system calls."""
        if self.cgroup is None:
            return 0, 0, None
        oom_kills = failcnt = 0
        mem = str(self.cgroup.mem)
        try:
            for line in _read_small(mem + "/memory.oom_control").splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill":
                    oom_kills = int(value)
            failcnt = int(_read_small(mem + "/memory.failcnt"))
            _write(mem + "/memory.max_usage_in_bytes", "0", ignore_errors=True)
        except (OSError, ValueError):
            pass
        return oom_kills, failcnt, self.cgroup.cpu_seconds()

    def _oom_between(self, before: tuple[int, int, float | None], after: tuple[int, int, float | None]) -> bool:
        return after[0] > before[0] or (after[1] > before[1] and self.cgroup is not None and _usage_near_limit(self.cgroup.mem))

    def _close(self) -> str:
        """End the process and free its cgroup and namespace; returns what it (or bwrap) printed on stderr."""
        proc, self.proc = self.proc, None
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
        if self.netns is not None and self.sandbox._netns is not None:
            self.sandbox._netns.release(self.netns)
            self.netns = None
        return _decode(stderr)

    def close(self) -> None:
        self._close()


class _Session(_Resident):
    """One sandbox for one program's tests: bubblewrap running the supervisor (supervisor.py), which
    runs each test as its own process with the test's own limits and a clean /tmp, and answers over
    a pipe. The session's cgroup (memory, processes, CPU accounting) and network namespace are the
    program's for as long as the session lasts; its uid is its own. A test that kills or stops the
    supervisor fails, and the next test starts a new session."""

    def __init__(self, program: Program, limits: Limits, data: DataDir | None) -> None:
        super().__init__(program.sandbox, limits)
        self.program, self.data = program, data
        lang = program.language
        self.env = {**BASE_ENV, **_fill_env(lang.env, limits)}
        self.argv = _fill(lang.run_cmd, limits, main=program.main_class or "")
        self.rlimits = [list(r) for r in self.sandbox._rlimits(limits, with_cgroup=self.sandbox._mem_root is not None)]
        self.tests = 0

    def _start(self) -> None:
        binds: tuple[tuple[str, str, bool], ...] = ((str(self.sandbox._supervisor_dir), SUPERVISOR_DIR, False),)
        if self.data is not None:
            binds += ((str(self.data.path), DATA_DIR, False),)
        own = Limits(memory_mb=self.limits.memory_mb + SUPERVISOR_MEMORY_MB, processes=self.limits.processes + 4)
        self._launch(["/usr/bin/python3", "-I", "-S", "-B", f"{SUPERVISOR_DIR}/supervisor.py",
                      *(["--warm-python"] if self.program.language.warm_python else [])],
                     env=self.env, cgroup_limits=own, prog_dir=self.program.prog_dir, writable_prog=False,
                     binds=binds, cwd="/tmp")
        self.tests = 0

    def run(self, stdin: str) -> RunResult:
        if self.proc is None:
            self._start()
        limits = self.limits
        request = json.dumps({"argv": self.argv, "env": self.env, "cwd": "/tmp", "wall": limits.wall_seconds,
                              "stdin": base64.b64encode(stdin.encode("utf-8", errors="surrogateescape")).decode(),
                              "rlimits": self.rlimits, "output_cap": limits.output_bytes, "stderr_cap": STDERR_CAP}).encode()
        before = self._counters()
        started = time.monotonic()
        answer = self._exchange(request, started + limits.wall_seconds + 10.0)
        self.tests += 1
        if answer is None:
            return self._lost(time.monotonic() - started)
        reply = json.loads(answer)
        after = self._counters()
        cpu = after[2] - before[2] if after[2] is not None and before[2] is not None else reply["cpu"]
        oom = self._oom_between(before, after)
        raw = _Raw(exit_code=reply["exit_code"], signal=reply["signal"], stdout=base64.b64decode(reply["stdout"]),
                   stderr=base64.b64decode(reply["stderr"]), timed_out=reply["timed_out"], output_exceeded=reply["output_exceeded"],
                   oom=oom, wall=reply["wall"], cpu=cpu)
        if reply.get("restart"):  # the supervisor ended the session (its warm Python was killed)
            self._close()
        return self.program._result_of(raw, limits)

    def _lost(self, wall: float) -> RunResult:
        """The supervisor died (the test killed it) or stopped answering (the test stopped it): this
        test failed; the session ends and the next test gets a new one. A sandbox that could not start
        at all is the platform's failure, never the program's."""
        stderr = self._close()
        if self.tests == 1 and "bwrap:" in stderr:
            raise SandboxUnavailable(f"the sandbox did not start: {stderr.strip()[:500]}" + _REFUSAL)
        timed_out = wall >= self.limits.wall_seconds
        return RunResult(status="timeout" if timed_out else "runtime_error", exit_code=None, stdout="",
                         stderr="the test stopped the sandbox's supervisor (killed or suspended it)", wall_seconds=wall,
                         cpu_seconds=None)

    def __enter__(self) -> _Session:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._close()


class _WarmCompiler(_Resident):
    """A compiler kept loaded in one sandbox, for languages whose compiler spends seconds starting: a JVM
    (CompileServer.java: Kotlin, Scala, Java) or Node (compile-server.js: TypeScript's tsc). The same
    command and flags as the cold compile, the same /prog directory, the same limits on memory and
    processes; one compile at a time. Its /prog is emptied before each compile and what the compile
    made is moved into the program's own directory, out of the server's reach. The compiler runs no
    code of the program's (kotlinc, javac and scalac 2 run no user code while compiling one source
    file, and are given no plugin; tsc only parses and emits), so a server is shared by the programs
    its worker compiles; anything but a normal answer (a crash, an exception thrown, a time-out or
    memory kill) ends the server, and the program is compiled cold, which answers as before."""

    def __init__(self, sandbox: Sandbox, language: Language, limits: Limits) -> None:
        super().__init__(sandbox, limits)
        assert language.compile_cmd is not None and language.compiler_main is not None
        self.language = language
        self.compiles = 0
        self.root: Path = Path(tempfile.mkdtemp(prefix=f"compiler-{language.key}-", dir=sandbox.base_dir))
        os.chmod(self.root, 0o755)
        self.work: Path = self.root / "prog"
        self.work.mkdir()
        command, self.args, self.normal = _compile_server_command(language, limits)
        uid = sandbox._next_uid()
        if sandbox.is_root:
            os.chown(self.work, uid, uid)
        env = {**BASE_ENV, **_fill_env(language.env, limits), **_fill_env(language.compile_env, limits)}
        try:
            self._launch(command, env=env, cgroup_limits=limits, prog_dir=self.work, writable_prog=True, binds=(),
                         cwd=PROG_DIR, uid=uid)
        except BaseException:
            self.close()
            raise

    def compile(self, source: str, into: Path) -> _Raw | None:
        """Compile ``source`` and move everything in /prog afterwards (the source included) into
        ``into``; None when this server gave no normal answer (it is closed then)."""
        lang = self.language
        (self.work / lang.source_name).write_text(source, encoding="utf-8", errors="surrogateescape")
        for name in lang.mkdirs:
            (self.work / name).mkdir(exist_ok=True)
        if self.sandbox.is_root and self.uid is not None:
            for path in self.work.iterdir():
                os.chown(path, self.uid, self.uid)
        before = self._counters()
        started = time.monotonic()
        answer = self._exchange("\0".join(self.args).encode(), started + self.limits.wall_seconds)
        wall = time.monotonic() - started
        oom = self._oom_between(before, self._counters())
        self.compiles += 1
        head, _, output = (answer or b"").partition(b"\n")
        if answer is None or oom or head not in self.normal:
            self.close()  # a crash, an Error or an internal error, a kill: compile cold
            return None
        for entry in list(self.work.iterdir()):
            os.replace(entry, into / entry.name)
        return _Raw(exit_code=int(head), signal=None, stdout=output, stderr=b"", timed_out=False,
                    output_exceeded=False, oom=False, wall=wall, cpu=None)

    def close(self) -> None:
        self._close()
        shutil.rmtree(self.root, ignore_errors=True)


class _WarmCompilers:
    """A Sandbox's warm compilers, by language and limits, shared by its threads: a compile takes an
    idle server or starts one (so there are as many as compiles at once), gives it back afterwards,
    and a server is replaced after WARM_COMPILER_RECYCLE compiles (the compiler's caches only grow).
    Idle servers exit by themselves after WARM_COMPILER_IDLE_SECONDS, and with the worker."""

    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
        self._idle: dict[tuple[object, ...], list[_WarmCompiler]] = {}
        self._lock = threading.Lock()
        atexit.register(self.close)

    @staticmethod
    def ready() -> bool:
        """Whether the server's class is installed and built from this checkout's source."""
        stamp = TOOLCHAINS / "compile-server" / ".source-sha256"
        try:
            return stamp.read_text().strip() == compile_server_digest()
        except OSError:
            return False

    def compile(self, language: Language, limits: Limits, source: str, into: Path) -> _Raw | None:
        """The compile's outcome from a warm server, or None: compile cold."""
        # the very command, environment and limits: a variant of a language never gets another's server
        key = (language.compile_cmd, tuple(sorted(language.env.items())), tuple(sorted(language.compile_env.items())), limits)
        server: _WarmCompiler | None = None
        with self._lock:
            idle = self._idle.setdefault(key, [])
            while idle and server is None:
                candidate = idle.pop()
                if candidate.alive:
                    server = candidate
                else:
                    candidate.close()  # it exited while idle
        if server is None:
            try:
                server = _WarmCompiler(self.sandbox, language, limits)
            except OSError:
                return None
        try:
            raw = server.compile(source, into)
        except BaseException:
            server.close()
            raise
        if server.alive and server.compiles < WARM_COMPILER_RECYCLE:
            with self._lock:
                self._idle[key].append(server)
        else:
            server.close()
        return raw

    def resident_uids(self) -> set[int]:
        """The host uids of the servers kept between compiles (processes under them are expected)."""
        with self._lock:
            return {server.uid for idle in self._idle.values() for server in idle if server.uid is not None}

    def close(self) -> None:
        with self._lock:
            servers = [server for idle in self._idle.values() for server in idle]
            self._idle.clear()
        for server in servers:
            server.close()


class DataDir:
    """Files for sandboxed programs, copied under the sandbox's base directory and mounted read-only at
    DATA_DIR (owned by root, or the caller, and never writable by the program's uid). A context manager."""

    def __init__(self, sandbox: Sandbox, source: Path) -> None:
        source = Path(source)
        if not source.is_dir():
            raise FileNotFoundError(f"data directory {source} does not exist")
        self.sandbox = sandbox
        self.closed = False
        self.root: Path = Path(tempfile.mkdtemp(prefix="data-", dir=sandbox.base_dir))
        os.chmod(self.root, 0o755)
        self.path: Path = self.root / "data"
        try:
            for dirpath, dirnames, filenames in os.walk(source):
                dirnames[:] = [d for d in dirnames if not Path(dirpath, d).is_symlink()]
                target = self.path / Path(dirpath).relative_to(source)
                target.mkdir(mode=0o755, parents=True, exist_ok=True)
                for name in filenames:
                    src = Path(dirpath, name)
                    if src.is_file() and not src.is_symlink():
                        shutil.copyfile(src, target / name)
                        os.chmod(target / name, 0o444)
                os.chmod(target, 0o555)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            for dirpath, _dirs, _files in os.walk(self.root):
                os.chmod(dirpath, 0o755)  # read-only directories: make them removable again
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> DataDir:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()


class Program:
    """A program compiled once in its own directory; each ``run`` is a fresh sandboxed process."""

    def __init__(self, sandbox: Sandbox, language: Language, source: str, compile_limits: Limits) -> None:
        self.sandbox = sandbox
        self.language = language
        self.root: Path = Path(tempfile.mkdtemp(prefix=f"{language.key}-", dir=sandbox.base_dir))
        os.chmod(self.root, 0o755)
        self.prog_dir: Path = self.root / "prog"
        self.prog_dir.mkdir()
        self._closed = False
        #: the class a JVM run starts ({main} in run_cmd), read from the jar a compile wrote
        self.main_class: str | None = None
        try:
            self.compile_result: CompileResult = self._compile(source, compile_limits)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ compile
    def _compile(self, source: str, limits: Limits) -> CompileResult:
        lang = self.language
        warm = self.sandbox.warm_compilers
        raw = warm.compile(lang, limits, source, self.prog_dir) if warm is not None and lang.compiler_main else None
        if raw is None:
            raw = self._compile_cold(source, limits)
        if raw is None:
            return CompileResult(ok=True, status="ok", output="", seconds=0.0)
        output = _decode((raw.stdout + raw.stderr)[:COMPILE_OUTPUT_CAP])
        if raw.timed_out:
            status = "timeout"
        elif raw.output_exceeded:
            status = "output_limit"
        elif raw.oom:
            status = "memory_limit"
        elif raw.exit_code == 0:
            missing = self._missing_entry_point()
            status = "compile_error" if missing else "ok"
            if missing:
                output = (output.rstrip() + "\n" if output.strip() else "") + missing
        else:
            status = "compile_error"
        if status == "compile_error" and not output.strip():
            ended = (f"was killed by signal {raw.signal}" if raw.signal is not None
                     else f"exited with status {raw.exit_code}")
            output = f"the compiler ({(lang.compile_cmd or ('?',))[0]}) {ended} and printed nothing"
        if lang.key == "go":
            shutil.rmtree(self.root / "gocache", ignore_errors=True)
        return CompileResult(ok=status == "ok", status=status, output=output, seconds=raw.wall)

    def _compile_cold(self, source: str, limits: Limits) -> _Raw | None:
        """The source written into the program's directory and compiled by a compiler process of its
        own; None for a language without a compile step (the source is the program)."""
        lang = self.language
        src_path = self.prog_dir / lang.source_name
        src_path.write_text(source, encoding="utf-8", errors="surrogateescape")
        for d in lang.mkdirs:
            (self.prog_dir / d).mkdir(exist_ok=True)
        uid = self.sandbox._next_uid()
        extra: tuple[tuple[str, str, bool], ...] = ()
        if lang.key == "go":
            extra = (self._prepare_gocache(uid),)
        if self.sandbox.is_root:
            for path in [self.prog_dir, *self.prog_dir.rglob("*")]:
                os.chown(path, uid, uid)
        if lang.compile_cmd is None:
            return None
        env = {**_fill_env(lang.env, limits), **_fill_env(lang.compile_env, limits)}
        return self.sandbox._execute(_fill(lang.compile_cmd, limits), limits=limits, prog_dir=self.prog_dir,
                                     writable_prog=True, stdin=b"", env=env, extra_binds=extra,
                                     cwd=PROG_DIR, uid_host=uid)

    def _missing_entry_point(self) -> str | None:
        """Why a program the compiler accepted cannot be started, or None when it can."""
        lang = self.language
        if lang.artifact is None:
            return None
        artifact = self.prog_dir / lang.artifact
        need = f"; the program must declare {lang.entry_point}" if lang.entry_point else ""
        if not artifact.is_file() or artifact.is_symlink():
            found = sorted(p.name for p in artifact.parent.glob("*.class"))[:5] if artifact.suffix == ".class" else []
            seen = f" (it produced {', '.join(found)})" if found else ""
            return f"compiled, but no {lang.artifact} was produced{seen}{need}"
        if lang.jar_main_class:
            self.main_class = _jar_main_class(artifact)
            if self.main_class is None:
                return f"compiled, but the program has no entry point{need}"
        return None

    def _prepare_gocache(self, uid: int) -> tuple[str, str, bool]:
        """A private writable Go build cache, hard-linked from the warm one (files stay read-only)."""
        dst = self.root / "gocache"
        warm = TOOLCHAINS / "gocache"
        copied = False
        if warm.is_dir():
            try:
                subprocess.run(["cp", "-al", str(warm), str(dst)], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                copied = True
            except subprocess.CalledProcessError:
                shutil.rmtree(dst, ignore_errors=True)
        if not copied:
            dst.mkdir(exist_ok=True)
        if self.sandbox.is_root:
            for dirpath, _dirs, _files in os.walk(dst):
                os.chown(dirpath, uid, uid)  # directories only: the files are shared hard links
        return (str(dst), "/gocache", True)

    # ------------------------------------------------------------------ run
    def session(self, limits: Limits, *, data: DataDir | None = None) -> _Session:
        """One sandbox for many runs of this program (``with program.session(limits) as s: s.run(stdin)``):
        each run is a fresh process with ``limits``, a clean /tmp and nothing left from the run before."""
        if self._closed:
            raise RuntimeError("program already closed")
        if not self.compile_result.ok:
            raise RuntimeError(f"program did not compile: {self.compile_result.status}")
        if data is not None and (data.sandbox is not self.sandbox or data.closed):
            raise ValueError("the data directory belongs to another sandbox or is closed")
        return _Session(self, limits, data)

    def run(self, stdin: str, limits: Limits, *, data: DataDir | None = None) -> RunResult:
        """Run the program once; ``data`` is mounted read-only at DATA_DIR for it."""
        with self.session(limits, data=data) as session:
            return session.run(stdin)

    def _result_of(self, raw: _Raw, limits: Limits) -> RunResult:
        lang = self.language
        stderr = _decode(raw.stderr)
        # RLIMIT_CPU ends the program with SIGXCPU (or SIGKILL at the hard limit a second later).
        xcpu = raw.signal == signal.SIGXCPU or raw.exit_code == 128 + signal.SIGXCPU
        cpu_exceeded = xcpu or (raw.signal == signal.SIGKILL and (raw.cpu or 0.0) >= limits.cpu_seconds - 0.05)
        if raw.output_exceeded:
            status = "output_limit"
        elif raw.timed_out or cpu_exceeded:
            status = "timeout"
        elif raw.oom:
            status = "memory_limit"
        elif raw.exit_code == 0:
            status = "ok"
        elif any(marker in stderr for marker in lang.oom_markers):
            status = "memory_limit"
        else:
            status = "runtime_error"
        return RunResult(status=status, exit_code=raw.exit_code if raw.signal is None else -raw.signal,
                         stdout=_decode(raw.stdout), stderr=stderr, wall_seconds=raw.wall, cpu_seconds=raw.cpu)

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        if not self._closed:
            self._closed = True
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Program:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
