"""Sync the benchmarks, import the sample dataset of every benchmark that has an evaluator, then queue their
baselines in turns (every board's first reference row before any board's second)."""

from django.core.management import call_command
from django.core.management.base import BaseCommand

from evaluators.core import evaluator_for
from leaderboard.catalog.models import DatasetVersion
from leaderboard.catalog.services import benchmarks_sync
from leaderboard.chains.datasets import dataset_version_import
from leaderboard.runs.services import baselines_submit_interleaved

SAMPLE_TAG = "sample"


class Command(BaseCommand):
    help = "Create the benchmarks and import each available evaluator's sample dataset (idempotent)."

    def handle(self, *args, **options):
        imported = []
        for benchmark in benchmarks_sync():
            if not benchmark.evaluator_key:
                continue
            if DatasetVersion.objects.filter(benchmark=benchmark, tag=SAMPLE_TAG).exists():
                self.stdout.write(f"{benchmark.slug}: sample dataset already imported")
                continue
            path = evaluator_for(benchmark.evaluator_key).presentation().sample_dataset()
            make_current = not benchmark.dataset_versions.filter(is_current=True).exists()
            version = dataset_version_import(
                benchmark=benchmark, release_path=path, tag=SAMPLE_TAG, make_current=make_current
            )
            self.stdout.write(self.style.SUCCESS(f"{benchmark.slug}: imported {version.item_count} sample items"))
            if version.is_current:
                imported.append(benchmark)
        # in turns, so the cpu worker scores one reference row of every judged board before any board's second
        for benchmark, submission in baselines_submit_interleaved(benchmarks=imported):
            self.stdout.write(f"{benchmark.slug}: baseline queued: {submission.model.name}")
        call_command("seed_arena", stdout=self.stdout)
        from leaderboard.modelhost.demo import demo_model_ensure

        demo = demo_model_ensure()
        self.stdout.write(f"demo model: {demo.name} (pre-flight {demo.preflight_status})")
