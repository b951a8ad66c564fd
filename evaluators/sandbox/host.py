"""The sandbox's lower floor (``Host``): what every sandboxed process tree of one Sandbox runs on, and
what its programs, sessions and warm compilers use of it: host uids (uids.py), the base and working
directories (with the private /etc and the supervisor's copy in them), the per-run cgroups, the pooled
network namespaces, the staging mount namespace, bubblewrap's arguments, and the two ways to start a
tree: ``launch`` (a resident process, answered over its pipes) and ``execute`` (one run, waited for).

Nothing here knows about programs, sessions or languages' compiles; those are built on a Host
(programs.py, resident.py, warm_compilers.py) and a Sandbox (sandbox.py) puts them together.
"""

from __future__ import annotations

import atexit
import os
import platform
import resource
import shutil
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from . import confine
from .cgroups import CGroup, sweep_orphaned_cgroups
from .command import build_bwrap_args, tmpfs_bytes
from .exchange import Exchange, raw_result
from .limits import Limits, rlimits
from .linux import Launcher, NetnsPool, StageLayout, StagingNamespace
from .results import REFUSAL, RawResult, SandboxUnavailable
from .uids import LEASE, UidsExhausted

CGROUP_ROOT: Path = Path("/sys/fs/cgroup")
CGROUP_NAME: str = "llm-sandbox"

_ETC_BINDS: tuple[str, ...] = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/java-17-openjdk",
    "/etc/mono",
    "/etc/php",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/ruby",
    "/etc/gemrc",
    "/etc/npmrc",
    "/etc/host.conf",
)

#: the supervisor that runs a program's tests inside one sandbox (see supervisor.py); each Host
#: installs a private copy of it, which resident.Session binds at resident.SUPERVISOR_DIR
SUPERVISOR: Path = Path(__file__).resolve().parent / "supervisor.py"
#: the supervisor and the modules it imports from its own directory (what it does around each test,
#: how it starts a test, the warm Python, its wire protocol)
SUPERVISOR_FILES: tuple[Path, ...] = (
    SUPERVISOR,
    *(SUPERVISOR.parent / name for name in ("confine.py", "spawning.py", "syscalls.py", "warm_python.py", "wire.py")),
)
#: the launcher's name beside them (linux.Launcher's binary: the supervisor starts compiled tests with it)
SUPERVISOR_LAUNCHER: str = "launch"
#: the spawn library's name beside them (spawn.c: the supervisor starts tests with it, through ctypes)
SUPERVISOR_SPAWN_LIBRARY: str = "spawn.so"

#: a bind: (host path, path in the sandbox, writable)
Bind = tuple[str, str, bool]


def _rmtree_at_exit(path: Path) -> None:
    """Remove ``path`` when this process exits (a private per-instance directory)."""
    atexit.register(shutil.rmtree, str(path), True)


