"""What the sandbox gives back: a run's and a compile's results, the raw outcome of one sandboxed
process before it is judged, and ``SandboxUnavailable`` when it cannot run code at all."""

from __future__ import annotations

import signal
from dataclasses import dataclass

from evaluators.core.types import InfrastructureError

from .languages import Language
from .limits import Limits
from .wire import OUTPUT_EXCEEDED, REPLY, RESTART, TIMED_OUT

#: how every refusal to start the sandbox ends: code is never run without it
REFUSAL = "; refusing to run untrusted code unsandboxed"
#: how a run's stderr ends when the program was refused a new process or thread (a fork bomb)
PROCESS_LIMIT_NOTE = "the program reached the process limit"


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


#: what a reply frame may hold besides the test's output and stderr: the other fields
REPLY_OVERHEAD: int = 4096


@dataclass(frozen=True)
class Reply:
    """The supervisor's reply to one test, validated: what the test's process did (the platform adds
    its own cgroup's CPU time and OOM kills), and whether the session must end."""

    raw: RawResult
    restart: bool


def reply_cap(output_cap: int, stderr_cap: int) -> int:
    """The largest reply frame a supervisor can send for a test with these output caps."""
    return output_cap + stderr_cap + REPLY_OVERHEAD


def parse_reply(answer: bytes, *, nonce: bytes, output_cap: int, stderr_cap: int) -> Reply:
    """The supervisor's reply to the request that carried ``nonce``; ValueError when it is not one:
    shorter or longer than its fields say, another request's nonce, an output over its cap, an exit
    status or signal no process can have (or both, or neither), a wall or CPU time out of range, a
    flag that does not exist."""
    if len(answer) < REPLY.size:
        raise ValueError(f"{len(answer)} bytes, fewer than a reply's fields")
    got, exit_code, sig, flags, wall, cpu, out_len, err_len = REPLY.unpack_from(answer)
    if got != nonce:
        raise ValueError("not the answer to this request")
    if len(answer) != REPLY.size + out_len + err_len:
        raise ValueError(f"{len(answer)} bytes, where its fields say {REPLY.size + out_len + err_len}")
    if out_len > output_cap:
        raise ValueError(f"stdout holds {out_len} bytes, more than the {output_cap} the supervisor keeps")
    if err_len > stderr_cap:
        raise ValueError(f"stderr holds {err_len} bytes, more than the {stderr_cap} the supervisor keeps")
    if (exit_code == -1) == (sig == -1) or not 0 <= (exit_code if exit_code != -1 else sig) <= 255:
        raise ValueError(f"exit code {exit_code} and signal {sig}")
    if flags & ~(TIMED_OUT | OUTPUT_EXCEEDED | RESTART):
        raise ValueError(f"flags {flags:#x}")
    if not 0 <= wall < 1e6 or not (cpu == -1.0 or 0 <= cpu < 1e6):
        raise ValueError(f"wall {wall} s, cpu {cpu} s")
    start = REPLY.size
    raw = RawResult(
        exit_code=None if exit_code == -1 else exit_code,
        signal=None if sig == -1 else sig,
        stdout=answer[start : start + out_len],
        stderr=answer[start + out_len :],
        timed_out=bool(flags & TIMED_OUT),
        output_exceeded=bool(flags & OUTPUT_EXCEEDED),
        oom=False,
        wall=wall,
        cpu=None if cpu == -1.0 else cpu,
    )
    return Reply(raw=raw, restart=bool(flags & RESTART))


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
    return RunResult(
        status=status,
        exit_code=raw.exit_code if raw.signal is None else -raw.signal,
        stdout=decode_output(raw.stdout),
        stderr=stderr,
        wall_seconds=raw.wall,
        cpu_seconds=raw.cpu,
    )
