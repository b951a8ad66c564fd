"""A run scored by the worker's service records each item's full marks (Evaluator.item_passed) and each
Multi-LCB sample's program with the item, as the per-item page reads them."""

from __future__ import annotations

import pytest

from leaderboard.chains import execution
from leaderboard.runs import services
from leaderboard.runs.models import ItemResult
from tests.conftest import PY_SUM, predictions_jsonl

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.toolchains]


def test_a_scored_run_records_full_marks_and_programs(multi_lcb, user, sent_tasks):
    item_ids = multi_lcb.dataset_versions.get(is_current=True).item_ids
    data = predictions_jsonl(item_ids, lambda language: PY_SUM if language == "python" else None)
    run = services.submission_create_from_predictions(
        owner=user, benchmark=multi_lcb, model_name="m", data=data
    ).runs.get()
    assert execution.run_execute(run_id=run.pk) == "succeeded"
    passed = dict(ItemResult.objects.filter(run=run).values_list("item_id", "passed"))
    assert {item_id for item_id, ok in passed.items() if ok} == {"t1_a/python", "t2_a/python", "t3_a/python"}
    assert passed["t1_a/rust"] is False  # no code: recorded as not passed, not left unknown
    assert ItemResult.objects.get(run=run, item_id="t1_a/python").detail["samples"][0]["program"] == PY_SUM
