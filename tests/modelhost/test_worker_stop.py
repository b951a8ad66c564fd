"""A GPU worker stopped (SIGTERM to its process group, as scripts/run-embedded's Ctrl-C and the tests'
Worker.stop send it) while its generation job has `transformers serve` up stops that server, which runs in
its own process group and so gets no signal of the worker's: the server's process is gone (killed and
reaped), not left running for the next `make run` to trip over; the job is left to be queued again."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from django.test import override_settings

from leaderboard.catalog.models import Model
from leaderboard.runs.models import GenerationJob
from tests.conftest import wait_for
from tests.modelhost.conftest import api_for, register, submit_model
from tests.modelhost.test_weights import PART, model_archive, server_processes, upload_in_parts

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.toolchains]


def _alive(pid: int) -> bool:
    """A process that exists and is not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


@override_settings(UPLOAD_PART_BYTES=PART)
def test_a_stopped_gpu_worker_stops_its_model_server(multi_lcb, user, celery_worker, gpu_worker, tmp_path):
    client = api_for(user)
    data = model_archive(tmp_path)
    digest = hashlib.sha256(data).hexdigest()
    model = register(client, name="tiny-llama", source="weights", weights_upload=upload_in_parts(client, data))
    wait_for(
        lambda: Model.objects.get(slug=model["slug"]).preflight_status != "pending", timeout=120, what="the pre-flight"
    )
    # random weights rarely stop before max_tokens: the job is still loading or generating when the worker is stopped
    submission_id = submit_model(
        client, model["slug"], [multi_lcb.slug], {"n": 1, "max_tokens": 2048, "temperature": 1.0}
    ).json()["id"]
    job = lambda: GenerationJob.objects.get(submission_id=submission_id)  # noqa: E731
    wait_for(lambda: bool(server_processes(digest)) or job().is_finished, timeout=300, what="the job's model server")
    assert not job().is_finished, job().log
    servers = server_processes(digest)
    assert gpu_worker.proc is not None and gpu_worker.proc.poll() is None

    gpu_worker.stop()  # SIGTERM to the worker's process group; SIGKILL after 20 s if it is still there

    assert gpu_worker.proc.returncode is not None
    wait_for(lambda: not any(_alive(pid) for pid in servers), timeout=60, what="the model server to be gone")
    assert server_processes(digest) == []
    assert "model server(s) stopped (0 left)" in gpu_worker.log_path.read_text(errors="replace")
    assert not job().is_finished  # not failed: its lease lapses and the reaper queues it again
