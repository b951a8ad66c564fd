"""Import a benchmark's released file into a new dataset version."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from evaluators.core import DatasetError
from leaderboard.catalog.models import Benchmark
from leaderboard.catalog.services import benchmarks_sync
from leaderboard.chains.datasets import dataset_version_import
from leaderboard.runs.services import baselines_submit


class Command(BaseCommand):
    help = (
        "Import a benchmark's released data file (e.g. LiveCodeBench's test.jsonl for multi-lcb) as a dataset version."
    )

    def add_arguments(self, parser):
        parser.add_argument("benchmark", help="benchmark slug, e.g. multi-lcb")
        parser.add_argument(
            "path", type=Path, help="the released file or directory (PoliCon: the folder holding task_datas)"
        )
        parser.add_argument("--tag", required=True, help="version tag, e.g. release_v6")
        parser.add_argument("--not-current", action="store_true", help="import without making it the current version")

    def handle(self, *args, benchmark, path, tag, not_current, **options):
        benchmarks_sync()
        try:
            bench = Benchmark.objects.get(slug=benchmark)
        except Benchmark.DoesNotExist:
            raise CommandError(
                f"unknown benchmark '{benchmark}' (known: "
                f"{', '.join(Benchmark.objects.values_list('slug', flat=True))})"
            ) from None
        if not path.exists():
            raise CommandError(f"{path}: no such file or directory")
        try:
            version = dataset_version_import(benchmark=bench, release_path=path, tag=tag, make_current=not not_current)
        except (DatasetError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(f"imported {version.item_count} items as {version}"))
        if version.is_current:
            for submission in baselines_submit(benchmark=bench):
                self.stdout.write(f"baseline queued: {submission.model.name}")
