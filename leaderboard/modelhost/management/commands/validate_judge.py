"""Validate a benchmark's configured judge against its current dataset (PoliCon: the parties' real votes on
the real resolutions; CausalPitfalls and IndicVisionBench VQA: answers of known quality), here or on a
worker (``--queue``). A judged board ranks only figures of a judge that passed."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluators.core import InfrastructureError
from leaderboard import task_sends
from leaderboard.catalog.models import Benchmark
from leaderboard.modelhost.judging import JudgeNotConfigured
from leaderboard.modelhost.validation import ValidationUnavailable, judge_validation_run


class Command(BaseCommand):
    help = (
        "Measure the benchmark's configured judge on its current dataset version (PoliCon: against the parties' real "
        "votes; CausalPitfalls, IndicVisionBench VQA: answers of known quality), store the figures and the verdict "
        "under the judge and the prompt it was asked, and show them on the board; only a judge that passes is ranked."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("benchmark", help="benchmark slug, e.g. policon or causal-pitfalls")
        parser.add_argument(
            "--limit",
            type=int,
            default=0,
            help="that many tasks (PoliCon) or items spread over the release (0: PoliCon's every task, the "
            "others' default sample)",
        )
        parser.add_argument("--queue", action="store_true", help="send it to a worker instead of running it here")

    def handle(self, *args: Any, benchmark: str, limit: int, queue: bool, **options: Any) -> None:
        if limit < 0:
            raise CommandError("--limit: 0 (every task) or more")
        found = Benchmark.objects.filter(slug=benchmark).first()
        if found is None:
            raise CommandError(f"unknown benchmark '{benchmark}'")
        if queue:
            task_sends.validate_judge(found.pk, limit=limit)
            self.stdout.write(f"judge validation of {benchmark} queued on a worker")
            return
        try:
            result = judge_validation_run(benchmark_id=found.pk, limit=limit or None)
        except (ValidationUnavailable, JudgeNotConfigured) as exc:
            raise CommandError(str(exc)) from None
        except InfrastructureError as exc:  # the judge is unreachable: nothing was stored
            raise CommandError(f"the judge is unavailable: {exc}") from None
        self.stdout.write(
            self.style.SUCCESS(f"{result['judge']}: {result['summary']} (stored on dataset {result['dataset']})")
        )
