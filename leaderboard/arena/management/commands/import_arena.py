"""Import a released Search Arena dataset file (JSONL or Parquet) as battles, turns and votes."""
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.arena.services import battles_import


class Command(BaseCommand):
    help = "Import the released dataset's rows; idempotent by conv_id; a malformed row (named) imports nothing."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file: Path, **options):
        from evaluators.arena.dataset import DatasetError

        if not file.exists():
            raise CommandError(f"{file}: no such file")
        try:
            report = battles_import(path=file)
        except DatasetError as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(self.style.SUCCESS(
            f"imported {report.created} conversations, skipped {report.skipped} already imported; "
            f"new models (disabled for sampling): {', '.join(report.models_created) or 'none'}"))
