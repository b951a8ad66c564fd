"""manage.py snapshot_board <slug> --reason "..." [--corrects ID]: freeze a board now."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from leaderboard.catalog.models import Benchmark
from leaderboard.history.models import Snapshot
from leaderboard.history.selectors import snapshot_url
from leaderboard.history.services import SnapshotRefused, snapshot_freeze


class Command(BaseCommand):
    help = "Freeze a board into a snapshot with a permanent URL and downloads whose bytes never change."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the benchmark's slug, e.g. multi-lcb")
        parser.add_argument("--reason", required=True, help="why it is frozen (a release, a paper, a correction)")
        parser.add_argument("--corrects", type=int, help="the id of the snapshot this one corrects")

    def handle(self, *args: Any, **options: Any) -> None:
        benchmark = Benchmark.objects.filter(slug=options["slug"]).first()
        if benchmark is None:
            raise CommandError(f"slug: no benchmark '{options['slug']}'")
        corrects = None
        if options["corrects"] is not None:
            corrects = Snapshot.objects.filter(pk=options["corrects"]).first()
            if corrects is None:
                raise CommandError(f"--corrects: no snapshot #{options['corrects']}")
        try:
            snapshot = snapshot_freeze(benchmark=benchmark, reason=options["reason"], corrects=corrects)
        except SnapshotRefused as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(
            f"snapshot #{snapshot.pk} of {benchmark.slug}: {len(snapshot.rows)} rows, JSON sha256 "
            f"{snapshot.json_sha256}\n"
            f"{snapshot_url(snapshot)}"
        )
