"""``python manage.py gpu_check [--server vllm|transformers] [--model PATH] [--items N] [--max-tokens N]
[--json FILE]``: the GPU check of leaderboard.modelhost.management.gpucheck, printed (and written as JSON);
exits non-zero when any step failed. Run it through ``scripts/gpu-check``, which gives it a
throwaway database."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.modelhost.management.gpucheck import (
    GpuCheckRefused,
    GpuCheckReport,
    gpu_check_run,
)


class Command(BaseCommand):
    help = (
        "Generate and score the first N Multi-LCB sample problems with a local model through the worker's own code "
        "(generation_execute, run_execute) and print server start time, throughput and GPU memory. "
        "Needs a fresh, throwaway database: use scripts/gpu-check."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--server",
            choices=("vllm", "transformers"),
            default="vllm",
            help="model server the worker starts (default vllm; transformers runs on a CPU)",
        )
        parser.add_argument(
            "--model", type=Path, help="a local model directory (default: a tiny random model made here)"
        )
        parser.add_argument(
            "--items", type=int, default=3, help="Multi-LCB sample problems, 12 languages each (default 3)"
        )
        parser.add_argument("--max-tokens", type=int, default=256, help="max_tokens of each answer (default 256); n=1")
        parser.add_argument("--json", type=Path, help="also write the report to this file as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        with tempfile.TemporaryDirectory(prefix="gpu-check-") as work:
            try:
                report = gpu_check_run(
                    server=options["server"],
                    model_dir=options["model"],
                    items=options["items"],
                    max_tokens=options["max_tokens"],
                    work_dir=Path(work),
                )
            except GpuCheckRefused as exc:
                raise CommandError(str(exc)) from None
        self.stdout.write(render(report))
        if options["json"]:
            options["json"].write_text(json.dumps(report.to_dict(), indent=2) + "\n")
        if not report.ok:
            raise CommandError("gpu check failed: " + "; ".join(report.problems))
        self.stdout.write(self.style.SUCCESS("gpu check passed"))


def render(report: GpuCheckReport) -> str:
    def show(value: object, unit: str = "") -> str:
        return "n/a" if value is None else f"{value}{unit}"

    gpu = (
        (
            f"{report.gpu_name}, {report.gpu_memory_total_mib} MiB; in use before {report.gpu_memory_mib_before} MiB, "
            f"peak {show(report.gpu_memory_mib_peak, ' MiB')}, after {report.gpu_memory_mib_after} MiB "
            f"(freed: {show(report.gpu_memory_freed)})"
        )
        if report.gpu_name
        else "none seen (no nvidia-smi)"
    )
    lines = [
        f"server:            {report.server} serving {report.model}",
        f"items:             {report.problems_imported} problem(s), {report.requests} request(s), max_tokens "
        f"{report.max_tokens}, n=1",
        f"pre-flight:        {report.preflight_status}",
        f"server start:      {show(report.server_start_s, ' s')}",
        f"generation:        {show(report.generation_s, ' s')} ({report.generation_outcome or 'not run'})",
        f"requests/s:        {show(report.requests_per_s)}",
        f"completion tok/s:  {show(report.completion_tokens_per_s)} ({report.completion_tokens} completion, "
        f"{report.prompt_tokens} prompt tokens; {report.answers_with_error} of {report.answers_stored} answers empty "
        f"or cut off)",
        f"server stopped:    {show(report.server_stopped)} (port {show(report.server_port)})",
        f"gpu:               {gpu}",
        f"scoring:           {show(report.scoring_s, ' s')} ({report.scoring_outcome or 'not run'})",
        f"run:               {report.run_status or 'not run'}; "
        + (", ".join(f"{k} {v:.3f}" for k, v in sorted(report.scores.items())) or "no scores"),
        f"data sandbox:      {report.analysis_status or 'not run'} ({show(report.analysis_s, ' s')}: pandas and "
        f"statsmodels on /data)",
    ]
    if report.failure_kind or report.failure_message:
        lines.append(f"failure:           {report.failure_kind}: {report.failure_message[:2000]}")
    if report.problems and report.log_tail:
        lines.append("generation log:\n  " + report.log_tail.replace("\n", "\n  "))
    return "\n".join(lines)
