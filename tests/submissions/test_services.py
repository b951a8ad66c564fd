"""Submission rules on the real Postgres: validation before anything is stored, the atomic daily
quota (platform failures given back), visibility of private work, and the run state machine."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import override_settings
from rest_framework.test import APIClient

from leaderboard import task_sends
from leaderboard.runs import selectors, services
from leaderboard.runs.models import EvaluationRun, FailureKind, QuotaUsage, RunStatus, Submission
from tests.conftest import PY_SUM, predictions_jsonl

pytestmark = pytest.mark.django_db(transaction=True)


def good_file(benchmark) -> bytes:
    return predictions_jsonl(benchmark.dataset_versions.get(is_current=True).item_ids, lambda lang: PY_SUM)


def test_bad_file_is_refused_with_lines_and_nothing_is_stored(multi_lcb, user):
    data = b'{"item_id": "t1_a/python", "output": "x"}\n{"item_id": "zzz", "output": "x"}\n'
    with pytest.raises(services.SubmissionRefused) as info:
        services.submission_create_from_predictions(owner=user, benchmark=multi_lcb, model_name="m", data=data)
    assert (2, "item_id", "unknown item id 'zzz' (not in this dataset version)") in info.value.problems
    assert not Submission.objects.exists() and not EvaluationRun.objects.exists()
    assert not QuotaUsage.objects.filter(used__gt=0).exists()


def test_api_reports_problems_as_json(multi_lcb, user):
    client = APIClient()
    client.force_authenticate(user)
    import io

    upload = io.BytesIO(b"not json\n")
    upload.name = "p.jsonl"
    response = client.post(
        "/api/submissions/", {"benchmark": "multi-lcb", "model_name": "m", "predictions": upload}, format="multipart"
    )
    assert response.status_code == 400
    assert response.json()["problems"][0] == {
        "line": 1,
        "field": None,
        "message": "not valid JSON (Expecting value at column 1)",
    }


@override_settings(SUBMISSIONS_PER_DAY=3)
def test_quota_is_atomic_under_concurrency(user):
    results: list[str] = []

    def take() -> None:
        try:
            services.quota_take(user=user)
            results.append("ok")
        except services.QuotaExceeded:
            results.append("refused")
        finally:
            connection.close()

    threads = [threading.Thread(target=take) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("ok") == 3 and results.count("refused") == 5
    assert QuotaUsage.objects.get(user=user).used == 3


@override_settings(SUBMISSIONS_PER_DAY=1)
def test_platform_failures_give_the_quota_back(multi_lcb, user):
    submission = services.submission_create_from_predictions(
        owner=user, benchmark=multi_lcb, model_name="m", data=good_file(multi_lcb)
    )
    with pytest.raises(services.QuotaExceeded, match="used all 1 evaluation runs"):
        services.submission_create_from_predictions(
            owner=user, benchmark=multi_lcb, model_name="m", data=good_file(multi_lcb)
        )
    run = submission.runs.get()
    assert services.run_fail(run_id=run.pk, kind=FailureKind.INFRASTRUCTURE, message="disk gone")
    assert services.quota_remaining(user=user) == 1
    assert not services.run_fail(run_id=run.pk, kind=FailureKind.INFRASTRUCTURE, message="again")  # only once
    second = services.submission_create_from_predictions(
        owner=user, benchmark=multi_lcb, model_name="m", data=good_file(multi_lcb)
    )
    services.run_fail(run_id=second.runs.get().pk, kind=FailureKind.INVALID_INPUT, message="user error")
    assert services.quota_remaining(user=user) == 0  # the submitter's own failure is counted


def test_private_submissions_are_hidden_from_others(multi_lcb, user, other_user):
    private = services.submission_create_from_predictions(
        owner=user, benchmark=multi_lcb, model_name="secret-model", data=good_file(multi_lcb), is_public=False
    )
    assert selectors.submissions_visible(user=user).filter(pk=private.pk).exists()
    assert not selectors.submissions_visible(user=other_user).filter(pk=private.pk).exists()
    assert not selectors.submissions_visible(user=None).filter(pk=private.pk).exists()
    anon = APIClient()
    assert anon.get(f"/api/submissions/{private.pk}/").status_code == 404
    assert anon.get("/api/models/secret-model/").status_code == 404
    assert "secret-model" not in anon.get("/api/models/").content.decode()
    client = APIClient()
    client.force_login(other_user)
    assert client.get(f"/submissions/{private.pk}/").status_code == 404
    client.force_login(user)
    assert client.get(f"/submissions/{private.pk}/").status_code == 200


def test_claim_is_compare_and_set_and_lease_guards_writes(multi_lcb, user):
    submission = services.submission_create_from_predictions(
        owner=user, benchmark=multi_lcb, model_name="m", data=good_file(multi_lcb)
    )
    run = submission.runs.get()
    claim = services.run_claim(run_id=run.pk, worker="w1")
    assert claim is not None and claim.attempt == 1
    assert services.run_claim(run_id=run.pk, worker="w2") is None  # a redelivered message does nothing
    assert services.run_heartbeat(claim=claim)
    chunk = services.chunk_claim(run_id=run.pk, worker="w1")
    assert chunk is not None and services.chunk_claim(run_id=run.pk, worker="w2") is None  # one chunk (36 items), held
    services.run_cancel(run=run, user=user)
    assert not services.run_heartbeat(claim=claim)  # the worker learns it must stop
    assert not services.chunk_heartbeat(claim=chunk)
    assert not services.chunk_record_items(
        claim=chunk, item_scores=[], primary_key="pass@1", item_passed=lambda score: None
    )
    assert EvaluationRun.objects.get(pk=run.pk).status == RunStatus.CANCELLED


@override_settings(RUN_LEASE_SECONDS=0)
def test_expired_lease_is_requeued_then_failed_after_last_attempt(multi_lcb, user, sent_tasks):
    submission = services.submission_create_from_predictions(
        owner=user, benchmark=multi_lcb, model_name="m", data=good_file(multi_lcb)
    )
    run = submission.runs.get()
    EvaluationRun.objects.filter(pk=run.pk).update(max_attempts=2)
    services.run_claim(run_id=run.pk, worker="dead-1")
    assert services.runs_requeue_expired() == (1, 0)
    assert EvaluationRun.objects.get(pk=run.pk).status == RunStatus.QUEUED
    assert (
        sent_tasks == [task_sends.Message(task_sends.EVALUATE_RUN, (run.pk,), "cpu")] * 2
    )  # queued at creation, then by the reaper
    services.run_claim(run_id=run.pk, worker="dead-2")
    assert services.runs_requeue_expired() == (0, 1)
    failed = EvaluationRun.objects.get(pk=run.pk)
    assert failed.status == RunStatus.FAILED and failed.failure_kind == FailureKind.INFRASTRUCTURE
    assert "gave up after 2 attempts" in failed.failure_message


@override_settings(RUN_QUEUED_RESEND_SECONDS=60)
def test_runs_stuck_in_the_queue_are_sent_again(multi_lcb, user, sent_tasks):
    import datetime as dt

    from django.utils import timezone

    run = services.submission_create_from_predictions(
        owner=user, benchmark=multi_lcb, model_name="m", data=good_file(multi_lcb)
    ).runs.get()
    assert services.runs_resend_stale_queued() == 0  # fresh: left alone
    later = timezone.now() + dt.timedelta(seconds=61)
    assert services.runs_resend_stale_queued(now=later) == 1
    assert services.runs_resend_stale_queued(now=later) == 0  # its clock restarted
    assert sent_tasks == [task_sends.Message(task_sends.EVALUATE_RUN, (run.pk,), "cpu")] * 2
    assert services.run_claim(run_id=run.pk, worker="w") is not None
    assert services.run_claim(run_id=run.pk, worker="w-duplicate") is None  # the second message does nothing
