"""Recompute every leaderboard row from the succeeded runs (after a data fix or a visibility change)."""

from django.core.management.base import BaseCommand

from leaderboard.chains.board_rows import leaderboards_rebuild


class Command(BaseCommand):
    help = "Recompute every leaderboard row from the succeeded runs."

    def handle(self, *args, **options):
        self.stdout.write(self.style.SUCCESS(f"{leaderboards_rebuild()} leaderboard rows"))
