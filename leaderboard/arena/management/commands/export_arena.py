"""Export the arena's voted (and imported) battles in the released dataset's schema, or the plain-chat
setting's battles in the Text Arena schema."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.arena.exports import FORMATS, export_to


class Command(BaseCommand):
    help = (
        "Write the votes as the released dataset (JSONL or Parquet, voters hashed), or as Text Arena battles (JSONL)."
    )

    def add_arguments(self, parser):
        parser.add_argument("out", type=Path)
        parser.add_argument("--format", choices=FORMATS, default="jsonl")
        parser.add_argument(
            "--schema",
            choices=("search-arena", "text-arena"),
            default="search-arena",
            help="text-arena: the plain-chat setting's battles in the released Text Arena schema",
        )

    def handle(self, *args, out: Path, format: str, schema: str, **options):
        if schema == "text-arena":
            from evaluators.arena.text_arena import write_jsonl
            from leaderboard.arena.services import text_arena_rows

            if format != "jsonl":
                raise CommandError("--format: the Text Arena schema is written as jsonl")
            n = write_jsonl(text_arena_rows(), out)
        else:
            n = export_to(out, format)
        self.stdout.write(self.style.SUCCESS(f"wrote {n} conversations to {out}"))
