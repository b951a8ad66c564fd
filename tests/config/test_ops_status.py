"""The operator's status page: staff only; with a real worker (and its embedded beat) on the real
broker it lists the worker on its queue, the messages waiting, a running run and the beat's last tick;
without workers it says which queue has none instead of failing."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.utils import timezone

from leaderboard.runs.models import EvaluationRun, RunStatus
from tests.conftest import wait_for
from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db(transaction=True)


def test_only_staff_see_the_status_page(client, user):
    assert client.get("/ops/status/").status_code == 302
    client.force_login(user)
    assert client.get("/ops/status/").status_code == 302  # to the admin's login, not the page


def test_the_page_shows_workers_queues_runs_and_the_beat(client, user, multi_lcb, celery_worker):
    with transaction.atomic():
        run = scored_run(multi_lcb, user, "busy", 0.5, items=36)
    EvaluationRun.objects.filter(pk=run.pk).update(
        status=RunStatus.RUNNING,
        started_at=timezone.now(),
        items_done=7,
        lease_expires_at=timezone.now() + timezone.timedelta(hours=1),
    )
    user.is_staff = True
    user.save()
    client.force_login(user)
    from leaderboard.ops import ops_status

    def ready() -> bool:
        # the queue drained too: an earlier test's run may have left messages on it (its helper
        # requests), which this worker consumes before the page can show none waiting
        status = ops_status()
        return not status.beat_late and any(q.workers and q.waiting == 0 for q in status.queues if q.name == "cpu")

    wait_for(ready, timeout=90, what="the worker and its beat, and the cpu queue drained")
    html = client.get("/ops/status/").content.decode()
    assert "Last tick" in html and "late" not in html
    status = ops_status()
    cpu = next(q for q in status.queues if q.name == "cpu")
    assert cpu.workers and cpu.workers[0].startswith("test") and cpu.waiting == 0
    assert "no worker answered on queue &#x27;arena&#x27;" in html  # the test worker consumes cpu only
    assert f"#{run.pk}" in html and "7 / 36" in html and "busy" in html


def test_the_page_says_when_no_worker_answers(client, user, db):
    user.is_staff = True
    user.save()
    client.force_login(user)
    html = client.get("/ops/status/").content.decode()
    assert "no worker answered on queue &#x27;cpu&#x27;" in html
