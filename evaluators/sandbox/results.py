"""What the sandbox gives back: a run's and a compile's results, the raw outcome of one sandboxed
process before it is judged, and ``SandboxUnavailable`` when it cannot run code at all."""

from __future__ import annotations

import signal
from dataclasses import dataclass

from evaluators.core.types import InfrastructureError

from .languages import Language
from .limits import Limits

#: how every refusal to start the sandbox ends: code is never run without it
REFUSAL = "; refusing to run untrusted code unsandboxed"


class SandboxUnavailable(InfrastructureError):
    """Raised when the sandbox cannot be used; code is never run unsandboxed instead."""


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
class RawResult:
    """What one sandboxed process tree did (a compile, a test, a probe), before it is judged."""

    exit_code: int | None
    signal: int | None
    stdout: bytes
    stderr: bytes
    timed_out: bool
    output_exceeded: bool
    oom: bool
    wall: float
    cpu: float | None


def decode_output(data: bytes) -> str:
    """A process's output as text (undecodable bytes replaced)."""
    return data.decode("utf-8", errors="replace")


def run_result(raw: RawResult, limits: Limits, language: Language) -> RunResult:
    """The verdict on one run of a ``language`` program under ``limits``."""
    lang = language
    stderr = decode_output(raw.stderr)
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
                     stdout=decode_output(raw.stdout), stderr=stderr, wall_seconds=raw.wall, cpu_seconds=raw.cpu)
