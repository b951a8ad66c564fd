"""A judge counted as validated in tests: what ``manage.py validate_judge`` stores when a judge passes,
written directly on a benchmark's current dataset version, so that boards scored by a scripted judge
rank as they did before judges needed a passing validation. The label is written out by each test
(name@revision (prompt <the prompt the evaluator actually asks>))."""

from __future__ import annotations

from leaderboard import pagecache
from leaderboard.catalog.models import DatasetVersion


def record_passing_validation(benchmark_slug: str, label: str) -> None:
    """Store a passing validation of the judge ``label`` on the benchmark's current dataset version."""
    version = DatasetVersion.objects.get(benchmark__slug=benchmark_slug, is_current=True)
    version.judge_validations = {
        **version.judge_validations,
        label: {
            "judge": label,
            "passed": True,
            "summary": "recorded as passing by the test",
            "at": "2026-12-01T00:00:00+00:00",
        },
    }
    version.save(update_fields=["judge_validations"])
    pagecache.boards_changed()
