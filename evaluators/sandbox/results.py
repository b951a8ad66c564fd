"""What the sandbox gives back: a run's and a compile's results, the raw outcome of one sandboxed
process before it is judged, and ``SandboxUnavailable`` when it cannot run code at all."""

from __future__ import annotations

import base64
import binascii
import json
import signal
from dataclasses import dataclass
from typing import Any

from evaluators.core.types import InfrastructureError

from .languages import Language
from .limits import Limits

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


#: the supervisor's first frame, once it started (supervisor.py writes it)
READY: bytes = json.dumps({"ready": True}).encode()
#: what a reply frame may hold besides the test's output and stderr (base64: 4/3 of them): the other fields
REPLY_OVERHEAD: int = 4096


@dataclass(frozen=True)
class Reply:
    """The supervisor's reply to one test, validated: what the test's process did (the platform adds
    its own cgroup's CPU time and OOM kills), and whether the session must end."""

    raw: RawResult
    restart: bool


def reply_cap(output_cap: int, stderr_cap: int) -> int:
    """The largest reply frame a supervisor can send for a test with these output caps."""
    return (output_cap + stderr_cap) * 4 // 3 + 8 + REPLY_OVERHEAD


def _field(reply: dict[str, Any], key: str, kinds: tuple[type, ...]) -> Any:
    value = reply.get(key)
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
        raise ValueError(f"{key} is {type(value).__name__}")
    return value


def _output(reply: dict[str, Any], key: str, cap: int) -> bytes:
    try:
        data = base64.b64decode(_field(reply, key, (str,)), validate=True)
    except binascii.Error as exc:
        raise ValueError(f"{key} is not base64") from exc
    if len(data) > cap:
        raise ValueError(f"{key} holds {len(data)} bytes, more than the {cap} the supervisor keeps")
    return data


def parse_reply(answer: bytes, *, nonce: str, output_cap: int, stderr_cap: int) -> Reply:
    """The supervisor's reply to the request that carried ``nonce``; ValueError when it is not one:
    not a JSON object, another request's (or no) nonce, a field of the wrong type, an output over
    its cap, an exit status or signal no process can have."""
    try:
        reply = json.loads(answer)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError("not JSON") from exc
    if not isinstance(reply, dict):
        raise ValueError("not a JSON object")
    if reply.get("nonce") != nonce:
        raise ValueError("not the answer to this request")
    exit_code = _field(reply, "exit_code", (int, type(None)))
    sig = _field(reply, "signal", (int, type(None)))
    if (exit_code is None) == (sig is None) or not 0 <= (exit_code if exit_code is not None else sig) <= 255:
        raise ValueError(f"exit code {exit_code} and signal {sig}")
    wall = float(_field(reply, "wall", (int, float)))
    cpu = _field(reply, "cpu", (int, float, type(None)))
    if not 0 <= wall < 1e6 or (cpu is not None and not 0 <= cpu < 1e6):
        raise ValueError(f"wall {wall} s, cpu {cpu} s")
    raw = RawResult(exit_code=exit_code, signal=sig, stdout=_output(reply, "stdout", output_cap),
                    stderr=_output(reply, "stderr", stderr_cap), timed_out=_field(reply, "timed_out", (bool,)),
                    output_exceeded=_field(reply, "output_exceeded", (bool,)), oom=False, wall=wall,
                    cpu=float(cpu) if cpu is not None else None)
    return Reply(raw=raw, restart=reply.get("restart") is True)


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
