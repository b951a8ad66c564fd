"""Registration rules, the pages for registering, uploading and pre-flight, the upload command,
and the worker rules (solo pool on GPU queues, no torch in the Celery process). No worker needed."""

from __future__ import annotations

import subprocess
import sys

import pytest
from django.core.management import call_command
from django.test import override_settings

from evaluators.llm.tiny import create_tiny_model
from leaderboard import task_sends
from leaderboard.catalog.models import Model
from leaderboard.chains.demo import demo_model_submit
from leaderboard.modelhost import demo as demo_model
from leaderboard.modelhost import secrets, services
from leaderboard.modelhost.models import WeightsUpload
from leaderboard.runs import services as submissions
from leaderboard.runs.generation import jobs
from tests.conftest import REPO
from tests.modelhost.conftest import api_for

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_broker(sent_tasks):
    """Nothing is sent to a queue in these tests: record what would be."""
    return sent_tasks


def test_registration_names_the_field_at_fault(user):
    cases = [
        ({"source": "hf", "hf_repo": "not a repo"}, "hf_repo"),
        ({"source": "hf", "hf_repo": "org/model"}, "hf_revision"),
        ({"source": "endpoint", "endpoint_base_url": "ftp://x"}, "endpoint_base_url"),
        ({"source": "endpoint", "endpoint_base_url": "http://x/v1"}, "endpoint_model"),
        ({"source": "weights"}, "weights_upload"),
    ]
    for fields, field in cases:
        with pytest.raises(services.ModelRefused) as refused:
            services.model_register(owner=user, name="m", spec=services.ModelSource(**fields))
        assert refused.value.field == field and field in str(refused.value)


