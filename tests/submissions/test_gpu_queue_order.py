"""A newcomer's own model does not wait behind the demo model's baseline generation: the site's generation
jobs go to the GPU queue at the broker's lowest priority, so the queue's one worker (solo pool, as
scripts/run-embedded starts it) takes a person's job first, even one sent after all of them. Real Redis and
a real Celery worker; the jobs have no run waiting, so each ends at once ("nothing to load") and only the
order is measured (with one plain queue the person's would start last)."""

from __future__ import annotations

import sys
import time

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from leaderboard import task_sends
from leaderboard.catalog.models import Model
from leaderboard.catalog.services import model_get_or_create
from leaderboard.runs.models import GenerationJob, Submission
from leaderboard.runs.services.runs import generation_job_queue
from leaderboard.runs.work_kinds import DEMO_OWNER
from tests.conftest import Worker, wait_for
from tests.support.factories import submission_make

pytestmark = pytest.mark.django_db(transaction=True)

BASELINES = 4


class SoloWorker(Worker):
    """The GPU queue's worker as the launch scripts start it: solo pool, one task at a time, no beat."""

    def start(self) -> None:
        self.launch(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "workers.celery",
                "worker",
                "-Q",
                self.queues,
                "--pool",
                "solo",
                "--concurrency",
                "1",
                "--loglevel",
                "INFO",
                "-n",
                f"gpu{time.monotonic_ns()}@%h",
            ]
        )


def _job(owner, name: str) -> GenerationJob:
    model = model_get_or_create(owner=owner, name=name, is_public=True)
    Model.objects.filter(pk=model.pk).update(source=Model.SOURCE_WEIGHTS)
    submission = Submission.objects.select_related("model", "owner").get(pk=submission_make(owner, model).pk)
    return generation_job_queue(submission=submission)


def test_a_persons_generation_job_sent_after_the_demos_starts_before_them(user, worker_env, tmp_path):
    gpu = task_sends.gpu_queue(settings.GPU_KIND)
    demo = get_user_model().objects.create(username=DEMO_OWNER, is_active=False)
    baselines = [_job(demo, f"tiny-llama {i}") for i in range(BASELINES)]
    mine = _job(user, "my-tiny-model")  # sent last
    assert {job.queue for job in [*baselines, mine]} == {gpu}
    worker = SoloWorker(worker_env, tmp_path / "gpu.log", queues=gpu, beat=False)
    worker.start()
    try:
        ids = [job.pk for job in [*baselines, mine]]
        wait_for(
            lambda: all(j.is_finished for j in GenerationJob.objects.filter(pk__in=ids)), timeout=180, what="every job"
        )
    finally:
        worker.stop()
        print((tmp_path / "gpu.log").read_text(errors="replace")[-3000:])
    started = dict(GenerationJob.objects.filter(pk__in=ids).values_list("pk", "started_at"))
    assert all(started[job.pk] > started[mine.pk] for job in baselines), started
    order = sorted(started, key=lambda pk: started[pk])
    assert order == [mine.pk, *(job.pk for job in baselines)], order  # then the demo's, in the order they came
