"""Validate a benchmark's configured judge against its current dataset's ground truth (PoliCon: the
parties' real votes on the real resolutions), here or on a worker (``--queue``)."""
from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluators.core import InfrastructureError
from leaderboard import queues
from leaderboard.catalog.models import Benchmark
from leaderboard.catalog.validation import ValidationUnavailable, judge_validation_run
from leaderboard.modelhost.judging import JudgeNotConfigured


class Command(BaseCommand):
    help = ("Ask the configured judge about every real resolution for every party of the current dataset version and "
            "report Pearson r and exact-band agreement with the parties' real votes (stored and shown on the board).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("benchmark", help="benchmark slug, e.g. policon")
        parser.add_argument("--limit", type=int, default=0, help="that many tasks spread over the release (0: every task)")
        parser.add_argument("--queue", action="store_true", help="send it to a worker instead of running it here")

    def handle(self, *args: Any, benchmark: str, limit: int, queue: bool, **options: Any) -> None:
        if limit < 0:
            raise CommandError("--limit: 0 (every task) or more")
        found = Benchmark.objects.filter(slug=benchmark).first()
        if found is None:
            raise CommandError(f"unknown benchmark '{benchmark}'")
        if queue:
            queues.validate_judge(found.pk, limit=limit)
            self.stdout.write(f"judge validation of {benchmark} queued on a worker")
            return
        try:
            result = judge_validation_run(benchmark_id=found.pk, limit=limit or None)
        except (ValidationUnavailable, JudgeNotConfigured) as exc:
            raise CommandError(str(exc)) from None
        except InfrastructureError as exc:  # the judge is unreachable: nothing was stored
            raise CommandError(f"the judge is unavailable: {exc}") from None
        r = "undefined" if result["pearson_r"] is None else f"{result['pearson_r']:.3f}"
        self.stdout.write(self.style.SUCCESS(
            f"{result['judge']} ({result['prompt']}): Pearson r {r}, exact-band agreement {result['band_agreement']:.1%} "
            f"over {result['pairs']} votes on {result['tasks']} tasks ({result['skipped_tasks']} without a resolution, "
            f"{result['skipped_parties']} parties without a stance skipped; {result['fallbacks']} fallbacks); "
            "the paper reports r = 0.83"))
