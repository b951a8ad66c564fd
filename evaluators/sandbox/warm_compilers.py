"""Warm compilers: compile servers (CompileServer.java, compile-server.js) kept loaded in a sandbox of
their own between compiles, for languages whose compiler spends seconds starting (a ``WarmCompiler``
is a resident process, resident_process.Resident), and ``WarmCompilers``, which shares a Sandbox's servers
between its threads.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from .command import BASE_ENV, TOOLCHAINS, compile_server_command, compile_server_digest, fill_env
from .host import Host
from .languages import PROG_DIR, Language
from .limits import Limits
from .resident_process import Resident
from .results import RawResult

#: compiles after which a warm compiler is replaced (the compiler's caches only grow)
WARM_COMPILER_RECYCLE: int = 200
#: the largest answer a warm compiler may give (a compiler's own output; the compile keeps 64 KiB of it)
COMPILER_REPLY_CAP: int = 16 << 20


class WarmCompiler(Resident):
    """A compiler kept loaded in one sandbox, for languages whose compiler spends seconds starting: a JVM
    (CompileServer.java: Kotlin, Scala, Java) or Node (compile-server.js: TypeScript's tsc). The same
    command and flags as the cold compile, the same /prog directory, the same limits on memory and
    processes; one compile at a time. Its /prog is emptied before each compile and what the compile
    made is moved into the program's own directory, out of the server's reach. The compiler runs no
    code of the program's (kotlinc, javac and scalac 2 run no user code while compiling one source
    file, and are given no plugin; tsc only parses and emits), so a server is shared by the programs
    its worker compiles; anything but a normal answer (a crash, an exception thrown, a time-out or
    memory kill) ends the server, and the program is compiled cold, which answers as before."""

    def __init__(self, host: Host, language: Language, limits: Limits) -> None:
        super().__init__(host, limits)
        assert language.compile_cmd is not None and language.compiler_main is not None
        self.language = language
        self.compiles = 0
        self.root: Path = Path(tempfile.mkdtemp(prefix=f"compiler-{language.key}-", dir=host.work_dir))
        os.chmod(self.root, 0o755)
        self.work: Path = self.root / "prog"
        self.work.mkdir()
        command, self.args, self.normal = compile_server_command(language, limits)
        self.uid = uid = host.next_uid(hold=True)
        if host.is_root:
            os.chown(self.work, uid, uid)
        env = {**BASE_ENV, **fill_env(language.env, limits), **fill_env(language.compile_env, limits)}
        try:
            self._launch(
                command,
                env=env,
                cgroup_limits=limits,
                prog_dir=self.work,
                writable_prog=True,
                binds=(),
                cwd=PROG_DIR,
                uid=uid,
            )
        except BaseException:
            self.close()
            raise

    def compile(self, source: str, into: Path) -> RawResult | None:
        """Compile ``source`` and move everything in /prog afterwards (the source included) into
        ``into``; None when this server gave no normal answer (it is closed then)."""
        lang = self.language
        (self.work / lang.source_name).write_text(source, encoding="utf-8", errors="surrogateescape")
        for name in lang.mkdirs:
            (self.work / name).mkdir(exist_ok=True)
        if self.host.is_root and self.uid is not None:
            for path in self.work.iterdir():
                os.chown(path, self.uid, self.uid)
        before = self._counters()
        started = time.monotonic()
        answer = self._exchange("\0".join(self.args).encode(), started + self.limits.wall_seconds, COMPILER_REPLY_CAP)
        wall = time.monotonic() - started
        oom = self._oom_between(before, self._counters())
        self.compiles += 1
        head, _, output = (answer or b"").partition(b"\n")
        if answer is None or oom or head not in self.normal:
            self.close()  # a crash, an Error or an internal error, a kill: compile cold
            return None
        for entry in list(self.work.iterdir()):
            os.replace(entry, into / entry.name)
        return RawResult(
            exit_code=int(head),
            signal=None,
            stdout=output,
            stderr=b"",
            timed_out=False,
            output_exceeded=False,
            oom=False,
            wall=wall,
            cpu=None,
        )

    def close(self) -> None:
        self._close()
        shutil.rmtree(self.root, ignore_errors=True)


class WarmCompilers:
    """A Sandbox's warm compilers, by language and limits, shared by its threads: a compile takes an
    idle server or starts one (so there are as many as compiles at once), gives it back afterwards,
    and a server is replaced after WARM_COMPILER_RECYCLE compiles (the compiler's caches only grow).
    Idle servers exit by themselves after WARM_COMPILER_IDLE_SECONDS, and with the worker."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self._idle: dict[tuple[object, ...], list[WarmCompiler]] = {}
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

    def compile(self, language: Language, limits: Limits, source: str, into: Path) -> RawResult | None:
        """The compile's outcome from a warm server, or None: compile cold."""
        # the very command, environment and limits: a variant of a language never gets another's server
        key = (
            language.compile_cmd,
            tuple(sorted(language.env.items())),
            tuple(sorted(language.compile_env.items())),
            limits,
        )
        server: WarmCompiler | None = None
        with self._lock:
            ended = [s for servers in self._idle.values() for s in servers if not s.alive]  # exited while idle
            for servers in self._idle.values():
                servers[:] = [s for s in servers if s not in ended]
            idle = self._idle.setdefault(key, [])
            server = idle.pop() if idle else None
        for gone in ended:  # their cgroups and uids, freed now rather than when the worker ends
            gone.close()
        if server is None:
            try:
                server = WarmCompiler(self.host, language, limits)
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
