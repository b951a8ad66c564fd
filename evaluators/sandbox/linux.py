"""Linux primitives the sandbox is built from: the launcher that sets up a run before ``exec bwrap``
without forking the scoring process (cgroups, namespaces, rlimits, uid and capabilities: launch.c),
pooled empty network namespaces, and the private mount namespace that stages what bwrap binds (the
per-run cgroups are cgroups.py's).

Nothing here knows about languages or programs; evaluators.sandbox.host puts these together.
"""

from __future__ import annotations

import atexit
import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

#: where, inside the sandbox's private staging mount namespace (root only), the toolchains and the
#: sandbox's base directory are bound, so that bubblewrap, running as an unprivileged uid, reaches
#: them whatever the permissions of their real parent directories (see StagingNamespace)
STAGE_CANDIDATES: tuple[Path, ...] = (Path("/run/leaderboard-sandbox"), Path("/tmp/.leaderboard-sandbox"))


# ---------------------------------------------------------------------- low-level process setup
_LIBC = ctypes.CDLL(None, use_errno=True)
_CLONE_NEWNET = 0x40000000
_CLONE_NEWNS = 0x00020000
_MS_RDONLY = 1
_MS_BIND = 4096
_MS_REC = 16384
_MS_PRIVATE = 1 << 18


def _cap_last() -> int:
    try:
        return int(Path("/proc/sys/kernel/cap_last_cap").read_text())
    except (OSError, ValueError):
        return 63


def _check(ret: int) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


#: the launcher's source (see Launcher)
LAUNCHER_SOURCE: Path = Path(__file__).resolve().parent / "launch.c"
#: the supervisor's spawn library's source (loaded with ctypes inside each sandbox; see Launcher)
SPAWN_SOURCE: Path = Path(__file__).resolve().parent / "spawn.c"
#: the C compilers tried, in order, to build it (scripts/install-toolchains installs g++, hence gcc)
C_COMPILERS: tuple[str, ...] = ("/usr/bin/gcc", "/usr/bin/cc")


class Launcher:
    """Starts bubblewrap without forking the scoring process: ``launch.c``, built once per source digest
    and started with vfork+exec (``subprocess.Popen`` without ``preexec_fn``, whose cost does not grow
    with the caller's memory), joins the run's cgroups and namespaces, sets the rlimits, drops to the
    run's uid and every capability, and execs bwrap; a fork of the scoring process copied its page
    tables instead (8-29 ms at 53 MB, 180 ms at 2 GB) and stalled its other threads meanwhile.

    Built beside it: the supervisor's spawn library (``spawn.c``, a shared object the supervisor loads
    with ctypes to start each test without exec'ing the launcher first); ``library`` is None when the
    compiler cannot build a shared object, and the supervisor then starts tests through the launcher.

    Both are kept in ``cache_dir`` (the sandbox's base directory) when that directory is this
    user's and nobody else can write to it, else in a private directory of this instance."""

    def __init__(self, cache_dir: Path) -> None:
        self.last_cap: int = _cap_last()
        if not self._private(cache_dir):
            cache_dir = Path(tempfile.mkdtemp(prefix="launcher-"))
            atexit.register(shutil.rmtree, str(cache_dir), True)
        # static where the C library allows it: no dynamic loader at each start
        self.path: str = str(self._build(cache_dir, LAUNCHER_SOURCE, "launch", (["-static"], [])))
        try:
            self.library: str | None = str(
                self._build(cache_dir, SPAWN_SOURCE, "spawn", (["-shared", "-fPIC"],), ".so")
            )
        except OSError:
            self.library = None

    @staticmethod
    def _private(path: Path) -> bool:
        """Whether only this user can have written ``path`` (it is the user's, and not group- or world-writable)."""
        try:
            st = os.lstat(path)
        except OSError:
            return False
        return st.st_uid == os.geteuid() and not st.st_mode & 0o022

    def _build(
        self, cache_dir: Path, source_path: Path, stem: str, flag_choices: tuple[list[str], ...], suffix: str = ""
    ) -> Path:
        """``source_path`` built into ``cache_dir`` once per source digest, with the first of
        ``flag_choices`` the compiler accepts."""
        source = source_path.read_bytes()
        name = f"{stem}-{hashlib.sha256(source).hexdigest()[:16]}{suffix}"
        target = cache_dir / name
        if self._private(target) and target.is_file():
            return target
        compiler = next((c for c in C_COMPILERS if os.access(c, os.X_OK)), None)
        if compiler is None:
            raise OSError(
                f"no C compiler ({' or '.join(C_COMPILERS)}) to build the sandbox's launcher "
                f"({source_path.name}): install gcc (scripts/install-toolchains installs g++, which brings it)"
            )
        building = cache_dir / f".{name}-{uuid.uuid4().hex[:8]}"
        for flags in flag_choices:
            made = subprocess.run(
                [compiler, "-O2", "-Wall", *flags, "-o", str(building), str(source_path)],
                capture_output=True,
                text=True,
            )
            if made.returncode == 0:
                break
        if made.returncode != 0:
            building.unlink(missing_ok=True)
            raise OSError(f"cannot build the sandbox's {source_path.name} with {compiler}: {made.stderr.strip()[:500]}")
        os.chmod(building, 0o755)
        os.replace(building, target)  # atomic: concurrent builders leave one complete binary
        return target

    def popen(
        self,
        command: list[str],
        *,
        netns_fd: int | None,
        mntns_fd: int | None,
        cgroup_procs: tuple[str, ...],
        rlimits: tuple[tuple[int, tuple[int, int]], ...],
        uid: int | None,
        seccomp: bytes | None = None,
        keep_fds: tuple[int, ...] = (),
        mounts: tuple[tuple[str, str], ...] = (),
    ) -> subprocess.Popen[bytes]:
        """Start ``command`` (bwrap and its arguments) in a new session with pipes for its standard
        streams, set up as the class says; raises OSError with the launcher's reason when the set-up
        failed (the launcher has exited then). ``seccomp``: a BPF program that bwrap installs right
        before it execs the command (``--seccomp``, read from a pipe); ``keep_fds``: descriptors the
        command inherits; ``mounts``: the launcher's mount flags (``-t``, ``-y``) and their values,
        mounted in a mount namespace of the run's own (launch.c)."""
        err_r, err_w = os.pipe()  # the launcher writes why it failed; EOF once it execs
        fds = (err_w,) + tuple(fd for fd in (netns_fd, mntns_fd) if fd is not None) + keep_fds
        filter_r = -1
        if seccomp is not None:
            filter_r, filter_w = os.pipe()
            try:
                os.write(filter_w, seccomp)  # 2 KiB: well under a pipe's buffer
            finally:
                os.close(filter_w)
            fds += (filter_r,)
            command = [command[0], "--seccomp", str(filter_r), *command[1:]]
        args = [self.path, "-e", str(err_w)]
        for path in cgroup_procs:
            args += ["-c", path]
        if netns_fd is not None:
            args += ["-n", str(netns_fd)]
        if mntns_fd is not None:
            args += ["-m", str(mntns_fd)]
        for flag, spec in mounts:
            args += [flag, spec]
        for which, (soft, hard) in rlimits:
            args += ["-r", f"{which}:{soft}:{hard}"]
        if uid is not None:
            args += ["-u", str(uid), "-k", str(self.last_cap)]
        try:
            proc = subprocess.Popen(
                args + ["--", *command],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                env={"PATH": "/usr/bin:/bin"},
                pass_fds=fds,
            )
        finally:
            os.close(err_w)
            if filter_r >= 0:
                os.close(filter_r)
        try:
            chunks = []
            while chunk := os.read(err_r, 4096):
                chunks.append(chunk)
        finally:
            os.close(err_r)
        if chunks:
            proc.wait()
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    stream.close()
            raise OSError(b"".join(chunks).decode(errors="replace"))
        return proc


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
        except BaseException as exc:  # noqa: BLE001 - reported to the caller below
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


