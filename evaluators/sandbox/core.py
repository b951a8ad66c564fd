"""Bubblewrap sandbox: compile once, run each test as a fresh, isolated, resource-limited process.

Isolation: ``bwrap --unshare-all`` (user, PID, mount, network, IPC, UTS, cgroup namespaces), a new
session, ``--die-with-parent``, no new privileges, a cleared environment, a minimal read-only
filesystem (``/usr``, a few ``/etc`` entries, the project toolchains), a private tmpfs for ``/tmp``,
and a distinct unprivileged host uid per run (via ``setpriv``), so sandboxed code can neither see nor
signal host processes. Limits: wall time (parent timer, kills the whole tree), CPU time
(RLIMIT_CPU), memory and process count (a per-run cgroup v1 when writable; RLIMIT_AS / RLIMIT_NPROC
fallback otherwise), file size (RLIMIT_FSIZE plus a size-capped tmpfs) and output size (capped
reading in the parent).
"""

from __future__ import annotations

import itertools
import os
import secrets
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

from .languages import LANGUAGES, PROG_DIR, TOOLCHAIN_DIR, Language

REPO_ROOT: Path = Path(__file__).resolve().parents[2]
TOOLCHAINS: Path = REPO_ROOT / ".toolchains"
STDERR_CAP: int = 64 * 1024
COMPILE_OUTPUT_CAP: int = 64 * 1024
CGROUP_ROOT: Path = Path("/sys/fs/cgroup")
CGROUP_NAME: str = "llm-sandbox"
UID_BASE: int = 200_000
UID_POOL: int = 50_000
BWRAP: str = "/usr/bin/bwrap"
SETPRIV: str = "/usr/bin/setpriv"
PRLIMIT: str = "/usr/bin/prlimit"

_ETC_BINDS: tuple[str, ...] = (
    "/etc/alternatives", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
    "/etc/java-17-openjdk", "/etc/mono", "/etc/php", "/etc/ssl", "/etc/ca-certificates",
    "/etc/localtime", "/etc/nsswitch.conf", "/etc/ruby", "/etc/gemrc", "/etc/scala",
    "/etc/kotlin", "/etc/npmrc", "/etc/host.conf",
)


class SandboxUnavailable(RuntimeError):
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
    """A per-run cgroup v1 pair (memory + pids)."""

    def __init__(self, mem_root: Path, pids_root: Path, limits: Limits) -> None:
        name = "r" + uuid.uuid4().hex[:16]
        self.mem = mem_root / name
        self.pids = pids_root / name
        self.mem.mkdir()
        try:
            self.pids.mkdir()
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

    def kill_all(self) -> None:
        for _ in range(50):
            pids = _read_pids(self.pids / "cgroup.procs") | _read_pids(self.mem / "cgroup.procs")
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.01)

    def destroy(self) -> None:
        self.kill_all()
        for path in (self.mem, self.pids):
            for _ in range(100):
                try:
                    path.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    time.sleep(0.01)


def _usage_near_limit(mem: Path) -> bool:
    limit = int((mem / "memory.limit_in_bytes").read_text())
    peak = int((mem / "memory.max_usage_in_bytes").read_text())
    return peak >= limit * 0.95


def _read_pids(path: Path) -> set[int]:
    try:
        return {int(x) for x in path.read_text().split()}
    except (OSError, ValueError):
        return set()


def _write(path: Path, value: str, *, ignore_errors: bool = False) -> None:
    try:
        path.write_text(value)
    except OSError:
        if not ignore_errors:
            raise


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


