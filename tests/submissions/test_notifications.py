"""People are told when their work is done: a run scored by the real worker leaves its owner a
notification (with the headline score and its interval) and an email through Django's email backend
(the console by default, so it shows in the worker's output); a failed run says why; each outcome is
told once; baselines notify nobody; the notifications page marks them read."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.runs.models import EvaluationRun, FailureKind, Notification
from tests.conftest import wait_for
from tests.modelhost.conftest import api_for


@pytest.fixture
def niah(db):
    from evaluators.core import evaluator_for
    from leaderboard.catalog.models import Benchmark
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import

    benchmarks_sync()
    benchmark = Benchmark.objects.get(slug="video-niah-single")
    evaluator = evaluator_for("video-niah-single")
    dataset_version_import(benchmark=benchmark, release_path=evaluator.presentation().sample_dataset(), tag="sample")
    return benchmark, list(evaluator.import_release(evaluator.presentation().sample_dataset()))


def submit(user, benchmark, items, name: str = "frame-reader") -> int:
    data = "".join(json.dumps({"item_id": i.id, "output": str(i.payload["answer"])}) + "\n" for i in items).encode()
    response = api_for(user).post(
        "/api/submissions/",
        {"benchmark": benchmark.slug, "model_name": name, "predictions": SimpleUploadedFile("p.jsonl", data)},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return EvaluationRun.objects.get(submission_id=response.json()["id"]).pk


@pytest.mark.django_db(transaction=True)
def test_a_finished_run_tells_its_owner_on_the_page_and_by_email(niah, user, celery_worker, client, tmp_path):
    user.email = "ada@example.org"
    user.save()
    benchmark, items = niah
    run_id = submit(user, benchmark, items)
    wait_for(lambda: Notification.objects.filter(run_id=run_id).exists(), timeout=120, what="the notification")
    note = Notification.objects.get(run_id=run_id)
    assert note.user == user and note.title == f"Run #{run_id} finished: frame-reader on Video NIAH (single hop)"
    assert note.body.startswith("Accuracy (over the limit = miss): 100.0%") and "over 36 items" in note.body
    assert note.url.endswith(f"#run-{run_id}")
    wait_for(
        lambda: f"Subject: Run #{run_id} finished" in (tmp_path / "worker.log").read_text(),
        timeout=30,
        what="the email in the worker's console backend",
    )
    assert "To: ada@example.org" in (tmp_path / "worker.log").read_text()

    client.force_login(user)
    home = client.get("/").content.decode()
    assert 'Notifications <span class="badge">1</span>' in home
    page = client.get("/notifications/").content.decode()
    assert note.title in page and '<span class="badge">new</span>' in page and "emailed to ada@example.org" in page
    again = client.get("/notifications/").content.decode()
    assert '<span class="badge">new</span>' not in again and 'Notifications <span class="badge">' not in again


@pytest.mark.django_db(transaction=True)
def test_a_failed_run_says_why_once_and_baselines_tell_nobody(
    niah, user, mailoutbox, django_capture_on_commit_callbacks
):
    from leaderboard.runs import services

    user.email = "ada@example.org"
    user.save()
    benchmark, items = niah
    run_id = submit(user, benchmark, items)  # no worker: the run waits, and fails here
    with django_capture_on_commit_callbacks(execute=True):
        assert services.run_fail(
            run_id=run_id, kind=FailureKind.INFRASTRUCTURE, message="the sandbox could not start\ndetails"
        )
    with django_capture_on_commit_callbacks(execute=True):
        assert not services.run_fail(run_id=run_id, kind=FailureKind.INFRASTRUCTURE, message="again")
    notes = Notification.objects.filter(run_id=run_id)
    assert notes.count() == 1 and notes[0].title.startswith(f"Run #{run_id} failed")
    assert "the sandbox could not start" in notes[0].body and "details" not in notes[0].body
    assert len(mailoutbox) == 1 and mailoutbox[0].to == ["ada@example.org"] and "/submissions/" in mailoutbox[0].body

    from leaderboard.catalog.models import Model

    baseline = submit(user, benchmark, items, name="Random (baseline)")
    Model.objects.filter(name="Random (baseline)").update(is_reference=True)
    services.run_fail(run_id=baseline, kind=FailureKind.INFRASTRUCTURE, message="x")
    assert not Notification.objects.filter(run_id=baseline).exists()
