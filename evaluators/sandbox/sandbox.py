"""Bubblewrap sandbox: compile once, run each test as a fresh, isolated, resource-limited process.

Isolation: new user, PID, mount, IPC, UTS and cgroup namespaces per run (bwrap) and an empty
network namespace (only a downed ``lo``) that no other run uses at the same time: as root, taken
from a per-Sandbox pool (creating one per run is slow on a loaded host), otherwise bwrap's own
``--unshare-net``. A new session, ``--die-with-parent``, no new privileges, a cleared environment,
a minimal read-only filesystem (``/usr``, an allow-listed private ``/etc``, the project
toolchains), a private tmpfs for ``/tmp``, and a distinct unprivileged host uid per run with no
supplementary groups and empty capability sets including the bounding set (set up by the launcher,
linux.Launcher, before it execs bwrap: the scoring process is never forked), so sandboxed code can neither see nor
signal host processes. Limits: wall time (parent timer, kills the whole tree), CPU time (RLIMIT_CPU), memory and process
count (a per-run cgroup v1 when writable; RLIMIT_AS / RLIMIT_NPROC fallback otherwise), file size (RLIMIT_FSIZE plus a
size-capped tmpfs) and output size (capped reading in the parent).

``Sandbox`` sets this up once per instance and runs one process tree at a time per call (``execute``);
programs (evaluators.sandbox.programs) and resident processes (evaluators.sandbox.resident) are built on it.
"""

from __future__ import annotations

import atexit
import os
import platform
import re
import resource
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

from . import confine
from .command import BWRAP, TOOLCHAINS, build_bwrap_args, tmpfs_bytes
from .languages import LANGUAGES, TOOLCHAIN_DIR, Language
from .limits import DEFAULT_COMPILE_LIMITS, STDERR_CAP, Limits, rlimits
from .linux import CGroup, Launcher, NetnsPool, StageLayout, StagingNamespace, sweep_orphaned_cgroups
from .programs import DataDir, Program
from .resident import SessionPool
from .results import REFUSAL, RawResult, SandboxUnavailable, decode_output
from .uids import LEASE, UidsExhausted
from .warm_compilers import WarmCompilers

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

#: the supervisor that runs a program's tests inside one sandbox (see supervisor.py); each Sandbox
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

#: bwrap's message when a bind source cannot be opened: the path and the system's reason
_BWRAP_UNREACHABLE = re.compile(r"Can't find source path (.+?): (.+)$", re.MULTILINE)
#: fragments of bwrap's messages when the kernel refuses it namespaces
_BWRAP_USERNS_MARKERS: tuple[str, ...] = (
    "No permissions to create new namespace",
    "Creating new namespace failed",
    "setting up uid map",
    "unprivileged_userns_clone",
    "max_user_namespaces",
    "Operation not permitted",
)


#: exit status of the probe when the sandbox's uid cannot read the toolchains
_UNREADABLE = 97


def _rmtree_at_exit(path: Path) -> None:
    """Remove ``path`` when this process exits (a private per-instance directory)."""
    atexit.register(shutil.rmtree, str(path), True)


