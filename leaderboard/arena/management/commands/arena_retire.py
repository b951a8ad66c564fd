"""Retire an arena model (no longer drawn; reason published; rating frozen; votes kept in the fit), or
release a pre-release variant (every variant its provider tested gets its final score published)."""

from django.core.management.base import BaseCommand, CommandError

from leaderboard.arena.services.common import ArenaRefused
from leaderboard.arena.services.lifecycle import model_retire, prerelease_release


class Command(BaseCommand):
    help = "Retire a model with a reason (--reason), or mark a pre-release variant released (--release)."

    def add_arguments(self, parser):
        parser.add_argument("name")
        parser.add_argument("--reason", default="", help="why it is retired (published on the transparency report)")
        parser.add_argument(
            "--release", action="store_true", help="the model is a pre-release variant its provider released"
        )

    def handle(self, *args, name: str, reason: str, release: bool, **options):
        try:
            if release:
                variants = prerelease_release(name=name)
                self.stdout.write(
                    self.style.SUCCESS(f"released {name}; scores published for: {', '.join(v.name for v in variants)}")
                )
            else:
                model = model_retire(name=name, reason=reason)
                self.stdout.write(self.style.SUCCESS(f"retired {model.name} ({model.retire_reason})"))
        except ArenaRefused as exc:
            raise CommandError(str(exc)) from None
