"""End to end on real services: a predictions file uploaded through the API to S3 (moto's server),
queued on Redis, scored by a real Celery worker running the Multi-LCB evaluator in the sandbox, and
shown on the leaderboard; a worker killed with SIGKILL mid-run; cancel and re-run."""

from __future__ import annotations

import io

import pytest
from django.core.files.storage import default_storage
from django.test import override_settings
from rest_framework.test import APIClient

from leaderboard.catalog.models import Benchmark
from leaderboard.runs.models import EvaluationRun, ItemResult, RunChunk, RunStatus, Score
from tests.conftest import PY_SLOW_SUM, PY_SUM, Worker, predictions_jsonl, wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.toolchains]


def api_for(user) -> APIClient:
    from rest_framework.authtoken.models import Token

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def submit(client: APIClient, benchmark: Benchmark, data: bytes, model_name: str = "tiny-coder"):
    upload = io.BytesIO(data)
    upload.name = "preds.jsonl"
    return client.post(
        "/api/submissions/",
        {"benchmark": benchmark.slug, "model_name": model_name, "predictions": upload},
        format="multipart",
    )


def finished(run_id: int) -> bool:
    return EvaluationRun.objects.get(pk=run_id).is_finished


def test_predictions_file_scored_by_worker_and_ranked(multi_lcb, user, celery_worker):
    item_ids = multi_lcb.dataset_versions.get(is_current=True).item_ids
    response = submit(
        api_for(user), multi_lcb, predictions_jsonl(item_ids, lambda lang: PY_SUM if lang == "python" else None)
    )
    assert response.status_code == 201, response.content
    run_id = response.json()["runs"][0]["id"]
    wait_for(lambda: finished(run_id), timeout=180, what="the run to finish")
    run = EvaluationRun.objects.get(pk=run_id)
    assert run.status == RunStatus.SUCCEEDED, (run.failure_kind, run.failure_message, run.log)
    assert default_storage.exists(run.submission.predictions_key)  # stored in S3 through moto's server
    assert run.items_done == run.items_total == 36
    assert run.evaluator_version and "toolchain.python" in run.environment and "django" in run.environment
    python = Score.objects.get(run=run, key="pass@1", slice_key="language=python")
    assert python.value == 1.0 and python.n == 3
    assert Score.objects.get(run=run, key="pass@1", slice_key="language=rust").value == 0.0
    headline = Score.objects.get(run=run, key="pass@1", slice_key="")
    assert headline.value == pytest.approx(1 / 12)
    board = APIClient().get(f"/api/benchmarks/{multi_lcb.slug}/leaderboard/").json()
    assert [row["model"] for row in board["rows"]] == ["tiny-coder"]
    assert board["rows"][0]["scores"]["pass@1"]["value"] == pytest.approx(1 / 12)
    verdicts = ItemResult.objects.get(run=run, item_id="t1_a/rust").detail["samples"][0]["verdict"]
    assert verdicts == "no_code"


def test_worker_killed_mid_run_finishes_exactly_once(multi_lcb, user, celery_worker):
    item_ids = multi_lcb.dataset_versions.get(is_current=True).item_ids
    ruby_sum = "a, b = gets.split.map(&:to_i)\nsleep 1.0\nputs a + b\n"
    data = predictions_jsonl(item_ids, lambda lang: {"python": PY_SLOW_SUM, "ruby": ruby_sum}.get(lang))
    run_id = submit(api_for(user), multi_lcb, data).json()["runs"][0]["id"]
    wait_for(lambda: EvaluationRun.objects.get(pk=run_id).items_done >= 2, timeout=120, what="the first results")
    celery_worker.kill()
    killed_at = EvaluationRun.objects.get(pk=run_id)
    assert killed_at.status == RunStatus.RUNNING and killed_at.items_done < 36
    celery_worker.start()  # a new worker: the lease expires, the reaper re-queues, the run resumes
    wait_for(lambda: finished(run_id), timeout=240, what="the resumed run to finish")
    run = EvaluationRun.objects.get(pk=run_id)
    assert run.status == RunStatus.SUCCEEDED, (run.failure_kind, run.failure_message, run.log)
    assert run.attempt == 2, run.log
    assert "re-queued" in run.log
    assert (
        ItemResult.objects.filter(run=run).count()
        == 36
        == len(set(ItemResult.objects.filter(run=run).values_list("item_id", flat=True)))
    )
    assert Score.objects.filter(run=run, key="pass@1", slice_key="").count() == 1
    assert Score.objects.get(run=run, key="pass@1", slice_key="language=ruby").value == 1.0
    assert Score.objects.get(run=run, key="pass@1", slice_key="").value == pytest.approx(2 / 12)


def test_cancel_then_rerun(multi_lcb, user, celery_worker):
    item_ids = multi_lcb.dataset_versions.get(is_current=True).item_ids
    client = api_for(user)
    run_id = submit(
        client, multi_lcb, predictions_jsonl(item_ids, lambda lang: PY_SLOW_SUM if lang == "python" else None)
    ).json()["runs"][0]["id"]
    cancelled = client.post(f"/api/runs/{run_id}/cancel/")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    rerun = client.post(f"/api/runs/{run_id}/rerun/")
    assert rerun.status_code == 201, rerun.content
    new_id = rerun.json()["id"]
    wait_for(lambda: finished(new_id), timeout=180, what="the re-run")
    assert EvaluationRun.objects.get(pk=new_id).status == RunStatus.SUCCEEDED
    assert EvaluationRun.objects.get(pk=run_id).status == RunStatus.CANCELLED


SLOW_SUMS = {
    "python": PY_SLOW_SUM,
    "ruby": "a, b = gets.split.map(&:to_i)\nsleep 1.0\nputs a + b\n",
    "javascript": "const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\\s+/).map(Number);\n"
    "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);\nconsole.log(a + b);\n",
    "php": "<?php\n[$a, $b] = array_map('intval', preg_split('/\\s+/', trim(fgets(STDIN))));\nusleep(1000000);\necho "
    '$a + $b, "\\n";\n',
}


@override_settings(RUN_CHUNK_ITEMS=4)
def test_one_run_is_scored_by_two_workers(multi_lcb, user, celery_worker, worker_env, tmp_path):
    second = Worker(worker_env, tmp_path / "second-worker.log")
    second.start()
    try:
        item_ids = multi_lcb.dataset_versions.get(is_current=True).item_ids
        run_id = submit(api_for(user), multi_lcb, predictions_jsonl(item_ids, SLOW_SUMS.get)).json()["runs"][0]["id"]
        wait_for(lambda: finished(run_id), timeout=240, what="the shared run to finish")
    finally:
        second.stop()
    run = EvaluationRun.objects.get(pk=run_id)
    assert run.status == RunStatus.SUCCEEDED, (run.failure_kind, run.failure_message, run.log)
    chunks = RunChunk.objects.filter(run=run)
    assert chunks.count() == 9 and all(chunks.values_list("done", flat=True))
    assert len(set(chunks.values_list("worker", flat=True))) == 2, list(chunks.values_list("worker", flat=True))
    assert ItemResult.objects.filter(run=run).count() == 36
    assert Score.objects.get(run=run, key="pass@1", slice_key="").value == pytest.approx(4 / 12)
