"""Failure classification of a run executed in-process by the same service the worker calls."""

from __future__ import annotations

import pytest
from django.test import override_settings

from evaluators.core import InfrastructureError
from evaluators.multi_lcb.evaluator import MultiLCBEvaluator
from leaderboard.chains import execution
from leaderboard.runs import services
from leaderboard.runs.models import EvaluationRun, FailureKind, RunStatus
from tests.conftest import PY_SUM, predictions_jsonl

pytestmark = pytest.mark.django_db(transaction=True)


class Broken(MultiLCBEvaluator):
    """The real Multi-LCB evaluator whose scoring raises ``error``."""

    error: Exception = RuntimeError("not set")

    def score_item(self, item, predictions):
        raise self.error


def broken(error: Exception):
    """A stand-in for ``evaluator_for`` handing out a Broken evaluator configured as the run asks."""

    def evaluator_for(key, *, settings=None, judge=None):
        evaluator = Broken().configured(settings or {})
        evaluator.error = error
        return evaluator

    return evaluator_for


@pytest.fixture(autouse=True)
def no_broker(sent_tasks):
    """The runs here are executed in-process: what would be queued is only recorded."""
    return sent_tasks


def queued_run(benchmark, user) -> EvaluationRun:
    data = predictions_jsonl(benchmark.dataset_versions.get(is_current=True).item_ids, lambda lang: PY_SUM)
    return services.submission_create_from_predictions(
        owner=user, benchmark=benchmark, model_name="m", data=data
    ).runs.get()


@override_settings(SUBMISSIONS_PER_DAY=1)
def test_infrastructure_errors_are_retried_then_failed_without_charging(multi_lcb, user, monkeypatch):
    run = queued_run(multi_lcb, user)
    EvaluationRun.objects.filter(pk=run.pk).update(max_attempts=2)
    monkeypatch.setattr(execution, "evaluator_for", broken(InfrastructureError("bwrap cannot start")))
    assert execution.run_execute(run_id=run.pk) == "re-queued after an infrastructure error"
    assert services.runs_requeue_expired() == (1, 0)
    assert execution.run_execute(run_id=run.pk) == "failed: infrastructure"
    failed = EvaluationRun.objects.get(pk=run.pk)
    assert failed.status == RunStatus.FAILED and failed.failure_kind == FailureKind.INFRASTRUCTURE
    assert "bwrap cannot start" in failed.failure_message
    assert services.quota_remaining(user=user) == 1  # the platform's fault: the run is given back


def test_evaluator_bugs_are_classified_and_the_worker_goes_on(multi_lcb, user, monkeypatch):
    run = queued_run(multi_lcb, user)
    monkeypatch.setattr(execution, "evaluator_for", broken(ZeroDivisionError("division by zero")))
    assert execution.run_execute(run_id=run.pk) == "failed: evaluator error"
    failed = EvaluationRun.objects.get(pk=run.pk)
    assert failed.failure_kind == FailureKind.EVALUATOR_ERROR and "ZeroDivisionError" in failed.failure_message
    assert execution.run_execute(run_id=run.pk).startswith("skipped")  # a redelivered message does nothing


