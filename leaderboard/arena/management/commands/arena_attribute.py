"""Attribute the citations of older arena turns (those answered before attribution existed, or whose
attribution failed), in batches, with progress; resumable and idempotent."""

from django.core.management.base import BaseCommand, CommandError

from leaderboard.arena.services.attribution import BackfillRunning, attributions_backfill, turns_missing_attribution


class Command(BaseCommand):
    help = (
        "Attribute the citations of turns that have none stored, oldest first, in batches. Interrupt it at any time: "
        "the next run goes on with the turns still missing; no side is ever attributed twice."
    )

    def add_arguments(self, parser):
        parser.add_argument("--batch-size", type=int, default=100)
        parser.add_argument("--limit", type=int, default=None, help="at most this many turns in this run")

    def handle(self, *args, batch_size: int, limit: int | None, **options):
        if batch_size < 1:
            raise CommandError("--batch-size: must be at least 1")
        if limit is not None and limit < 1:
            raise CommandError("--limit: must be at least 1")
        self.stdout.write(f"{turns_missing_attribution().count()} turns to attribute")

        def progress(done: dict[str, int]) -> None:
            self.stdout.write(
                f"batch {done['batches']}: {done['turns']} turns done, {done['sides']} sides stored, "
                f"{done['remaining']} turns left"
            )

        try:
            done = attributions_backfill(batch_size=batch_size, limit=limit, progress=progress)
        except BackfillRunning as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            self.style.SUCCESS(f"done: {done['turns']} turns, {done['sides']} sides stored, {done['remaining']} left")
        )
