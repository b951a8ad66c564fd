"""Create the arena's contestants: the embedded default's two extractive responders and any in
LEADERBOARD_ARENA_MODELS (idempotent)."""

from django.core.management.base import BaseCommand

from leaderboard.arena.services import arena_models_seed


class Command(BaseCommand):
    help = "Create or update the arena models (the embedded extractive responders and those in settings)."

    def handle(self, *args, **options):
        for model in arena_models_seed():
            self.stdout.write(f"arena model: {model.name}")