class Sandbox:
    """Factory for sandboxed programs; cheap to share between threads."""

    # random start: concurrent worker processes rarely share a host uid
    _uid_counter = itertools.count(secrets.randbelow(UID_POOL))
    _uid_lock = threading.Lock()

    def __init__(self, *, base_dir: Path | None = None) -> None:
        for tool in (BWRAP, SETPRIV, PRLIMIT):
            if not os.access(tool, os.X_OK):
                raise SandboxUnavailable(
                    f"{tool} is missing: install the Debian packages bubblewrap and util-linux "
                    "(scripts/install-toolchains); refusing to run untrusted code unsandboxed")
        self.is_root: bool = os.geteuid() == 0
        #: host uids given to sandboxed processes by this instance (for leak checks)
        self.uids_used: set[int] = set()
        root = Path(base_dir) if base_dir is not None else Path(tempfile.gettempdir()) / "llm-sandbox"
        root.mkdir(parents=True, exist_ok=True)
        os.chmod(root, 0o711)
        self.base_dir: Path = root
        self._etc_dir: Path = root / "etc"
        self._etc_dir.mkdir(exist_ok=True)
        (self._etc_dir / "passwd").write_text(
            "root:x:0:0:root:/root:/usr/sbin/nologin\nsandbox:x:65534:65534:sandbox:/tmp:/usr/sbin/nologin\n")
        (self._etc_dir / "group").write_text("root:x:0:\nsandbox:x:65534:\n")
        (self._etc_dir / "hosts").write_text("127.0.0.1 localhost\n")
        for f in self._etc_dir.iterdir():
            os.chmod(f, 0o644)
        os.chmod(self._etc_dir, 0o755)
        self._mem_root: Path | None = None
        self._pids_root: Path | None = None
        if self.is_root:
            self._setup_cgroups()
        self._probe()

    # ------------------------------------------------------------------ setup
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

    @property
    def uses_cgroups(self) -> bool:
        return self._mem_root is not None

    def _probe(self) -> None:
        try:
            raw = self._execute(["/bin/true"], limits=Limits(wall_seconds=20.0), prog_dir=None,
                                writable_prog=False, stdin=b"", env={}, extra_binds=())
        except OSError as exc:
            raise SandboxUnavailable(f"cannot start bubblewrap: {exc}") from exc
        if raw.exit_code != 0:
            raise SandboxUnavailable(
                "bubblewrap cannot create its namespaces here (exit "
                f"{raw.exit_code}): {_decode(raw.stderr).strip()[:500]}. Unprivileged user "
                "namespaces must be enabled (sysctl kernel.unprivileged_userns_clone=1 / "
                "user.max_user_namespaces>0); refusing to run untrusted code unsandboxed")

    def _next_uid(self) -> int:
        with self._uid_lock:
            uid = UID_BASE + next(self._uid_counter) % UID_POOL
            self.uids_used.add(uid)
            return uid

    # ------------------------------------------------------------------ public
    def program(self, language: str, source: str, *, compile_limits: Limits | None = None) -> Program:
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r}; expected one of {sorted(LANGUAGES)}")
        return Program(self, LANGUAGES[language], source, compile_limits or DEFAULT_COMPILE_LIMITS)

    # ------------------------------------------------------------------ execution
    def _bwrap_args(self, *, uid_host: int, prog_dir: Path | None, writable_prog: bool,
                    env: dict[str, str], limits: Limits,
                    extra_binds: tuple[tuple[str, str, bool], ...], cwd: str) -> list[str]:
        tmp_size = max(1, min(limits.file_size_mb * 4, limits.memory_mb)) * 1024 * 1024
        args: list[str] = [
            BWRAP, "--unshare-all", "--die-with-parent", "--new-session",
            "--uid", "65534", "--gid", "65534", "--hostname", "sandbox",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/sbin", "/sbin",
            "--proc", "/proc", "--dev", "/dev",
            "--size", str(tmp_size), "--tmpfs", "/tmp",
        ]
        for path in _ETC_BINDS:
            args += ["--ro-bind-try", path, path]
        for name in ("passwd", "group", "hosts"):
            args += ["--ro-bind", str(self._etc_dir / name), f"/etc/{name}"]
        if TOOLCHAINS.is_dir():
            args += ["--ro-bind", str(TOOLCHAINS), TOOLCHAIN_DIR]
        if prog_dir is not None:
            args += ["--bind" if writable_prog else "--ro-bind", str(prog_dir), PROG_DIR]
        for src, dst, writable in extra_binds:
            args += ["--bind" if writable else "--ro-bind", src, dst]
        args += ["--remount-ro", "/"]  # the sandbox's own root tmpfs: only /tmp (and /prog when compiling) are writable
        path = ":".join([f"{TOOLCHAIN_DIR}/go/bin", f"{TOOLCHAIN_DIR}/rust/bin", "/usr/local/bin",
                         "/usr/bin", "/bin"])
        base_env = {"PATH": path, "HOME": "/tmp", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
                    "TMPDIR": "/tmp", "USER": "sandbox"}
        base_env.update(env)
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
        if self._mem_root is not None and self._pids_root is not None:
            cgroup = _CGroup(self._mem_root, self._pids_root, limits)
        try:
            return self._spawn(cmd, limits=limits, prog_dir=prog_dir, writable_prog=writable_prog,
                               stdin=stdin, env=env, extra_binds=extra_binds, cwd=cwd, uid=uid,
                               cgroup=cgroup)
        finally:
            if cgroup is not None:
                cgroup.destroy()

    def _spawn(self, cmd: list[str], *, limits: Limits, prog_dir: Path | None, writable_prog: bool,
               stdin: bytes, env: dict[str, str], extra_binds: tuple[tuple[str, str, bool], ...],
               cwd: str, uid: int, cgroup: _CGroup | None) -> _Raw:
        cpu = max(1, int(limits.cpu_seconds + 0.999))
        fsize = limits.file_size_mb * 1024 * 1024
        rl = [PRLIMIT, f"--cpu={cpu}:{cpu + 1}", f"--fsize={fsize}", "--core=0",
              "--stack=268435456", "--nofile=1024"]
        if cgroup is None:
            # Fallback without cgroups: address-space and per-uid process limits.
            rl += [f"--as={max(limits.memory_mb, 2048) * 1024 * 1024 * 4}",
                   f"--nproc={limits.processes}"]
        prefix: list[str] = []
        if self.is_root:
            rl += [f"--nproc={max(limits.processes * 2, 256)}"] if cgroup is not None else []
            prefix = [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                      "--inh-caps=-all", "--bounding-set=-all"]
        argv = rl + ["--"] + prefix + self._bwrap_args(
            uid_host=uid, prog_dir=prog_dir, writable_prog=writable_prog, env=env, limits=limits,
            extra_binds=extra_binds, cwd=cwd) + ["--"] + cmd
        if cgroup is not None:
            argv = ["/bin/sh", "-c",
                    f'echo $$ > "{cgroup.mem}/cgroup.procs" && echo $$ > "{cgroup.pids}/cgroup.procs"'
                    ' && exec "$@"', "sandbox-launch"] + argv
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True, env={"PATH": "/usr/bin:/bin"})
        state = {"timed_out": False, "output_exceeded": False}
        lock = threading.Lock()

        def kill(reason: str) -> None:
            with lock:
                if reason:
                    state[reason] = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            if cgroup is not None:
                cgroup.kill_all()

        out_buf: list[bytes] = []
        err_buf: list[bytes] = []

        def reader(stream: IO[bytes], buf: list[bytes], cap: int, kill_over: bool) -> None:
            total = 0
            try:
                while True:
                    chunk = stream.read1(65536)  # type: ignore[attr-defined]
                    if not chunk:
                        break
                    if total < cap:
                        buf.append(chunk[: cap - total])
                    total += len(chunk)
                    if total > cap and kill_over:
                        kill("output_exceeded")
                        break
            except (OSError, ValueError):
                pass

        def writer() -> None:
            try:
                assert proc.stdin is not None
                proc.stdin.write(stdin)
            except (BrokenPipeError, OSError, ValueError):
                pass
            finally:
                try:
                    assert proc.stdin is not None
                    proc.stdin.close()
                except OSError:
                    pass

        assert proc.stdout is not None and proc.stderr is not None
        threads = [
            threading.Thread(target=reader, args=(proc.stdout, out_buf, limits.output_bytes, True), daemon=True),
            threading.Thread(target=reader, args=(proc.stderr, err_buf, STDERR_CAP, False), daemon=True),
        ]
        if stdin:
            threads.append(threading.Thread(target=writer, daemon=True))
        else:
            proc.stdin.close()  # type: ignore[union-attr]
        for t in threads:
            t.start()
        timer = threading.Timer(limits.wall_seconds, kill, args=("timed_out",))
        timer.daemon = True
        timer.start()
        try:
            _, status, rusage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        if cgroup is not None:
            cgroup.kill_all()
        for t in threads:
            t.join(timeout=5.0)
            if t.is_alive():  # a stray holder of the pipe: make sure nothing is left
                kill("")
                t.join(timeout=5.0)
        for stream in (proc.stdout, proc.stderr):
            try:
                stream.close()
            except OSError:
                pass
        exit_code: int | None = None
        sig: int | None = None
        if os.WIFEXITED(status):
            exit_code = os.WEXITSTATUS(status)
        elif os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
        oom = cgroup.oom_happened() if cgroup is not None else False
        return _Raw(exit_code=exit_code, signal=sig, stdout=b"".join(out_buf), stderr=b"".join(err_buf),
                    timed_out=state["timed_out"], output_exceeded=state["output_exceeded"], oom=oom,
                    wall=wall, cpu=rusage.ru_utime + rusage.ru_stime)


