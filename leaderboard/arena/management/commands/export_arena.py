"""Export the arena's voted (and imported) battles in the released dataset's schema."""
from pathlib import Path

from django.core.management.base import BaseCommand

from leaderboard.arena.exports import FORMATS, export_to


class Command(BaseCommand):
    help = "Write the votes as the released dataset (JSONL or Parquet, voters hashed)."

    def add_arguments(self, parser):
        parser.add_argument("out", type=Path)
        parser.add_argument("--format", choices=FORMATS, default="jsonl")

    def handle(self, *args, out: Path, format: str, **options):
        n = export_to(out, format)
        self.stdout.write(self.style.SUCCESS(f"wrote {n} conversations to {out}"))
