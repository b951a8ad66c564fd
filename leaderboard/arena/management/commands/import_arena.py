"""Import a released dataset file as battles, turns and votes: the Search Arena's (JSONL or Parquet) into the
search setting, or a Text Arena battles file (JSON array, JSONL or Parquet) into the plain-chat setting."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from leaderboard.arena.services import battles_import, text_arena_import

SCHEMAS = {"search-arena": battles_import, "text-arena": text_arena_import}


class Command(BaseCommand):
    help = (
        "Import the released dataset's rows; idempotent by conv_id (question_id); a malformed row (named) imports "
        "nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)
        parser.add_argument(
            "--schema",
            choices=sorted(SCHEMAS),
            default="search-arena",
            help="search-arena: the Search Arena's released rows; text-arena: Text Arena battles (plain-chat setting)",
        )

    def handle(self, *args, file: Path, schema: str, **options):
        from evaluators.arena.dataset import DatasetError

        if not file.is_file():
            raise CommandError(f"{file}: {'a directory, not a file' if file.is_dir() else 'no such file'}")
        try:
            report = SCHEMAS[schema](path=file)
        except DatasetError as exc:
            raise CommandError(str(exc)) from None
        except OSError as exc:  # unreadable (permissions, a disk error); nothing was written
            raise CommandError(f"{file.name}: cannot be read ({exc.strerror or exc})") from None
        self.stdout.write(
            self.style.SUCCESS(
                f"imported {report.created} conversations, skipped {report.skipped} already imported; "
                f"new models (disabled for sampling): {', '.join(report.models_created) or 'none'}"
            )
        )