def _fill(template: tuple[str, ...], limits: Limits) -> list[str]:
    heap = max(32, int(limits.memory_mb * 0.7))
    return [part.format(prog=PROG_DIR, tc=TOOLCHAIN_DIR, heap_mb=heap, mem_mb=limits.memory_mb)
            for part in template]


def _fill_env(env: dict[str, str], limits: Limits) -> dict[str, str]:
    heap = max(32, int(limits.memory_mb * 0.7))
    return {k: v.format(prog=PROG_DIR, tc=TOOLCHAIN_DIR, heap_mb=heap, mem_mb=limits.memory_mb)
            for k, v in env.items()}


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
        try:
            self.compile_result: CompileResult = self._compile(source, compile_limits)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ compile
    def _compile(self, source: str, limits: Limits) -> CompileResult:
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
            return CompileResult(ok=True, status="ok", output="", seconds=0.0)
        env = {**_fill_env(lang.env, limits), **_fill_env(lang.compile_env, limits)}
        raw = self.sandbox._execute(_fill(lang.compile_cmd, limits), limits=limits, prog_dir=self.prog_dir,
                                    writable_prog=True, stdin=b"", env=env, extra_binds=extra,
                                    cwd=PROG_DIR, uid_host=uid)
        output = _decode((raw.stdout + raw.stderr)[:COMPILE_OUTPUT_CAP])
        if raw.timed_out:
            status = "timeout"
        elif raw.output_exceeded:
            status = "output_limit"
        elif raw.oom:
            status = "memory_limit"
        elif raw.exit_code == 0 and (lang.artifact is None or (self.prog_dir / lang.artifact).exists()):
            status = "ok"
        else:
            status = "compile_error"
        if lang.key == "go":
            shutil.rmtree(self.root / "gocache", ignore_errors=True)
        return CompileResult(ok=status == "ok", status=status, output=output, seconds=raw.wall)

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
    def run(self, stdin: str, limits: Limits) -> RunResult:
        if self._closed:
            raise RuntimeError("program already closed")
        if not self.compile_result.ok:
            raise RuntimeError(f"program did not compile: {self.compile_result.status}")
        lang = self.language
        raw = self.sandbox._execute(_fill(lang.run_cmd, limits), limits=limits, prog_dir=self.prog_dir,
                                    writable_prog=False, stdin=stdin.encode("utf-8", errors="surrogateescape"),
                                    env=_fill_env(lang.env, limits), extra_binds=())
        stderr = _decode(raw.stderr)
        cpu_exceeded = raw.signal in (signal.SIGXCPU, signal.SIGKILL) and (raw.cpu or 0.0) >= limits.cpu_seconds - 0.05
        if raw.exit_code is None and raw.signal == signal.SIGXCPU:
            cpu_exceeded = True
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
