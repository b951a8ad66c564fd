"""Create or update the hosted benchmarks from the catalog and the evaluator registry."""

from django.core.management.base import BaseCommand

from leaderboard.catalog.services import benchmarks_sync


class Command(BaseCommand):
    help = "Create or update the hosted benchmarks (metric columns come from the registered evaluators)."

    def handle(self, *args, **options):
        for benchmark in benchmarks_sync():
            state = "evaluator " + benchmark.evaluator_key if benchmark.evaluator_key else "no evaluator yet"
            self.stdout.write(f"{benchmark.slug}: {state}")
