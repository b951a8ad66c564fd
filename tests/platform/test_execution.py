"""Failure classification of a run executed in-process by the same service the worker calls."""
from __future__ import annotations

import pytest
from django.test import override_settings

from evaluators.core import InfrastructureError, get_evaluator
from leaderboard.submissions import execution, services
from leaderboard.submissions.models import EvaluationRun, FailureKind, RunStatus
from tests.conftest import PY_SUM, predictions_jsonl

pytestmark = pytest.mark.django_db(transaction=True)


class Broken:
    """The real Multi-LCB evaluator whose scoring raises the given error."""

    def __init__(self, error: Exception) -> None:
        self.real = get_evaluator("multi-lcb")
        self.error = error

    def __getattr__(self, name):
        return getattr(self.real, name)

    def configured(self, settings):
        return self

    def score_item(self, item, predictions):
        raise self.error


def queued_run(benchmark, user, monkeypatch) -> EvaluationRun:
    monkeypatch.setattr(services, "_enqueue_on_commit", lambda run: None)
    data = predictions_jsonl(benchmark.dataset_versions.get(is_current=True).item_ids, lambda lang: PY_SUM)
    return services.submission_create_from_predictions(owner=user, benchmark=benchmark, model_name="m", data=data).runs.get()


@override_settings(SUBMISSIONS_PER_DAY=1)
def test_infrastructure_errors_are_retried_then_failed_without_charging(multi_lcb, user, monkeypatch):
    run = queued_run(multi_lcb, user, monkeypatch)
    EvaluationRun.objects.filter(pk=run.pk).update(max_attempts=2)
    monkeypatch.setattr(execution, "get_evaluator", lambda key: Broken(InfrastructureError("bwrap cannot start")))
    assert execution.run_execute(run_id=run.pk) == "re-queued after an infrastructure error"
    assert services.runs_requeue_expired() == (1, 0)
    assert execution.run_execute(run_id=run.pk) == "failed: infrastructure"
    failed = EvaluationRun.objects.get(pk=run.pk)
    assert failed.status == RunStatus.FAILED and failed.failure_kind == FailureKind.INFRASTRUCTURE
    assert "bwrap cannot start" in failed.failure_message
    assert services.quota_remaining(user=user) == 1  # the platform's fault: the run is given back


def test_evaluator_bugs_are_classified_and_the_worker_goes_on(multi_lcb, user, monkeypatch):
    run = queued_run(multi_lcb, user, monkeypatch)
    monkeypatch.setattr(execution, "get_evaluator", lambda key: Broken(ZeroDivisionError("division by zero")))
    assert execution.run_execute(run_id=run.pk) == "failed: evaluator error"
    failed = EvaluationRun.objects.get(pk=run.pk)
    assert failed.failure_kind == FailureKind.EVALUATOR_ERROR and "ZeroDivisionError" in failed.failure_message
    assert execution.run_execute(run_id=run.pk).startswith("skipped")  # a redelivered message does nothing