class Host:
    """One Sandbox's lower floor, set up once (its base directory, the staging namespace as root, the
    private /etc, the launcher, the supervisor's copy, the seccomp filter, cgroups and the network
    namespaces' pool) and shared by its programs, sessions and warm compilers; cheap to share between
    threads."""

    def __init__(self, base_dir: Path, *, toolchains: Path | None) -> None:
        """``base_dir``: made (mode 0711) if need be; ``toolchains``: the directory bound read-only at
        TOOLCHAIN_DIR, or None (no toolchains installed)."""
        self.is_root: bool = os.geteuid() == 0
        #: host uids given to sandboxed processes by this instance (for leak checks)
        self.uids_used: set[int] = set()
        base_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(base_dir, 0o711)
        root = base_dir.resolve()
        self.base_dir: Path = root
        self.toolchains: Path | None = toolchains
        #: the private mount namespace bwrap starts in (root only: an unprivileged caller runs
        #: programs as itself, and can reach its own directories)
        self._staging: StagingNamespace | None = None
        if self.is_root:
            try:
                self._staging = StagingNamespace(toolchains=toolchains, base_dir=root)
            except OSError:
                self._staging = None  # e.g. no CAP_SYS_ADMIN; the Sandbox's probe says what cannot be reached
        #: where this sandbox makes what it binds into its runs (programs' directories, data, /etc, the
        #: supervisor's copy): the staging namespace's tmpfs, reached through a descriptor (as root),
        #: else the base directory
        self.work_dir: Path = self._staging.work if self._staging is not None else root
        self.etc_dir: Path = self._build_etc(
            self.work_dir, self._staging.work_fd if self._staging is not None else None
        )
        try:
            self.launcher: Launcher = Launcher(root)
        except OSError as exc:
            raise SandboxUnavailable(str(exc) + REFUSAL) from exc
        self.supervisor_dir: Path = self._install_supervisor(
            self.work_dir, Path(self.launcher.path), self.launcher.library
        )
        #: the seccomp filter every sandboxed process runs under (confine.py; None on a machine it does not know)
        self._seccomp: bytes | None = confine.seccomp_program(platform.machine(), trace=confine.TRACE)
        #: what a session's supervisor writes to set its sandbox's pid counter back after each test (a
        #: write from inside a PID namespace sets that namespace's counter; /proc/sys is read-only inside):
        #: None without the filter, which stands in for bwrap's --disable-userns in such a session
        #: (command.build_bwrap_args)
        self.last_pid_fd: int | None = self._open_last_pid() if self._seccomp is not None else None
        self._mem_root: Path | None = None
        self._pids_root: Path | None = None
        self._cpu_root: Path | None = None
        if self.is_root:
            self._setup_cgroups()
        #: pooled empty network namespaces (root only; otherwise bwrap makes one per run)
        self.netns_pool: NetnsPool | None = None
        if self.is_root:
            pool = NetnsPool()
            try:
                pool.release(pool.acquire())
                self.netns_pool = pool
            except OSError:
                pool.close()

    # ------------------------------------------------------------------ setup
    @staticmethod
    def _build_etc(root: Path, keep_fd: int | None) -> Path:
        """The sandbox's whole /etc as one private directory, bound read-only with a single mount.

        It holds the allow-listed host entries (hard links where possible, else copies; taken once
        per Host) plus our own passwd/group/hosts. One bind instead of ~20 per run saves
        bwrap a mount and a /proc/self/mountinfo scan per entry. Owned by root (or the caller) and
        never writable from inside. ``keep_fd``: the descriptor ``root`` is reached through
        (``/proc/self/fd/N``), which ``cp`` inherits.
        """
        etc = Path(tempfile.mkdtemp(prefix="etc-", dir=root))
        _rmtree_at_exit(etc)
        pass_fds = (keep_fd,) if keep_fd is not None else ()
        for src in _ETC_BINDS:
            if not os.path.lexists(src):
                continue
            dst = etc / os.path.basename(src)
            done = (
                keep_fd is None
                and subprocess.run(
                    ["cp", "-a", "-l", src, str(dst)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                ).returncode
                == 0
            )
            if not done:  # a copy (always on the staging namespace's tmpfs, another file system)
                if dst.is_dir() and not dst.is_symlink():
                    shutil.rmtree(dst, ignore_errors=True)
                subprocess.run(
                    ["cp", "-a", src, str(dst)],
                    check=False,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    pass_fds=pass_fds,
                )
        (etc / "passwd").write_text(
            "root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:65534:65534:sandbox:/tmp:/usr/sbin/nologin\n"
        )
        (etc / "group").write_text("root:x:0:\nsandbox:x:65534:\n")
        (etc / "hosts").write_text("127.0.0.1 localhost\n")
        for name in ("passwd", "group", "hosts"):
            os.chmod(etc / name, 0o644)
        os.chmod(etc, 0o755)
        return etc

    @staticmethod
    def _install_supervisor(root: Path, launcher: Path, library: str | None) -> Path:
        """A private, read-only copy of supervisor.py (and the modules beside it, SUPERVISOR_FILES, the spawn library it
        starts tests with, as ``spawn.so``, and the launcher, as ``launch``, it falls back on without the
        library) under the sandbox's working directory, which bwrap's uid can reach wherever the checkout
        is (it is staged; the checkout may not be)."""
        target = Path(tempfile.mkdtemp(prefix="supervisor-", dir=root))
        for source in SUPERVISOR_FILES:
            shutil.copyfile(source, target / source.name)
            os.chmod(target / source.name, 0o444)
        shutil.copyfile(launcher, target / SUPERVISOR_LAUNCHER)
        os.chmod(target / SUPERVISOR_LAUNCHER, 0o555)
        if library is not None:
            shutil.copyfile(library, target / SUPERVISOR_SPAWN_LIBRARY)
            os.chmod(target / SUPERVISOR_SPAWN_LIBRARY, 0o555)
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
            self._cpu_root = None  # CPU time then comes from bwrap's rusage (see exchange.raw_result)
        sweep_orphaned_cgroups((mem, pids) + ((cpu,) if self._cpu_root is not None else ()))

    @staticmethod
    def _open_last_pid() -> int | None:
        try:
            return os.open("/proc/sys/kernel/ns_last_pid", os.O_WRONLY | os.O_CLOEXEC)
        except OSError:
            return None

    @property
    def uses_cgroups(self) -> bool:
        return self._mem_root is not None

    @property
    def pooled_netns(self) -> bool:
        """True when runs join pooled empty network namespaces instead of bwrap --unshare-net."""
        return self.netns_pool is not None

    def close(self) -> None:
        """Close the pooled network namespaces; nothing is started on this Host afterwards."""
        if self.netns_pool is not None:
            self.netns_pool.close()
            self.netns_pool = None

    # ------------------------------------------------------------------ paths, uids, cgroups
    @property
    def layout(self) -> StageLayout | None:
        """Where the staged mounts are (linux.StageLayout), or None when runs are not staged."""
        return self._staging.layout if self._staging is not None else None

    def source(self, host_path: Path) -> str:
        """The path bwrap binds ``host_path`` from: its staged twin when there is one (root)."""
        staged = self._staging.staged(host_path) if self._staging is not None else None
        return str(staged if staged is not None else host_path)

    def host_path(self, source: str) -> str:
        """The inverse of ``source``, for messages that name a path the user can act on."""
        return self._staging.host(source) if self._staging is not None else source

    def gocache_overlay(self, upper: Path, work: Path, dirs: Path) -> tuple[str, str] | None:
        """The overlay (mount point, options) that gives a Go compile the warm build cache under ``dirs``
        (its directories, writable: gocache.directory_layer) with its writes going to ``upper`` (``work``:
        overlayfs's own empty directory beside it, on the same file system), bound at /gocache from
        ``layout.gocache``; None when runs are not staged or no warm cache is installed."""
        if self._staging is None or self.toolchains is None or not (self.toolchains / "gocache").is_dir():
            return None
        lower = f"{self.source(dirs)}:{self._staging.toolchains_lower}/gocache"
        return (
            str(self._staging.layout.gocache),
            f"lowerdir={lower},upperdir={self.source(upper)},workdir={self.source(work)}",
        )

    def next_uid(self, *, hold: bool = False) -> int:
        """A host uid for one process tree that no other live run on the machine has (see uids.py),
        recorded in ``uids_used``; ``hold``: a resident's, kept from later runs until ``release_uid``."""
        try:
            uid = LEASE.take(hold=hold)
        except (UidsExhausted, OSError) as exc:
            raise SandboxUnavailable(f"no host uid for a sandboxed run: {exc}" + REFUSAL) from exc
        self.uids_used.add(uid)
        return uid

    @staticmethod
    def release_uid(uid: int) -> None:
        """A resident's uid, its processes gone, may be handed out again."""
        LEASE.release(uid)

    def new_cgroup(self, limits: Limits) -> CGroup | None:
        """A new per-run cgroup with ``limits`` (memory, processes), or None where cgroups are not used."""
        if self._mem_root is not None and self._pids_root is not None:
            return CGroup(self._mem_root, self._pids_root, self._cpu_root, limits)
        return None

    # ------------------------------------------------------------------ starting a process tree
    def bwrap_args(
        self,
        *,
        prog_dir: Path | None,
        writable_prog: bool,
        env: dict[str, str],
        limits: Limits,
        extra_binds: tuple[Bind, ...],
        cwd: str,
        own_netns: bool = True,
        supervisor: bool = False,
    ) -> list[str]:
        """bubblewrap's arguments for one process tree on this host (see command.build_bwrap_args)."""
        return build_bwrap_args(
            source=self.source,
            etc_dir=self.etc_dir,
            toolchains=self.toolchains,
            prog_dir=prog_dir,
            writable_prog=writable_prog,
            env=env,
            limits=limits,
            extra_binds=extra_binds,
            cwd=cwd,
            own_netns=own_netns,
            supervisor=supervisor,
            reset_pids=supervisor and self.last_pid_fd is not None,
            layout=self.layout,
        )

    def launch(
        self,
        command: list[str],
        limits: Limits,
        *,
        cgroup: CGroup | None,
        netns: int | None,
        uid: int,
        cpu: bool = True,
        supervisor: bool = False,
        overlays: tuple[tuple[str, str], ...] = (),
    ) -> subprocess.Popen[bytes]:
        """Start ``command`` (bwrap and its arguments) without forking this process (linux.Launcher): in
        ``cgroup``, ``netns`` and the staging namespace, with the rlimits of ``limits`` (CPU time only if
        ``cpu``), as ``uid`` (as root), under the seccomp filter (confine.py) that bwrap installs, but
        for a session's ``supervisor``, which installs it itself and inherits ``last_pid_fd``; raises
        OSError when the set-up failed. When runs are staged, the launcher also mounts the run's /tmp
        and /dev/shm (and ``overlays``) as root in a mount namespace of the run's own (launch.c)."""
        mounts: tuple[tuple[str, str], ...] = ()
        if self._staging is not None:
            size = tmpfs_bytes(limits)
            layout = self._staging.layout
            mounts = (
                ("-t", f"{layout.tmp}:{size}"),
                ("-t", f"{layout.shm}:{size}"),
                *(("-y", f"{target}:{options}") for target, options in overlays),
            )
        rl = tuple(
            (getattr(resource, name), (soft, hard))
            for name, soft, hard in rlimits(limits, with_cgroup=cgroup is not None, as_root=self.is_root, cpu=cpu)
        )
        return self.launcher.popen(
            command,
            netns_fd=netns,
            mntns_fd=self._staging.fd if self._staging is not None else None,
            cgroup_procs=cgroup.procs_files if cgroup is not None else (),
            rlimits=rl,
            uid=uid if self.is_root else None,
            seccomp=None if supervisor else self._seccomp,
            keep_fds=(self.last_pid_fd,) if supervisor and self.last_pid_fd is not None else (),
            mounts=mounts,
        )

    def execute(
        self,
        cmd: list[str],
        *,
        limits: Limits,
        prog_dir: Path | None,
        writable_prog: bool,
        stdin: bytes,
        env: dict[str, str],
        extra_binds: tuple[Bind, ...],
        cwd: str = "/tmp",
        uid_host: int | None = None,
        overlays: tuple[tuple[str, str], ...] = (),
    ) -> RawResult:
        """Run ``cmd`` once as a fresh process tree (its own uid, cgroup and network namespace) with
        ``prog_dir`` at PROG_DIR, ``stdin`` as its input and ``env`` over BASE_ENV, and wait for it;
        ``overlays``: (mount point, options) the launcher mounts for it (``gocache_overlay``)."""
        uid = uid_host if uid_host is not None else self.next_uid()
        cgroup: CGroup | None = None
        netns: int | None = self.netns_pool.acquire() if self.netns_pool is not None else None
        try:
            cgroup = self.new_cgroup(limits)
            argv = self.bwrap_args(
                prog_dir=prog_dir,
                writable_prog=writable_prog,
                env=env,
                limits=limits,
                extra_binds=extra_binds,
                cwd=cwd,
                own_netns=netns is None,
            )
            return self._spawn(
                [*argv, "--", *cmd], limits, stdin, uid=uid, cgroup=cgroup, netns=netns, overlays=overlays
            )
        except BaseException:
            if netns is not None and self.netns_pool is not None:
                self.netns_pool.discard(netns)  # unknown state: never hand it to another run
                netns = None
            raise
        finally:
            if cgroup is not None:
                cgroup.destroy()
            if netns is not None and self.netns_pool is not None:
                self.netns_pool.release(netns)  # the run's whole process tree is dead by now

    def _spawn(
        self,
        argv: list[str],
        limits: Limits,
        stdin: bytes,
        *,
        uid: int,
        cgroup: CGroup | None,
        netns: int | None,
        overlays: tuple[tuple[str, str], ...],
    ) -> RawResult:
        """Start ``argv`` (bwrap, its arguments and the command), feed it and read it back
        (exchange.Exchange), and say what happened."""
        start = time.monotonic()
        # the launcher joins the netns and closes it before exec: neither bwrap nor the program inherits it
        proc = self.launch(argv, limits, cgroup=cgroup, netns=netns, uid=uid, overlays=overlays)
        done = Exchange(proc, cgroup, limits, stdin, start).run()
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(done.status)
        return raw_result(done, cgroup, wall)