class Sandbox:
    """Factory for sandboxed programs; cheap to share between threads."""

    def __init__(
        self, *, base_dir: Path | None = None, warm_compilers: bool | None = None, reuse_sessions: bool = False
    ) -> None:
        """``warm_compilers``: keep the Kotlin and Scala compilers loaded between compiles (default: on
        unless LEADERBOARD_WARM_COMPILERS=0; off anyway until evaluators.sandbox.warm built the server).
        ``reuse_sessions``: a program's session, its tests done, serves the next program of the same
        language and limits (resident.SessionPool) instead of ending."""
        if not os.access(BWRAP, os.X_OK):
            raise SandboxUnavailable(
                f"{BWRAP} is missing: install the Debian package bubblewrap (scripts/install-toolchains)" + REFUSAL
            )
        self.is_root: bool = os.geteuid() == 0
        #: host uids given to sandboxed processes by this instance (for leak checks)
        self.uids_used: set[int] = set()
        root = Path(base_dir) if base_dir is not None else Path(tempfile.gettempdir()) / "llm-sandbox"
        root.mkdir(parents=True, exist_ok=True)
        os.chmod(root, 0o711)
        root = root.resolve()
        self.base_dir: Path = root
        self._toolchains: Path | None = TOOLCHAINS if TOOLCHAINS.is_dir() else None
        #: the private mount namespace bwrap starts in (root only: an unprivileged caller runs
        #: programs as itself, and can reach its own directories)
        self._staging: StagingNamespace | None = None
        if self.is_root:
            try:
                self._staging = StagingNamespace(toolchains=self._toolchains, base_dir=root)
            except OSError:
                self._staging = None  # e.g. no CAP_SYS_ADMIN; the probe says what cannot be reached
        #: where this sandbox makes what it binds into its runs (programs' directories, data, /etc, the
        #: supervisor's copy): the staging namespace's tmpfs, reached through a descriptor (as root),
        #: else the base directory
        self.work_dir: Path = self._staging.work if self._staging is not None else root
        self._etc_dir: Path = self._build_etc(
            self.work_dir, self._staging.work_fd if self._staging is not None else None
        )
        try:
            self._launcher: Launcher = Launcher(root)
        except OSError as exc:
            raise SandboxUnavailable(str(exc) + REFUSAL) from exc
        self.supervisor_dir: Path = self._install_supervisor(
            self.work_dir, Path(self._launcher.path), self._launcher.library
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
        self._probe()
        #: idle sessions waiting for the next program (reuse_sessions), else None
        self.session_pool: SessionPool | None = SessionPool() if reuse_sessions else None
        if warm_compilers is None:
            warm_compilers = os.environ.get("LEADERBOARD_WARM_COMPILERS", "1") != "0"
        self.warm_compilers: WarmCompilers | None = (
            WarmCompilers(self) if warm_compilers and WarmCompilers.ready() else None
        )

    # ------------------------------------------------------------------ setup
    @staticmethod
    def _build_etc(root: Path, keep_fd: int | None) -> Path:
        """The sandbox's whole /etc as one private directory, bound read-only with a single mount.

        It holds the allow-listed host entries (hard links where possible, else copies; taken once
        per Sandbox instance) plus our own passwd/group/hosts. One bind instead of ~20 per run saves
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
            self._cpu_root = None  # CPU time then comes from bwrap's rusage (see _spawn)
        sweep_orphaned_cgroups((mem, pids) + ((cpu,) if self._cpu_root is not None else ()))

    @property
    def uses_cgroups(self) -> bool:
        return self._mem_root is not None

    @property
    def pooled_netns(self) -> bool:
        """True when runs join pooled empty network namespaces instead of bwrap --unshare-net."""
        return self.netns_pool is not None

    def close(self) -> None:
        """End what this sandbox keeps between programs: its idle warm compilers (each with its cgroup) and
        its pooled network namespaces. Programs and sessions close themselves; a sandbox is not used after
        this. A process that ends without it leaves empty cgroups, which the next Sandbox removes
        (``linux.sweep_orphaned_cgroups``)."""
        if self.warm_compilers is not None:
            self.warm_compilers.close()
        if self.session_pool is not None:
            self.session_pool.close()
        if self.netns_pool is not None:
            self.netns_pool.close()
            self.netns_pool = None

    def _probe(self) -> None:
        """Start one sandbox, which also checks that its uid can enter and read the toolchains."""
        cmd = ["/bin/true"]
        if self._toolchains is not None:
            cmd = ["/bin/sh", "-c", f"test -r {TOOLCHAIN_DIR} -a -x {TOOLCHAIN_DIR} || exit {_UNREADABLE}"]
        try:
            raw = self.execute(
                cmd,
                limits=Limits(wall_seconds=20.0),
                prog_dir=None,
                writable_prog=False,
                stdin=b"",
                env={},
                extra_binds=(),
            )
        except (OSError, subprocess.SubprocessError) as exc:
            raise SandboxUnavailable(f"cannot start bubblewrap: {exc}") from exc
        if raw.exit_code == _UNREADABLE and self._toolchains is not None:
            raise SandboxUnavailable(self._unreachable(str(self._toolchains), "Permission denied"))
        if raw.exit_code != 0:
            raise SandboxUnavailable(self._diagnose(raw.exit_code, decode_output(raw.stderr).strip()))

    def _unreachable(self, path: str, reason: str) -> str:
        who = "the unprivileged uid that runs sandboxed programs" if self.is_root else "this user"
        return (
            f"the sandbox cannot reach {path} ({reason}): {who} needs read and search permission "
            f"on it and on its contents. Make the toolchains readable with `chmod -R a+rX {path}` "
            "(scripts/install-toolchains does this)" + REFUSAL
        )

    def _diagnose(self, exit_code: int | None, stderr: str) -> str:
        """Why bubblewrap refused to start, in terms of the real cause and its fix."""
        unreachable = _BWRAP_UNREACHABLE.search(stderr)
        if unreachable:
            return self._unreachable(self._host_path(unreachable.group(1)), unreachable.group(2))
        if any(marker in stderr for marker in _BWRAP_USERNS_MARKERS):
            return (
                f"bubblewrap cannot create its namespaces here (exit {exit_code}): {stderr[:500]}. "
                "Unprivileged user namespaces must be enabled (sysctl "
                "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces>0), or the "
                "worker run as root" + REFUSAL
            )
        return f"bubblewrap failed to start (exit {exit_code}): {stderr[:500] or 'no message'}" + REFUSAL

    def _source(self, host_path: Path) -> str:
        """The path bwrap binds ``host_path`` from: its staged twin when there is one (root)."""
        staged = self._staging.staged(host_path) if self._staging is not None else None
        return str(staged if staged is not None else host_path)

    def _host_path(self, source: str) -> str:
        """The inverse of _source, for messages that name a path the user can act on."""
        return self._staging.host(source) if self._staging is not None else source

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

    # ------------------------------------------------------------------ public
    def program(
        self,
        language: str | Language,
        source: str,
        *,
        compile_limits: Limits | None = None,
        run_limits: Limits | None = None,
    ) -> Program:
        """A program in one of the twelve LANGUAGES (by key) or in another ``Language`` (the analysis
        Python of evaluators.sandbox.analysis). ``run_limits``: its session's limits, when known (a
        Python program's syntax check then runs in that session: see Program)."""
        if isinstance(language, str):
            if language not in LANGUAGES:
                raise ValueError(f"unknown language {language!r}; expected one of {sorted(LANGUAGES)}")
            language = LANGUAGES[language]
        return Program(self, language, source, compile_limits or DEFAULT_COMPILE_LIMITS, run_limits)

    def data_dir(self, source: Path) -> DataDir:
        """A read-only copy of the regular files under ``source`` (a dataset's CSV files), which
        ``Program.run(..., data=)`` mounts at DATA_DIR. A copy, not a bind of ``source`` itself: the
        sandbox's uid reaches only its own base directory, and nothing a program does can reach
        the original."""
        return DataDir(self, source)

    # ------------------------------------------------------------------ execution
    def bwrap_args(
        self,
        *,
        prog_dir: Path | None,
        writable_prog: bool,
        env: dict[str, str],
        limits: Limits,
        extra_binds: tuple[tuple[str, str, bool], ...],
        cwd: str,
        own_netns: bool = True,
        supervisor: bool = False,
    ) -> list[str]:
        """bubblewrap's arguments for one process tree of this sandbox (see command.build_bwrap_args)."""
        return build_bwrap_args(
            source=self._source,
            etc_dir=self._etc_dir,
            toolchains=self._toolchains,
            prog_dir=prog_dir,
            writable_prog=writable_prog,
            env=env,
            limits=limits,
            extra_binds=extra_binds,
            cwd=cwd,
            own_netns=own_netns,
            supervisor=supervisor,
            reset_pids=supervisor and self.last_pid_fd is not None,
            layout=self._staging.layout if self._staging is not None else None,
        )

    @property
    def layout(self) -> StageLayout | None:
        """Where the staged mounts are (linux.StageLayout), or None when runs are not staged."""
        return self._staging.layout if self._staging is not None else None

    def gocache_overlay(self, upper: Path, work: Path, dirs: Path) -> tuple[str, str] | None:
        """The overlay (mount point, options) that gives a Go compile the warm build cache under ``dirs``
        (its directories, writable: gocache.directory_layer) with its writes going to ``upper`` (``work``:
        overlayfs's own empty directory beside it, on the same file system), bound at /gocache from
        ``layout.gocache``; None when runs are not staged or no warm cache is installed."""
        if self._staging is None or self._toolchains is None or not (self._toolchains / "gocache").is_dir():
            return None
        lower = f"{self._source(dirs)}:{self._staging.toolchains_lower}/gocache"
        return (
            str(self._staging.layout.gocache),
            f"lowerdir={lower},upperdir={self._source(upper)},workdir={self._source(work)}",
        )

    @staticmethod
    def _open_last_pid() -> int | None:
        try:
            return os.open("/proc/sys/kernel/ns_last_pid", os.O_WRONLY | os.O_CLOEXEC)
        except OSError:
            return None

    def new_cgroup(self, limits: Limits) -> CGroup | None:
        """A new per-run cgroup with ``limits`` (memory, processes), or None where cgroups are not used."""
        if self._mem_root is not None and self._pids_root is not None:
            return CGroup(self._mem_root, self._pids_root, self._cpu_root, limits)
        return None

    def execute(
        self,
        cmd: list[str],
        *,
        limits: Limits,
        prog_dir: Path | None,
        writable_prog: bool,
        stdin: bytes,
        env: dict[str, str],
        extra_binds: tuple[tuple[str, str, bool], ...],
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
            return self._spawn(
                cmd,
                limits=limits,
                prog_dir=prog_dir,
                writable_prog=writable_prog,
                stdin=stdin,
                env=env,
                extra_binds=extra_binds,
                cwd=cwd,
                uid=uid,
                cgroup=cgroup,
                netns=netns,
                overlays=overlays,
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
        return self._launcher.popen(
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

    def _spawn(
        self,
        cmd: list[str],
        *,
        limits: Limits,
        prog_dir: Path | None,
        writable_prog: bool,
        stdin: bytes,
        env: dict[str, str],
        extra_binds: tuple[tuple[str, str, bool], ...],
        cwd: str,
        uid: int,
        cgroup: CGroup | None,
        netns: int | None,
        overlays: tuple[tuple[str, str], ...] = (),
    ) -> RawResult:
        """Start ``cmd`` in its sandbox, feed it and read it back (``_Exchange``), and say what happened."""
        argv = (
            self.bwrap_args(
                prog_dir=prog_dir,
                writable_prog=writable_prog,
                env=env,
                limits=limits,
                extra_binds=extra_binds,
                cwd=cwd,
                own_netns=netns is None,
            )
            + ["--"]
            + cmd
        )
        start = time.monotonic()
        # the launcher joins the netns and closes it before exec: neither bwrap nor the program inherits it
        proc = self.launch(argv, limits, cgroup=cgroup, netns=netns, uid=uid, overlays=overlays)
        done = _Exchange(proc, cgroup, limits, stdin, start).run()
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(done.status)
        return _raw_result(done, cgroup, wall)


class _Exchange:
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

    def run(self) -> _Exchange:
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


def _raw_result(done: _Exchange, cgroup: CGroup | None, wall: float) -> RawResult:
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
