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

``Sandbox`` puts it together once per instance: its ``Host`` (evaluators.sandbox.host: uids, directories,
cgroups, namespaces, and ``execute``, which runs one process tree at a time per call), a probe that says
why bubblewrap cannot start, and what it keeps between programs (the warm compilers, the idle sessions);
programs (evaluators.sandbox.programs) and resident processes (evaluators.sandbox.resident) are built on
the Host alone.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

from .command import BWRAP, TOOLCHAINS
from .host import CGROUP_NAME, CGROUP_ROOT, Host
from .languages import LANGUAGES, TOOLCHAIN_DIR, Language
from .limits import DEFAULT_COMPILE_LIMITS, Limits
from .programs import DataDir, Program
from .resident import SessionPool
from .results import REFUSAL, SandboxUnavailable, decode_output
from .warm_compilers import WarmCompilers

__all__ = ["CGROUP_NAME", "CGROUP_ROOT", "Sandbox"]

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
        root = Path(base_dir) if base_dir is not None else Path(tempfile.gettempdir()) / "llm-sandbox"
        #: what the programs, sessions and warm compilers run on (host.py)
        self.host: Host = Host(root, toolchains=TOOLCHAINS if TOOLCHAINS.is_dir() else None)
        #: one process tree, run and waited for (Host.execute)
        self.execute = self.host.execute
        self._probe()
        #: idle sessions waiting for the next program (reuse_sessions), else None
        self.session_pool: SessionPool | None = SessionPool() if reuse_sessions else None
        if warm_compilers is None:
            warm_compilers = os.environ.get("LEADERBOARD_WARM_COMPILERS", "1") != "0"
        self.warm_compilers: WarmCompilers | None = (
            WarmCompilers(self.host) if warm_compilers and WarmCompilers.ready() else None
        )

    # ------------------------------------------------------------------ the host's, named here too
    @property
    def is_root(self) -> bool:
        return self.host.is_root

    @property
    def base_dir(self) -> Path:
        return self.host.base_dir

    @property
    def work_dir(self) -> Path:
        return self.host.work_dir

    @property
    def uids_used(self) -> set[int]:
        """Host uids given to sandboxed processes by this instance (for leak checks)."""
        return self.host.uids_used

    @property
    def uses_cgroups(self) -> bool:
        return self.host.uses_cgroups

    @property
    def pooled_netns(self) -> bool:
        """True when runs join pooled empty network namespaces instead of bwrap --unshare-net."""
        return self.host.pooled_netns

    def close(self) -> None:
        """End what this sandbox keeps between programs: its idle warm compilers (each with its cgroup) and
        its pooled network namespaces. Programs and sessions close themselves; a sandbox is not used after
        this. A process that ends without it leaves empty cgroups, which the next Sandbox removes
        (``cgroups.sweep_orphaned_cgroups``)."""
        if self.warm_compilers is not None:
            self.warm_compilers.close()
        if self.session_pool is not None:
            self.session_pool.close()
        self.host.close()

    def _probe(self) -> None:
        """Start one sandbox, which also checks that its uid can enter and read the toolchains."""
        cmd = ["/bin/true"]
        if self.host.toolchains is not None:
            cmd = ["/bin/sh", "-c", f"test -r {TOOLCHAIN_DIR} -a -x {TOOLCHAIN_DIR} || exit {_UNREADABLE}"]
        try:
            raw = self.host.execute(
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
        if raw.exit_code == _UNREADABLE and self.host.toolchains is not None:
            raise SandboxUnavailable(self._unreachable(str(self.host.toolchains), "Permission denied"))
        if raw.exit_code != 0:
            raise SandboxUnavailable(self._diagnose(raw.exit_code, decode_output(raw.stderr).strip()))

    def _unreachable(self, path: str, reason: str) -> str:
        who = "the unprivileged uid that runs sandboxed programs" if self.host.is_root else "this user"
        return (
            f"the sandbox cannot reach {path} ({reason}): {who} needs read and search permission "
            f"on it and on its contents. Make the toolchains readable with `chmod -R a+rX {path}` "
            "(scripts/install-toolchains does this)" + REFUSAL
        )

    def _diagnose(self, exit_code: int | None, stderr: str) -> str:
        """Why bubblewrap refused to start, in terms of the real cause and its fix."""
        unreachable = _BWRAP_UNREACHABLE.search(stderr)
        if unreachable:
            return self._unreachable(self.host.host_path(unreachable.group(1)), unreachable.group(2))
        if any(marker in stderr for marker in _BWRAP_USERNS_MARKERS):
            return (
                f"bubblewrap cannot create its namespaces here (exit {exit_code}): {stderr[:500]}. "
                "Unprivileged user namespaces must be enabled (sysctl "
                "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces>0), or the "
                "worker run as root" + REFUSAL
            )
        return f"bubblewrap failed to start (exit {exit_code}): {stderr[:500] or 'no message'}" + REFUSAL

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
        return Program(
            self.host,
            language,
            source,
            compile_limits or DEFAULT_COMPILE_LIMITS,
            run_limits,
            warm_compilers=self.warm_compilers,
            session_pool=self.session_pool,
        )

    def data_dir(self, source: Path) -> DataDir:
        """A read-only copy of the regular files under ``source`` (a dataset's CSV files), which
        ``Program.run(..., data=)`` mounts at DATA_DIR. A copy, not a bind of ``source`` itself: the
        sandbox's uid reaches only its own base directory, and nothing a program does can reach
        the original."""
        return DataDir(self.host, source)
