"""Sessions: a ``Session`` is a resident process (resident_process.Resident) that runs the supervisor
(supervisor.py), which runs one program's tests, each as its own process; a ``SessionPool`` keeps idle
sessions for the next program of the same language and limits. The warm compilers (warm_compilers.py)
are residents too.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import NamedTuple

from .command import BASE_ENV, fill_command, fill_env
from .host import Bind, Host
from .languages import DATA_DIR, Language
from .limits import STDERR_CAP, Limits, rlimits
from .resident_process import Resident
from .results import (
    PROCESS_LIMIT_NOTE,
    REFUSAL,
    REPLY_OVERHEAD,
    RawResult,
    RunResult,
    SandboxUnavailable,
    parse_reply,
    reply_cap,
    run_result,
)
from .wire import READY, REQUEST

#: where the supervisor (the Sandbox's private copy of supervisor.py) is bound in a session's sandbox
SUPERVISOR_DIR: str = "/opt/supervisor"
#: memory the supervisor (and Python's warm starter) may use besides a test's own limit
SUPERVISOR_MEMORY_MB: int = 64
#: how long a supervisor may take to start (bwrap, the interpreter, the warm Python) before its ready frame
SUPERVISOR_START_SECONDS: float = 60.0


class Runnable(NamedTuple):
    """What a session reads of a program: its language, its directory (bound at /prog) and the class a
    JVM run starts ({main} in the run command; None for other languages)."""

    language: Language
    prog_dir: Path
    main_class: str | None


class Session(Resident):
    """One sandbox for one program's tests: bubblewrap running the supervisor (supervisor.py), which
    runs each test as its own process with the test's own limits and a clean /tmp, and answers over
    a pipe. The session's cgroup (memory, processes, CPU accounting) and network namespace are the
    program's for as long as the session lasts; its uid is its own. A test that kills or stops the
    supervisor fails, and the next test starts a new session."""

    def __init__(
        self,
        host: Host,
        runnable: Runnable,
        limits: Limits,
        data: Path | None = None,
        *,
        pool: SessionPool | None = None,
    ) -> None:
        """``data``: a directory bound read-only at DATA_DIR (programs.DataDir's). ``pool``: the session
        may serve other programs of the same language and limits after this one (unless it has ``data``),
        and goes back to ``pool`` when closed: its /prog is a directory of its own, into which each
        program's files are moved while it is attached (``attach``, ``detach``)."""
        super().__init__(host, limits)
        self.runnable, self.data = runnable, data
        lang = runnable.language
        self.env = {**BASE_ENV, **fill_env(lang.env, limits)}
        self.argv = fill_command(lang.run_cmd, limits, main=runnable.main_class or "")
        self.rlimits: list[list[object]] = [
            list(r) for r in rlimits(limits, with_cgroup=host.uses_cgroups, as_root=host.is_root)
        ]
        #: the configuration the running supervisor has (it is sent again only when it changes)
        self._config_sent: bytes | None = None
        self._config_key: tuple[object, ...] | None = None
        self._config_bytes: bytes = b""
        #: a reusable session's /prog (bound instead of the program's own directory), and the programs it served
        self._slot: Path | None = None
        self.programs = 0
        self.pool: SessionPool | None = None
        if pool is not None and data is None:
            self.pool = pool
            self._slot = Path(tempfile.mkdtemp(prefix="session-", dir=host.work_dir))
            os.chmod(self._slot, 0o755)
            self._move(runnable.prog_dir, self._slot)
            self.programs = 1

    @property
    def key(self) -> tuple[str, Limits] | None:
        """What a program must share with this session to reuse it (SessionPool), or None: not reusable."""
        return (self.runnable.language.key, self.limits) if self._slot is not None else None

    @staticmethod
    def _move(source: Path, target: Path) -> None:
        for entry in list(source.iterdir()):
            os.rename(entry, target / entry.name)

    def attach(self, runnable: Runnable) -> None:
        """Serve ``runnable`` (a program of this session's language) from now on: its files moved into /prog."""
        assert self._slot is not None and self.key == (runnable.language.key, self.limits)
        self.runnable = runnable
        self.argv = fill_command(runnable.language.run_cmd, self.limits, main=runnable.main_class or "")
        self._move(runnable.prog_dir, self._slot)
        self.programs += 1

    def detach(self) -> bool:
        """The program's files moved back out of /prog (removed when its directory is gone); whether /prog
        is empty now, as the next program must find it."""
        assert self._slot is not None
        try:
            self._move(self._slot, self.runnable.prog_dir)
        except OSError:
            for entry in list(self._slot.iterdir()):
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry, ignore_errors=True)
                else:
                    entry.unlink(missing_ok=True)
        return not any(self._slot.iterdir())

    def _start(self) -> str | None:
        """Start the sandbox and its supervisor and wait for its ready frame; None once it is ready,
        else why it is not. Until then no program code ran, so bubblewrap's refusal to start is the
        platform's failure (SandboxUnavailable), never the program's."""
        binds: tuple[Bind, ...] = ((str(self.host.supervisor_dir), SUPERVISOR_DIR, False),)
        if self.data is not None:
            binds += ((str(self.data), DATA_DIR, False),)
        own = Limits(memory_mb=self.limits.memory_mb + SUPERVISOR_MEMORY_MB, processes=self.limits.processes + 4)
        self._launch(
            [
                "/usr/bin/python3",
                "-I",
                "-S",
                "-B",
                f"{SUPERVISOR_DIR}/supervisor.py",
                *(["--warm-python"] if self.runnable.language.warm_python else []),
                *([f"--last-pid-fd={self.host.last_pid_fd}"] if self.host.last_pid_fd is not None else []),
            ],
            env=self.env,
            cgroup_limits=own,
            prog_dir=self._slot or self.runnable.prog_dir,
            writable_prog=False,
            binds=binds,
            cwd="/tmp",
            supervisor=True,
        )
        hello = self._exchange(None, time.monotonic() + SUPERVISOR_START_SECONDS, REPLY_OVERHEAD)
        if hello is not None and hello == READY:
            return None
        why = self.failure if hello is None else "answered something else than its ready frame"
        stderr = self._close()
        if "bwrap:" in stderr:
            raise SandboxUnavailable(f"the sandbox did not start: {stderr.strip()[:500]}" + REFUSAL)
        return f"the sandbox's supervisor did not start: it {why}" + (
            f" ({stderr.strip()[:500]})" if stderr.strip() else ""
        )

    def run(self, stdin: str) -> RunResult:
        asked = self._ask(self.argv, self.env, stdin, self.limits, self.rlimits)
        if isinstance(asked, RunResult):
            return asked
        raw, forks_refused = asked
        limits = self.limits
        result = run_result(raw, limits, self.runnable.language)
        if forks_refused and result.status != "ok":
            note = f"{PROCESS_LIMIT_NOTE} ({limits.processes} processes): a new process or thread was refused"
            result = dataclasses.replace(
                result, stderr=(result.stderr.rstrip("\n") + "\n" if result.stderr.strip() else "") + note
            )
        return result

    def check(self, argv: list[str], limits: Limits) -> RawResult | None:
        """Run ``argv`` (the language's check of the source: Python's syntax check) as this session's
        request with ``limits``' time, CPU and output limits (memory, processes and the file size
        stay within the session's), in the session's environment; None when the session gave no answer (it is closed
        then: the caller checks in a sandbox of its own)."""
        # the session's own rlimits are the ceiling (a process cannot raise a hard limit)
        limits = dataclasses.replace(
            limits,
            memory_mb=self.limits.memory_mb,
            processes=self.limits.processes,
            file_size_mb=min(limits.file_size_mb, self.limits.file_size_mb),
        )
        own: list[list[object]] = [
            list(r) for r in rlimits(limits, with_cgroup=self.host.uses_cgroups, as_root=self.host.is_root)
        ]
        asked = self._ask(argv, self.env, "", limits, own)
        if isinstance(asked, RunResult):
            self._close()
            return None
        return asked[0]

    def _ask(
        self, argv: list[str], env: dict[str, str], stdin: str, limits: Limits, own_rlimits: list[list[object]]
    ) -> tuple[RawResult, bool] | RunResult:
        """One request to the supervisor (started first if need be): the process's raw result and
        whether a fork was refused at the process limit meanwhile, or a failed RunResult when the
        supervisor did not start or gave no valid answer (the session is closed then)."""
        if self.proc is None:
            self._config_sent = None
            not_started = self._start()
            if not_started is not None:
                return self._failed(not_started, 0.0)
        nonce = os.urandom(16)
        config = self._config(argv, env, own_rlimits)
        sent = b"" if config == self._config_sent else config
        request = b"".join(
            (
                REQUEST.pack(nonce, limits.wall_seconds, limits.output_bytes, STDERR_CAP, len(sent)),
                sent,
                stdin.encode("utf-8", errors="surrogateescape"),
            )
        )
        # between two requests the supervisor waits for the next and its tests are dead (killed and
        # reaped before it replied): the counters read after the last request stand for "before"
        before = self._previous if self._previous is not None else self._counters()
        self._previous = None
        started = time.monotonic()
        answer = self._exchange(
            request, started + limits.wall_seconds + 10.0, reply_cap(limits.output_bytes, STDERR_CAP)
        )
        if answer is None:
            return self._lost(time.monotonic() - started)
        self._config_sent = config
        try:
            reply = parse_reply(answer, nonce=nonce, output_cap=limits.output_bytes, stderr_cap=STDERR_CAP)
        except ValueError as exc:
            self._close()
            return self._failed(
                f"the sandbox's reply to this test was refused ({exc}); only a program "
                "that reached the supervisor's channel could have changed it",
                time.monotonic() - started,
            )
        after = self._counters()
        raw = reply.raw
        raw.cpu = after.cpu - before.cpu if after.cpu is not None and before.cpu is not None else raw.cpu
        raw.oom = self._oom_between(before, after)
        if reply.restart:  # the supervisor ended the session (its warm Python was killed)
            self._close()
        else:
            self._previous = after
        return raw, after.forks_refused > before.forks_refused

    def _config(self, argv: list[str], env: dict[str, str], own_rlimits: list[list[object]]) -> bytes:
        """The tests' configuration as the supervisor reads it (JSON), encoded once per configuration."""
        key = (
            tuple(argv),
            env,
            tuple(tuple(r) for r in own_rlimits),
        )  # env: the session's own dict, compared by identity first
        if self._config_key != key:
            self._config_key = key
            self._config_bytes = json.dumps({"argv": argv, "env": env, "cwd": "/tmp", "rlimits": own_rlimits}).encode()
        return self._config_bytes

    def _failed(self, why: str, wall: float) -> RunResult:
        return RunResult(
            status="runtime_error", exit_code=None, stdout="", stderr=why, wall_seconds=wall, cpu_seconds=None
        )

    def _lost(self, wall: float) -> RunResult:
        """The supervisor died, was stopped, or gave no valid answer: this test failed; the session ends
        and the next test gets a new one. It said it was ready, so this is the program's failure,
        whatever its stderr says (a forged "bwrap:" line included)."""
        why = self.failure
        self._close()
        timed_out = wall >= self.limits.wall_seconds
        return RunResult(
            status="timeout" if timed_out else "runtime_error",
            exit_code=None,
            stdout="",
            stderr=f"the sandbox's supervisor {why} during this test",
            wall_seconds=wall,
            cpu_seconds=None,
        )

    def close(self) -> None:
        """Done with this program: a reusable session whose supervisor is running goes back to its
        pool (``SessionPool.give``) with the program's files moved out of /prog; any other ends."""
        pool = self.pool
        if self._slot is not None and pool is not None and self.alive and self.detach() and pool.give(self):
            return
        self.end()

    def end(self) -> None:
        """End the session for good (its supervisor, cgroup, uid, namespace and /prog)."""
        self._close()
        if self._slot is not None:
            shutil.rmtree(self._slot, ignore_errors=True)

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class SessionPool:
    """A Sandbox's idle sessions (``Sandbox(reuse_sessions=True)``), by language and limits: a program
    takes one instead of starting a sandbox of its own (bubblewrap, the supervisor, the warm Python, a
    cgroup: the most of a short item's time), and gives it back when its tests are done.

    Nothing of one program reaches the next: between two programs, as between two tests of one, the
    supervisor has killed and reaped every process of the last test, emptied /tmp and /dev/shm, removed
    every IPC object and set the pid counter back (confine.wipe; a session that could not is never
    given back); /prog is read-only inside and holds only the attached program's files (moved in and
    out by this process, never by a test); the cgroup's counters are read per request. What the
    programs of one session share is what the tests of one program share: the session's host uid, its
    cgroup and its empty network namespace. A session is given back only while its supervisor runs, at
    most ``max_idle`` wait (the oldest ends first), and one ends after ``max_programs`` programs."""

    def __init__(self, *, max_idle: int = 8, max_programs: int = 200) -> None:
        self.max_idle, self.max_programs = max_idle, max_programs
        self._idle: list[Session] = []
        self._lock = threading.Lock()
        atexit.register(self.close)  # as the warm compilers: a process that ends leaves no cgroup of theirs

    def take(self, runnable: Runnable, limits: Limits) -> Session | None:
        """An idle session for ``runnable`` (its language, ``limits``) with the program attached, or None."""
        key = (runnable.language.key, limits)
        with self._lock:
            found = next((s for s in reversed(self._idle) if s.key == key), None)
            if found is not None:
                self._idle.remove(found)
        if found is None:
            return None
        if not found.alive:
            found.end()
            return None
        try:
            found.attach(runnable)
        except OSError:
            found.end()
            raise
        return found

    def give(self, session: Session) -> bool:
        """Keep ``session`` (detached, running) for the next program; False when it is not kept (the
        caller ends it)."""
        if session.programs >= self.max_programs:
            return False
        with self._lock:
            self._idle.append(session)
            evicted = self._idle[: -self.max_idle] if len(self._idle) > self.max_idle else []
            del self._idle[: len(evicted)]
        for old in evicted:
            old.end()
        return True

    def resident_uids(self) -> set[int]:
        """The host uids of the idle sessions (their supervisors run between programs)."""
        with self._lock:
            return {s.uid for s in self._idle if s.uid is not None}

    def close(self) -> None:
        with self._lock:
            idle, self._idle = self._idle, []
        for session in idle:
            session.end()
