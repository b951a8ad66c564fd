"""A model server killed mid-run: restarted once, then the run fails classified (with the server's
log), and the same GPU worker goes on to complete the next job from submission to score; with
`transformers serve` and with vLLM's CPU build (the only end-to-end run of uploaded weights through vLLM)."""

from __future__ import annotations

import os
import signal
import threading

import pytest
from django.test import override_settings

from leaderboard.catalog.models import Model
from leaderboard.runs.models import EvaluationRun, FailureKind, GenerationJob, RunStatus
from tests.conftest import wait_for
from tests.modelhost.conftest import api_for, register, submit_model
from tests.modelhost.test_weights import (
    PART,
    all_finished,
    model_archive,
    served_run_checks,
    server_processes,
    upload_in_parts,
)

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.toolchains]


@override_settings(UPLOAD_PART_BYTES=PART)
@pytest.mark.parametrize(
    ("worker_fixture", "max_tokens"),
    [
        ("gpu_worker", 2048),
        # vLLM refuses a prompt plus max_tokens over the model's 2,048 positions (the prompts take up to 1,186)
        pytest.param("vllm_gpu_worker", 800, marks=pytest.mark.vllm),
    ],
)
def test_killed_server_is_restarted_once_then_classified_and_the_worker_goes_on(
    multi_lcb, user, celery_worker, worker_fixture, max_tokens, request, tmp_path
):
    import hashlib

    gpu_worker = request.getfixturevalue(worker_fixture)

    client = api_for(user)
    data = model_archive(tmp_path)
    digest = hashlib.sha256(data).hexdigest()
    model = register(client, name="tiny-llama", source="weights", weights_upload=upload_in_parts(client, data))
    wait_for(
        lambda: Model.objects.get(slug=model["slug"]).preflight_status != "pending", timeout=120, what="the pre-flight"
    )
    long_answers = {
        "n": 1,
        "max_tokens": max_tokens,
        "temperature": 1.0,
    }  # random weights rarely stop: slow enough to kill mid-run
    submission_id = submit_model(client, model["slug"], [multi_lcb.slug], long_answers).json()["id"]
    job = lambda: GenerationJob.objects.get(submission_id=submission_id)  # noqa: E731
    wait_for(lambda: job().requests_done >= 1 or job().is_finished, timeout=240, what="the first answers")
    assert not job().is_finished, job().log

    killed: list[int] = []
    halt = threading.Event()

    def killer() -> None:  # every server of this model that comes up dies, as on a broken machine
        while not halt.wait(0.2):
            for pid in server_processes(digest):
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except ProcessLookupError:
                    pass

    thread = threading.Thread(target=killer, daemon=True)
    thread.start()
    try:
        wait_for(lambda: all_finished(submission_id), timeout=300, what="the classified failure")
    finally:
        halt.set()
        thread.join()
    run = EvaluationRun.objects.get(submission_id=submission_id)
    assert run.status == RunStatus.FAILED, (run.status, job().log)
    # a server SIGKILLed with nothing in its log reads as the host's out-of-memory killer; with a log
    # (vLLM's), as a server that stopped unexpectedly: never as the machine's or the user's fault
    assert run.failure_kind in (FailureKind.MODEL_LOAD, FailureKind.OUT_OF_MEMORY, FailureKind.ENDPOINT_ERROR), (
        run.failure_kind,
        run.failure_message,
    )
    assert "the model server for" in run.failure_message, run.failure_message
    assert "restarting it once" in job().log, job().log
    assert len(set(killed)) >= 2 and server_processes(digest) == []

    # the same worker process serves the next job to the end (from submission to score, as test_weights
    # checks it for transformers serve)
    pid_before = gpu_worker.proc.pid
    again = submit_model(client, model["slug"], [multi_lcb.slug], {"n": 1, "max_tokens": 8, "temperature": 0.0}).json()[
        "id"
    ]
    served_run_checks(again, "vllm" if worker_fixture == "vllm_gpu_worker" else "transformers", digest)
    assert gpu_worker.proc.pid == pid_before and gpu_worker.proc.poll() is None
    assert GenerationJob.objects.get(submission_id=again).worker.endswith(f":{pid_before}")
