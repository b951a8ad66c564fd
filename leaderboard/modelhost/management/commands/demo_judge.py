"""``python manage.py demo_judge --port N``: serve the embedded default's judge (SmolLM2-135M-Instruct,
installed by scripts/install-demo-judge) with the launcher every model server goes through, until
stopped; ``--setting`` prints the LEADERBOARD_JUDGES value that points the workers at it instead."""
from __future__ import annotations

import json
import signal
import threading
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluators.llm.server import ModelServer, ServerSpec
from leaderboard.modelhost.judging import DEMO_JUDGE_DIR, demo_judge_setting


class Command(BaseCommand):
    help = "Serve the embedded demo's judge model on the CPU (transformers serve), or print its LEADERBOARD_JUDGES setting."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--port", type=int, required=True, help="port of the judge's OpenAI-compatible server")
        parser.add_argument("--setting", action="store_true", help="print the LEADERBOARD_JUDGES JSON and exit")

    def handle(self, *args: Any, port: int, setting: bool, **options: Any) -> None:
        model = Path(settings.VAR_DIR) / DEMO_JUDGE_DIR
        spec = ServerSpec(kind="transformers", model=str(model), port=port, start_timeout_s=600,
                          log_path=str(Path(settings.VAR_DIR) / "log" / "demo-judge-server.log"))
        if setting:
            self.stdout.write(json.dumps(demo_judge_setting(f"http://127.0.0.1:{port}/v1", spec.served_name)))
            return
        if not (model / "config.json").is_file():
            raise CommandError(f"{model}: the demo judge is not installed; run scripts/install-demo-judge (make run does)")
        Path(spec.log_path or "").parent.mkdir(parents=True, exist_ok=True)
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        with ModelServer(spec) as server:
            self.stdout.write(f"demo judge ready at {server.endpoint().base_url} ({model.name})")
            while not stop.wait(1.0):
                if not server.running:
                    raise CommandError(f"the demo judge's server stopped: {server.failure()}")
