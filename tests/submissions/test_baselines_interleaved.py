"""The baselines of several boards are queued in turns (every board's first reference row before any
board's second), so that a worker scoring runs in queue order gives each judged board a row after one run
of each board ahead of it; once per dataset version."""

from __future__ import annotations

import pytest

from leaderboard import task_sends
from leaderboard.catalog.models import Benchmark
from leaderboard.runs.models import EvaluationRun

pytestmark = pytest.mark.django_db


def test_baselines_are_queued_in_turns_across_boards(sent_tasks, django_capture_on_commit_callbacks):
    from evaluators.core import evaluator_for
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import
    from leaderboard.runs.services import baselines_submit_interleaved

    benchmarks_sync()
    boards = []
    for slug in ("policon", "causal-pitfalls", "causal-pitfalls-code"):
        benchmark = Benchmark.objects.get(slug=slug)
        dataset_version_import(
            benchmark=benchmark, release_path=evaluator_for(slug).presentation().sample_dataset(), tag="sample"
        )
        boards.append(benchmark)
    with django_capture_on_commit_callbacks(execute=True):
        submitted = baselines_submit_interleaved(benchmarks=boards)
    order = [(b.slug, s.model.name) for b, s in submitted]
    assert order == [
        ("policon", "Random (baseline)"),
        ("causal-pitfalls", "No analysis (baseline)"),
        ("causal-pitfalls-code", "No analysis (baseline)"),
        ("policon", "Greedy (baseline)"),
        ("causal-pitfalls", "Rubric restated (baseline)"),
        ("causal-pitfalls-code", "Rubric restated (baseline)"),
    ]
    # the worker's queue receives them in that order
    runs = [m.args[0] for m in sent_tasks if m.task == task_sends.EVALUATE_RUN]
    assert [
        (r.benchmark.slug, r.submission.model.name)
        for r in (EvaluationRun.objects.select_related("benchmark", "submission__model").get(pk=pk) for pk in runs)
    ] == order
    from leaderboard.catalog.models import Model

    assert set(
        Model.objects.filter(pk__in=[s.model_id for _, s in submitted]).values_list("is_reference", flat=True)
    ) == {True}
    assert baselines_submit_interleaved(benchmarks=boards) == []  # once per dataset version
