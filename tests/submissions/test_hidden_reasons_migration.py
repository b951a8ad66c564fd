"""Multi-LCB results stored before a failed hidden test kept only its verdict are scrubbed by a data migration:
the reason of a sample that failed a hidden test (the program's stderr, where a program could copy the hidden
input) is replaced, a public test's is kept, other benchmarks' results are not touched."""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from leaderboard.catalog.services import model_get_or_create
from leaderboard.runs.models import EvaluationRun, ItemResult, RunStatus, Submission
from tests.web.test_run_items import lcb_sample, lcb_score, record, run_of

pytestmark = pytest.mark.django_db

migration = importlib.import_module("leaderboard.runs.migrations.0013_hidden_test_reasons")


def test_a_stored_hidden_tests_stderr_is_scrubbed_and_a_public_tests_kept(multi_lcb, user):
    submission = Submission.objects.create(
        model=model_get_or_create(owner=user, name="old-coder", is_public=True), owner=user, is_public=True
    )
    run = EvaluationRun.objects.create(
        submission=submission,
        benchmark=multi_lcb,
        dataset_version=multi_lcb.dataset_versions.get(is_current=True),
        status=RunStatus.SUCCEEDED,
        evaluator_key="multi-lcb",
        items_total=2,
        items_done=2,
    )
    hidden = lcb_sample(0, "runtime_error", failed_test=1, failed_test_public=False, reason="exit code 3\nSEEN:-5_5")
    public = lcb_sample(1, "runtime_error", failed_test=0, failed_test_public=True, reason="exit code 3\nSEEN:1_2")
    record(run, lcb_score("t1_a/python", [hidden, public]))
    other = run_of("causal-pitfalls", user)  # a judged sample's reason is its own
    ItemResult.objects.create(
        run=other,
        item_id="cp/1",
        scores={},
        detail={"samples": [{"verdict": "scored", "failed_test_public": False, "reason": "1 of 2 criteria met"}]},
    )

    migration.scrub_hidden_reasons(apps, None)

    samples = ItemResult.objects.get(run=run).detail["samples"]
    assert samples[0]["reason"] == migration.HIDDEN_TEST_REASON and "SEEN" not in repr(samples[0])
    assert samples[1]["reason"] == "exit code 3\nSEEN:1_2"
    assert ItemResult.objects.get(run=other).detail["samples"][0]["reason"] == "1 of 2 criteria met"