#: the sandbox's own root (StagingNamespace.root): the mount points bwrap binds onto, the links of /
#: and /dev's device nodes and links, made once; bwrap binds it read-only at / instead of mounting a
#: tmpfs of its own there (which the mount table would show owned by the run's host uid)
ROOT_DIRS: tuple[str, ...] = (
    "usr",
    "proc",
    "tmp",
    "etc",
    "prog",
    "data",
    "gocache",
    "opt/toolchains",
    "opt/supervisor",
    "dev/shm",
    "dev/mqueue",
)
ROOT_LINKS: tuple[tuple[str, str], ...] = (
    ("bin", "usr/bin"),
    ("lib", "usr/lib"),
    ("lib64", "usr/lib64"),
    ("sbin", "usr/sbin"),
    ("dev/fd", "/proc/self/fd"),
    ("dev/stdin", "/proc/self/fd/0"),
    ("dev/stdout", "/proc/self/fd/1"),
    ("dev/stderr", "/proc/self/fd/2"),
    ("dev/core", "/proc/kcore"),
)
#: the device nodes bound from the host into /dev (mount points: empty files in the root)
DEV_NODES: tuple[str, ...] = ("null", "zero", "full", "random", "urandom", "tty")


class StageLayout(NamedTuple):
    """Where, in the staging namespace, bwrap finds what it binds for a run whose mounts are neutral
    (StagingNamespace): the root it binds at /, and the mount points on which the launcher mounts the
    run's own /tmp and /dev/shm (tmpfs, owned by root) and a Go compile's cache (an overlay)."""

    root: Path
    tmp: Path
    shm: Path
    gocache: Path
    #: the empty directory under an overlay's one real lower layer (overlayfs wants two without an upper one)
    empty: Path


