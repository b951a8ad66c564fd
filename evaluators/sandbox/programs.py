"""Programs: a source compiled once in its own directory (by a warm compiler or a compiler process of
its own) and run as often as needed, each run a fresh sandboxed process; the read-only data a run may
be given (``DataDir``); a JVM program's entry point checked after its compile (``jvm``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from types import TracebackType

from .command import TOOLCHAINS, fill_command, fill_env
from .gocache import directory_layer
from .host import Bind, Host
from .jvm import class_static_main, jar_main_class
from .languages import PROG_DIR, Language
from .limits import Limits
from .resident import Runnable, Session, SessionPool
from .results import CompileResult, RawResult, RunResult, decode_output
from .warm_compilers import WarmCompilers

#: the most of a compiler's output read back
COMPILE_OUTPUT_CAP: int = 64 * 1024


class DataDir:
    """Files for sandboxed programs, copied under the sandbox's base directory and mounted read-only at
    DATA_DIR (owned by root, or the caller, and never writable by the program's uid). A context manager."""

    def __init__(self, host: Host, source: Path) -> None:
        source = Path(source)
        if not source.is_dir():
            raise FileNotFoundError(f"data directory {source} does not exist")
        self.host = host
        self.closed = False
        self.root: Path = Path(tempfile.mkdtemp(prefix="data-", dir=host.work_dir))
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

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class Program:
    """A program compiled once in its own directory; each ``run`` is a fresh sandboxed process."""

    def __init__(
        self,
        host: Host,
        language: Language,
        source: str,
        compile_limits: Limits,
        run_limits: Limits | None = None,
        *,
        warm_compilers: WarmCompilers | None = None,
        session_pool: SessionPool | None = None,
    ) -> None:
        """``run_limits``: the limits its session will have, when known; a language whose compile only
        checks the source (``Language.check_in_session``) then checks it in that session, which
        ``session(run_limits)`` hands over, instead of in a sandbox of its own. ``warm_compilers``: the
        servers that compile it when they can; ``session_pool``: where its sessions come from and go
        back to (its Sandbox's, when it reuses sessions)."""
        self.host = host
        self.warm_compilers, self.session_pool = warm_compilers, session_pool
        self.language = language
        #: the session the source was checked in (check_in_session), until session() hands it over
        self._session: Session | None = None
        self.root: Path = Path(tempfile.mkdtemp(prefix=f"{language.key}-", dir=host.work_dir))
        os.chmod(self.root, 0o755)
        self.prog_dir: Path = self.root / "prog"
        self.prog_dir.mkdir()
        self._closed = False
        #: the class a JVM run starts ({main} in run_cmd), read from the jar a compile wrote
        self.main_class: str | None = None
        try:
            self.compile_result: CompileResult = self._compile(source, compile_limits, run_limits)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ compile
    def _compile(self, source: str, limits: Limits, run_limits: Limits | None) -> CompileResult:
        lang = self.language
        warm = self.warm_compilers
        raw = warm.compile(lang, limits, source, self.prog_dir) if warm is not None and lang.compiler_main else None
        if raw is None and run_limits is not None and lang.check_in_session:
            raw = self._check_in_session(source, limits, run_limits)
        if raw is None:
            raw = self._compile_cold(source, limits)
        if raw is None:
            return CompileResult(ok=True, status="ok", output="", seconds=0.0)
        output = decode_output((raw.stdout + raw.stderr)[:COMPILE_OUTPUT_CAP])
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
            if lang.rule_broken and lang.entry_rule and re.search(lang.rule_broken, output):
                output = output.rstrip() + "\n" + lang.entry_rule
        if status == "compile_error" and not output.strip():
            ended = (
                f"was killed by signal {raw.signal}"
                if raw.signal is not None
                else f"exited with status {raw.exit_code}"
            )
            output = f"the compiler ({(lang.compile_cmd or ('?',))[0]}) {ended} and printed nothing"
        if lang.key == "go":
            shutil.rmtree(self.root / "gocache", ignore_errors=True)
            shutil.rmtree(self.root / "gocache-work", ignore_errors=True)
        return CompileResult(ok=status == "ok", status=status, output=output, seconds=raw.wall)

    def _compile_cold(self, source: str, limits: Limits) -> RawResult | None:
        """The source written into the program's directory and compiled by a compiler process of its
        own; None for a language without a compile step (the source is the program)."""
        lang = self.language
        src_path = self.prog_dir / lang.source_name
        src_path.write_text(source, encoding="utf-8", errors="surrogateescape")
        for d in lang.mkdirs:
            (self.prog_dir / d).mkdir(exist_ok=True)
        uid = self.host.next_uid()
        extra: tuple[Bind, ...] = ()
        overlays: tuple[tuple[str, str], ...] = ()
        if lang.key == "go":
            bind, overlays = self._prepare_gocache(uid)
            extra = (bind,)
        if self.host.is_root:
            for path in [self.prog_dir, *self.prog_dir.rglob("*")]:
                os.chown(path, uid, uid)
        if lang.compile_cmd is None:
            return None
        env = {**fill_env(lang.env, limits), **fill_env(lang.compile_env, limits)}
        return self.host.execute(
            fill_command(lang.compile_cmd, limits),
            limits=limits,
            prog_dir=self.prog_dir,
            writable_prog=True,
            stdin=b"",
            env=env,
            extra_binds=extra,
            cwd=PROG_DIR,
            uid_host=uid,
            overlays=overlays,
        )

    def _check_in_session(self, source: str, limits: Limits, run_limits: Limits) -> RawResult | None:
        """The check (compile_cmd) run as the first request of the session the tests will run in
        (started here with ``run_limits``), with the compile's time and output limits: one sandbox per
        program instead of two. The session is kept for ``session(run_limits)`` when the check passed;
        None when the session gave no answer (the check then runs in a sandbox of its own)."""
        lang = self.language
        assert lang.compile_cmd is not None
        (self.prog_dir / lang.source_name).write_text(source, encoding="utf-8", errors="surrogateescape")
        session = self._new_session(run_limits, None)
        try:
            raw = session.check(fill_command(lang.compile_cmd, limits), limits)
        except BaseException:
            session.end()
            raise
        if raw is not None and raw.exit_code == 0 and not (raw.timed_out or raw.output_exceeded or raw.oom):
            self._session = session
        else:
            session.close()
        return raw

    def _missing_entry_point(self) -> str | None:
        """Why a program the compiler accepted cannot be started, or None when it can."""
        lang = self.language
        if lang.artifact is None:
            return None
        artifact = self.prog_dir / lang.artifact
        rule = f": {lang.entry_rule}" if lang.entry_rule else ""
        if not artifact.is_file() or artifact.is_symlink():
            found = sorted(p.name for p in artifact.parent.glob("*.class"))[:5] if artifact.suffix == ".class" else []
            seen = f" (it produced {', '.join(found)})" if found else ""
            return f"compiled, but no {lang.artifact} was produced{seen}{rule}"
        if lang.jar_main_class:
            self.main_class = jar_main_class(artifact)
            if self.main_class is None:
                return f"compiled, but the program has no entry point{rule}"
        if artifact.suffix == ".class" and class_static_main(artifact) is False:
            return (
                f"compiled, but {artifact.stem} has no `public static void main(String[] args)` for java to start{rule}"
            )
        return None

    def _prepare_gocache(self, uid: int) -> tuple[Bind, tuple[tuple[str, str], ...]]:
        """A private writable Go build cache on the warm one (whose files stay read-only): its bind at
        /gocache and the overlay the launcher mounts for it. Staged runs get an overlay whose writes go to
        the program's directory (its root the run's uid's; the directories it writes into are copied up
        from the shared layer of the warm cache's directories, writable by anyone: gocache.py);
        otherwise the warm cache is hard-linked into the program's directory."""
        warm = TOOLCHAINS / "gocache"
        upper, work = self.root / "gocache", self.root / "gocache-work"
        staged = warm.is_dir() and self.host.layout is not None  # else no overlay: a hard-linked copy
        layer = directory_layer(self.host.work_dir, warm) if staged else None
        overlay = self.host.gocache_overlay(upper, work, layer) if layer is not None else None
        if overlay is not None:
            work.mkdir(mode=0o700)
            upper.mkdir(mode=0o755)
            os.chown(upper, uid, uid)
            return (overlay[0], "/gocache", True), (overlay,)
        dst = upper
        copied = False
        if warm.is_dir():
            try:
                subprocess.run(
                    ["cp", "-al", str(warm), str(dst)], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
                )
                copied = True
            except subprocess.CalledProcessError:
                shutil.rmtree(dst, ignore_errors=True)
        if not copied:
            dst.mkdir(exist_ok=True)
        if self.host.is_root:
            for dirpath, _dirs, _files in os.walk(dst):
                os.chown(dirpath, uid, uid)  # directories only: the files are shared hard links
        return (str(dst), "/gocache", True), ()

    # ------------------------------------------------------------------ run
    def session(self, limits: Limits, *, data: DataDir | None = None) -> Session:
        """One sandbox for many runs of this program (``with program.session(limits) as s: s.run(stdin)``):
        each run is a fresh process with ``limits``, a clean /tmp and nothing left from the run before."""
        if self._closed:
            raise RuntimeError("program already closed")
        if not self.compile_result.ok:
            raise RuntimeError(f"program did not compile: {self.compile_result.status}")
        if data is not None and (data.host is not self.host or data.closed):
            raise ValueError("the data directory belongs to another sandbox or is closed")
        checked, self._session = self._session, None
        if checked is not None:
            if checked.limits == limits and data is None and checked.alive:
                return checked  # the session the check ran in
            checked.close()
        return self._new_session(limits, data)

    @property
    def runnable(self) -> Runnable:
        """What a session reads of this program (resident.Runnable)."""
        return Runnable(self.language, self.prog_dir, self.main_class)

    def _new_session(self, limits: Limits, data: DataDir | None) -> Session:
        """A session for this program: an idle one of its session pool (same language and limits, no
        data) with this program attached, else a new one (reusable when sessions are pooled)."""
        pool = self.session_pool
        if pool is not None and data is None:
            return pool.take(self.runnable, limits) or Session(self.host, self.runnable, limits, pool=pool)
        return Session(self.host, self.runnable, limits, data.path if data is not None else None)

    def run(self, stdin: str, limits: Limits, *, data: DataDir | None = None) -> RunResult:
        """Run the program once; ``data`` is mounted read-only at DATA_DIR for it."""
        with self.session(limits, data=data) as session:
            return session.run(stdin)

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        if not self._closed:
            self._closed = True
            if self._session is not None:
                self._session.close()
                self._session = None
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Program:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