@pytest.mark.toolchains
def test_the_command_line_scores_a_file_exactly_as_a_worker_does(multi_lcb, user, tmp_path):
    """evaluators/multi_lcb/README.md's promise: ``python -m evaluators score`` and a worker give every item the same
    score."""
    import json
    import subprocess
    import sys
    from pathlib import Path

    from django.conf import settings

    from leaderboard.catalog.services import dataset_items_path
    from leaderboard.runs.models import ItemResult, Score

    version = multi_lcb.dataset_versions.get(is_current=True)
    lines = []
    for item_id in version.item_ids:
        problem, language = item_id.rsplit("/", 1)
        if language == "python":  # two samples, one wrong on the hard problem
            wrong = problem == "t3_a"
            lines += [
                json.dumps(
                    {
                        "item_id": item_id,
                        "sample_index": 1,
                        "output": f"```python\n{'print(0)' if wrong else PY_SUM}```",
                    }
                ),
                json.dumps({"item_id": item_id, "sample_index": 0, "output": f"```python\n{PY_SUM}```"}),
            ]
        elif language == "cpp":
            lines.append(json.dumps({"item_id": item_id, "output": "```cpp\nint main() { return 1; }\n```"}))
        elif language == "java":
            lines.append(json.dumps({"item_id": item_id, "output": "```java\nclass Solution {}\n```"}))
        else:
            lines.append(json.dumps({"item_id": item_id, "output": "no code here"}))
    data = ("\n".join(lines) + "\n").encode()
    run = services.submission_create_from_predictions(
        owner=user, benchmark=multi_lcb, model_name="m", data=data
    ).runs.get()
    assert execution.run_execute(run_id=run.pk) == "succeeded"

    dataset = dataset_items_path(version, Path(settings.VAR_DIR) / "cache" / "datasets")
    predictions, out = tmp_path / "predictions.jsonl", tmp_path / "scores.json"
    predictions.write_bytes(data)
    run.refresh_from_db()
    setting_args = [arg for key, value in run.evaluator_settings.items() for arg in ("--setting", f"{key}={value}")]
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluators",
            "score",
            "--benchmark",
            "multi-lcb",
            "--dataset",
            str(dataset),
            "--predictions",
            str(predictions),
            "--seed",
            str(run.pk),
            "--out",
            str(out),
            *setting_args,
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    cli = json.loads(out.read_text())

    def outcome(slices, scores, detail):
        samples = [(s["sample_index"], s["verdict"], s["failed_test"], s["reason"]) for s in detail["samples"]]
        return slices, scores, detail["verdicts"], samples

    by_worker = {r.item_id: outcome(r.slices, r.scores, r.detail) for r in ItemResult.objects.filter(run=run)}
    by_cli = {s["item_id"]: outcome(s["slices"], s["scores"], s["detail"]) for s in cli["item_scores"]}
    assert len(by_worker) == len(version.item_ids) == 36
    assert by_cli == by_worker
    assert {v[2].get("compile_error", 0) for k, v in by_cli.items() if k.endswith("/java")} == {1}  # no class Main
    headline = Score.objects.get(run=run, key="pass@1", slice_key="")
    cli_headline = next(m for m in cli["metrics"] if m["key"] == "pass@1" and not m["slice"])
    assert (cli_headline["value"], cli_headline["ci_low"], cli_headline["ci_high"]) == pytest.approx(
        (headline.value, headline.ci_low, headline.ci_high)
    )


@pytest.mark.toolchains
def test_a_version_stored_before_shared_parts_still_scores(multi_lcb, user):
    """A dataset version imported before items files kept each problem's tests once (every language item
    whole on its line, keys sorted) is fetched, indexed and scored as it is."""
    import hashlib
    import json

    from django.core.files.base import ContentFile
    from django.core.files.storage import default_storage

    from evaluators.core.files import read_items
    from leaderboard.catalog.models import DatasetVersion
    from leaderboard.catalog.services import dataset_items_path
    from leaderboard.runs.models import ItemResult

    version = multi_lcb.dataset_versions.get(is_current=True)
    old = "".join(
        json.dumps(item.to_dict(), ensure_ascii=False, sort_keys=True) + "\n"
        for item in read_items(dataset_items_path(version))
    ).encode()
    assert old.count(b'"private_test_cases"') == 36  # the tests once per language item, as it was stored
    key = default_storage.save("datasets/multi-lcb/before-shared-parts.jsonl", ContentFile(old))
    DatasetVersion.objects.filter(pk=version.pk).update(storage_key=key, content_hash=hashlib.sha256(old).hexdigest())
    run = queued_run(multi_lcb, user)  # a+b in Python, fenced in every item's language
    assert execution.run_execute(run_id=run.pk) == "succeeded"
    scores = {r.item_id: r.scores for r in ItemResult.objects.filter(run=run)}
    assert len(scores) == 36
    assert [scores[f"{p}/python"]["c"] for p in ("t1_a", "t2_a", "t3_a")] == [1.0, 1.0, 1.0]
    assert scores["t1_a/cpp"]["c"] == 0.0  # Python is not C++