class StagingNamespace:
    """A private mount namespace, made once per Sandbox (root only), that every run's bwrap starts in.

    Programs run as an unprivileged host uid, and bubblewrap resolves every bind source as that uid:
    a checkout under ``/root`` or a ``mktemp -d`` directory (mode 0700) cannot be passed through, and
    making the user's directories world-readable is not an answer. So, as root, a short-lived thread
    unshares a mount namespace, mounts a small tmpfs on a root-owned, world-traversable staging
    directory (its real parents: ``/run`` or ``/tmp``) and stages under it what bwrap binds. The
    launcher joins that namespace (``setns``) before it drops privileges and execs bwrap. Nothing is
    visible to other processes on the host, the namespace costs one ``setns`` per run, and the kernel
    frees it (and every tmpfs in it) when the descriptor closes.

    What is staged keeps the host out of the sandbox's mount table (``/proc/self/mountinfo``), which
    prints for each bind mount its path within its file system, and for a tmpfs its owner as a host
    uid. So every tree bwrap binds is a file system of its own, mounted by root at a neutral path:

    - the toolchains: a read-only overlay whose one layer is the real directory, bound at the hidden
      ``.toolchains`` (the table prints ``/ /opt/toolchains ... lowerdir=<stage>/.toolchains:...``);
    - ``work``: a tmpfs for everything a Sandbox makes for its runs (programs' directories, data
      directories, the warm compilers', the private /etc, the supervisor's copy). The host process
      reaches it through a descriptor held open (``work``, ``/proc/self/fd/N``: a path that only this
      process resolves), the table prints ``/cpp-x1y2/prog /prog``;
    - ``root``: the sandbox's /, with its mount points, links and /dev (StageLayout);
    - ``run/tmp``, ``run/shm``, ``run/gocache``: mount points for each run's own tmpfs mounts and
      overlay, which the launcher mounts as root in a mount namespace of the run's own.

    ``base``, the sandbox's base directory, is staged too (under its name, for messages); nothing of
    it is bound into a sandbox any more.
    """

    def __init__(self, *, toolchains: Path | None, base_dir: Path) -> None:
        self.mountpoint: Path = self._mountpoint()
        self._sources: dict[str, Path] = {"base": base_dir}
        self._toolchains = toolchains
        stage = self.mountpoint
        self.layout: StageLayout = StageLayout(
            root=stage / "root",
            tmp=stage / "run" / "tmp",
            shm=stage / "run" / "shm",
            gocache=stage / "run" / "gocache",
            empty=stage / ".empty",
        )
        #: where the real toolchains are reached in the namespace (an overlay's lower layer)
        self.toolchains_lower: Path = stage / ".toolchains"
        self.fd, work_fd = self._create()
        #: the Sandbox's working tmpfs, as this process reaches it (see the class)
        self.work: Path = Path(f"/proc/self/fd/{work_fd}")
        self.work_fd: int = work_fd
        self._sources["work"] = self.work
        if toolchains is not None:
            self._sources["toolchains"] = toolchains

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
        raise OSError("no staging directory for the sandbox: tried " + ", ".join(str(c) for c in STAGE_CANDIDATES))

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
                return str(source) + staged_path[len(prefix) :]
        return staged_path

    def _create(self) -> tuple[int, int]:
        stage = bytes(self.mountpoint)
        base = bytes(self._sources["base"])
        toolchains = bytes(self._toolchains) if self._toolchains is not None else None
        layout = self.layout
        work_fd: list[int] = []

        def setup() -> None:
            # unshare(CLONE_NEWNS) also gives this thread its own filesystem context, so the rest
            # of the process keeps the host's mounts
            _check(_LIBC.unshare(_CLONE_NEWNS))
            _check(_LIBC.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None))
            _check(_LIBC.mount(b"leaderboard-sandbox", stage, b"tmpfs", 0, b"mode=0755,size=1m"))
            _bind(base, stage + b"/base")
            os.mkdir(layout.empty, 0o755)
            if toolchains is not None:
                _bind(toolchains, bytes(self.toolchains_lower))
                target = stage + b"/toolchains"
                os.mkdir(target, 0o755)
                lower = b"lowerdir=" + bytes(self.toolchains_lower) + b":" + bytes(layout.empty)
                if _LIBC.mount(b"toolchains", target, b"overlay", _MS_RDONLY, lower) != 0:
                    _bind(toolchains, target)  # no overlayfs: a plain bind, whose path the table prints
            work = stage + b"/work"
            os.mkdir(work, 0o711)
            _check(_LIBC.mount(b"leaderboard-work", work, b"tmpfs", 0, b"mode=0711"))
            work_fd.append(os.open(work, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC))
            self._make_root(layout)

        fd = _namespace_in_thread("mnt", setup)
        return fd, work_fd[0]

    @staticmethod
    def _make_root(layout: StageLayout) -> None:
        for path in (layout.tmp, layout.shm, layout.gocache):
            path.mkdir(mode=0o755, parents=True)
        for name in ROOT_DIRS:
            (layout.root / name).mkdir(mode=0o755, parents=True)
        for node in DEV_NODES:
            (layout.root / "dev" / node).touch(mode=0o644)
        for name, target in ROOT_LINKS:
            (layout.root / name).symlink_to(target)
        for dirpath, _dirs, _files in os.walk(layout.root):
            os.chmod(dirpath, 0o755)


def _bind(source: bytes, target: bytes) -> None:
    """``source`` bound (recursively) at ``target``, made here."""
    os.makedirs(target, 0o755, exist_ok=True)
    _check(_LIBC.mount(source, target, None, _MS_BIND | _MS_REC, None))