def test_key_encrypted_submission_refused_until_preflight_passes(
    user, multi_lcb, no_broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        model = services.model_register(
            owner=user,
            name="api-model",
            spec=services.ModelSource(
                source="endpoint",
                endpoint_base_url="http://127.0.0.1:9/v1",
                endpoint_model="m",
                endpoint_api_key="sk-abc-123",
            ),
        )
    assert task_sends.Message(task_sends.PREFLIGHT_MODEL, (model.pk,), "interactive") in no_broker
    stored = Model.objects.get(pk=model.pk)
    assert (
        "sk-abc-123" not in stored.endpoint_api_key_encrypted
        and secrets.decrypt(stored.endpoint_api_key_encrypted) == "sk-abc-123"
    )
    with pytest.raises(submissions.SubmissionRefused, match="has not finished yet"):
        submissions.submission_create_for_model(owner=user, model=stored, benchmarks=[multi_lcb])
    Model.objects.filter(pk=model.pk).update(
        preflight_status="failed", preflight_report={"ok": False, "problems": [["base_url", "not reachable"]]}
    )
    with pytest.raises(submissions.SubmissionRefused, match="base_url: not reachable"):
        submissions.submission_create_for_model(
            owner=user, model=Model.objects.get(pk=model.pk), benchmarks=[multi_lcb]
        )


def test_secrets_key_from_setting_and_a_changed_key_is_a_clear_error():
    from cryptography.fernet import Fernet

    key = Fernet.generate_key().decode()
    with override_settings(SECRETS_KEY=key):
        token = secrets.encrypt("sk-1")
        assert Fernet(key.encode()).decrypt(token.encode()) == b"sk-1"
    with pytest.raises(ValueError, match="cannot be decrypted"):
        secrets.decrypt(token)  # now the key derived from SECRET_KEY


def test_register_page_never_renders_the_key_and_preflight_fragment_polls(client, user):
    client.force_login(user)
    page = client.get("/models/register/")
    assert page.status_code == 200 and 'type="password"' in page.content.decode()
    response = client.post(
        "/models/register/",
        {
            "name": "hosted",
            "source": "endpoint",
            "modality": "text",
            "is_public": "on",
            "endpoint_base_url": "http://127.0.0.1:9/v1",
            "endpoint_model": "m",
            "endpoint_api_key": "sk-write-only-777",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    model = Model.objects.get(name="hosted")
    page = client.get(f"/models/{model.slug}/").content.decode()
    assert "an API key is set" in page and "sk-write-only-777" not in page and 'hx-trigger="every 2s"' in page
    fragment = client.get(f"/models/{model.slug}/preflight/", HTTP_HX_REQUEST="true").content.decode()
    assert "Pending" in fragment and "<html" not in fragment
    Model.objects.filter(pk=model.pk).update(
        preflight_status="passed", preflight_report={"ok": True, "problems": [], "facts": {"models": 1}}
    )
    page = client.get(f"/models/{model.slug}/").content.decode()
    assert "Submit this model" in page and "every 2s" not in page


def test_upload_page_and_no_javascript_fallback(client, user, tmp_path):
    from django.core.files.uploadedfile import SimpleUploadedFile

    client.force_login(user)
    page = client.get("/models/upload/").content.decode()
    assert "js/upload.js" in page and "tar archive of the model directory" in page
    response = client.post("/models/upload/", {"archive": SimpleUploadedFile("m.tar", b"x" * 1000)})
    assert response.status_code == 302
    upload = WeightsUpload.objects.get(owner=user)
    assert upload.status == "complete" and upload.size == 1000 and upload.parts.count() == 1


@override_settings(UPLOAD_PART_BYTES=5 * 1024 * 1024)
def test_upload_weights_command_uploads_and_registers(user, tmp_path, no_broker, django_capture_on_commit_callbacks):
    directory = create_tiny_model(tmp_path / "tiny")
    with django_capture_on_commit_callbacks(execute=True):
        call_command("upload_weights", str(directory), "--model", "cli-tiny", "--owner", user.username)
    model = Model.objects.get(name="cli-tiny")
    assert model.source == "weights" and model.weights_upload.status == "complete"
    assert task_sends.Message(task_sends.PREFLIGHT_MODEL, (model.pk,), "interactive") in no_broker


def test_api_registration_hides_the_key(user):
    client = api_for(user)
    response = client.post(
        "/api/models/",
        {
            "name": "x",
            "source": "endpoint",
            "endpoint_base_url": "http://127.0.0.1:9/v1",
            "endpoint_model": "m",
            "endpoint_api_key": "sk-api-999",
        },
        format="json",
    )
    assert (
        response.status_code == 201 and "sk-api-999" not in response.content.decode() and response.json()["has_api_key"]
    )
    refused = client.post("/api/models/", {"name": "y", "source": "hf", "hf_repo": "org/m"}, format="json")
    assert refused.status_code == 400 and refused.json()["field"] == "hf_revision"


def test_gpu_worker_refuses_a_prefork_pool():
    result = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "workers.celery", "worker", "-Q", "gpu-local", "--concurrency", "1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0 and "need the solo pool (--pool solo)" in result.stdout + result.stderr


def test_generation_never_imports_torch_in_the_worker_process():
    code = (
        "import django, os, sys; os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'leaderboard.settings'); "
        "django.setup();"
        "import workers.tasks, leaderboard.runs.generation.worker, evaluators.llm.server, evaluators.llm.client;"
        "print(sorted(m for m in ('torch', 'transformers', 'vllm') if m in sys.modules))"
    )
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_demo_model_is_public_weights_anyone_can_submit_once_preflighted(
    user, multi_lcb, no_broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        demo = demo_model.demo_model_ensure()
    assert demo_model.demo_model_ensure().pk == demo.pk  # idempotent
    assert demo.source == "weights" and demo.is_public and "random weights" in demo.name
    Model.objects.filter(pk=demo.pk).update(preflight_status="passed")
    with django_capture_on_commit_callbacks(execute=True):
        submission = submissions.submission_create_for_model(
            owner=user,
            model=Model.objects.get(pk=demo.pk),
            benchmarks=[multi_lcb],
            generation_settings={"max_tokens": 16},
        )
    assert task_sends.Message(task_sends.GENERATE_SUBMISSION, (submission.generation.pk,), "gpu-local") in no_broker
    assert submission.runs.get().phase == "generating"
    # the model's defaults (one short sample: its answers are noise) under the submitter's own settings
    assert submission.generation_settings == {"n": 1, "max_tokens": 16}
    with django_capture_on_commit_callbacks(execute=True):
        plain = submissions.submission_create_for_model(
            owner=user, model=Model.objects.get(pk=demo.pk), benchmarks=[multi_lcb]
        )
    assert plain.generation_settings == demo_model.DEMO_GENERATION


def test_the_demo_model_submits_itself_once_to_each_benchmark_with_a_dataset(
    user, multi_lcb, no_broker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        demo = demo_model.demo_model_ensure()
    Model.objects.filter(pk=demo.pk).update(
        preflight_status="passed"
    )  # what model_preflight_run does before calling it
    demo = Model.objects.get(pk=demo.pk)
    with django_capture_on_commit_callbacks(execute=True):
        submission = demo_model_submit(model=demo)
    assert [run.benchmark for run in submission.runs.all()] == [multi_lcb]  # PoliCon has no dataset in this test
    assert submission.owner == demo.owner and submission.generation_settings == demo_model.DEMO_GENERATION
    assert demo_model_submit(model=demo) is None  # once per benchmark
    Model.objects.filter(pk=demo.pk).update(owner=user)  # anyone else's model is never submitted for them
    assert demo_model_submit(model=Model.objects.get(pk=demo.pk)) is None


def test_nobody_else_can_submit_an_endpoint_model(user, other_user, multi_lcb):
    model = services.model_register(
        owner=user,
        name="mine",
        spec=services.ModelSource(
            source="endpoint", endpoint_base_url="http://127.0.0.1:9/v1", endpoint_model="m", endpoint_api_key="sk-x"
        ),
    )
    Model.objects.filter(pk=model.pk).update(preflight_status="passed")
    with pytest.raises(submissions.SubmissionRefused, match="belongs to another user"):
        submissions.submission_create_for_model(
            owner=other_user, model=Model.objects.get(pk=model.pk), benchmarks=[multi_lcb]
        )


def test_a_run_left_waiting_by_a_finished_job_gets_the_job_queued_again(
    user, multi_lcb, no_broker, django_capture_on_commit_callbacks
):
    import datetime as dt

    from django.utils import timezone

    from leaderboard.runs.models import EvaluationRun, GenerationJob

    model = services.model_register(
        owner=user,
        name="api",
        spec=services.ModelSource(source="endpoint", endpoint_base_url="http://127.0.0.1:9/v1", endpoint_model="m"),
    )
    Model.objects.filter(pk=model.pk).update(preflight_status="passed")
    submission = submissions.submission_create_for_model(
        owner=user, model=Model.objects.get(pk=model.pk), benchmarks=[multi_lcb]
    )
    GenerationJob.objects.filter(submission=submission).update(status="succeeded")
    EvaluationRun.objects.filter(submission=submission).update(queued_at=timezone.now() - dt.timedelta(hours=1))
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.generation_jobs_requeue_expired() == (1, 0)
    job = GenerationJob.objects.get(submission=submission)
    assert job.status == "queued" and task_sends.Message(task_sends.GENERATE_SUBMISSION, (job.pk,), "cpu") in no_broker


def test_a_repeated_preflight_request_queues_nothing_while_one_is_pending(user, monkeypatch, settings):
    """One token once queued 252 pre-flights on the runs' queue: now a pending one must finish first,
    unless it was queued long enough ago that its message may have been lost."""
    queued: list[int] = []
    monkeypatch.setattr(task_sends, "preflight_model", queued.append)
    model = services.model_register(
        owner=user,
        name="hosted",
        spec=services.ModelSource(
            source=Model.SOURCE_ENDPOINT, endpoint_base_url="http://127.0.0.1:9/v1", endpoint_model="m"
        ),
    )
    assert len(queued) == 1  # registering queues the first
    api = api_for(user)
    for _ in range(5):
        again = api.post(f"/api/models/{model.slug}/preflight/")
        assert again.status_code == 409 and "already queued" in again.json()["detail"]
    assert len(queued) == 1
    Model.objects.filter(pk=model.pk).update(preflight_status=Model.PREFLIGHT_FAILED)
    assert (
        api.post(f"/api/models/{model.slug}/preflight/").status_code == 202 and len(queued) == 2
    )  # a finished one: again
    settings.PREFLIGHT_REQUEUE_AFTER = 0
    assert (
        api.post(f"/api/models/{model.slug}/preflight/").status_code == 202 and len(queued) == 3
    )  # a stale pending one
