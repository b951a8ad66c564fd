"""Staff freeze boards from the admin: the snapshot form (a board, a reason, the snapshot it corrects) and
the benchmarks' action; a stored snapshot opens read-only and cannot be deleted."""

from __future__ import annotations

import pytest
from django.test import Client

from leaderboard.history.models import Snapshot
from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db


def test_staff_freeze_from_the_form_and_the_action_and_cannot_edit(multi_lcb, user, staff_user):
    scored_run(multi_lcb, user, "Alpha", 0.8)
    staff = Client()
    staff.force_login(staff_user)
    response = staff.post(
        "/admin/history/snapshot/add/", {"benchmark": multi_lcb.pk, "reason": "for the workshop", "corrects": ""}
    )
    assert response.status_code == 302, response.content.decode()[-2000:]
    first = Snapshot.objects.get()
    assert (first.reason, first.created_by, [r["model"] for r in first.rows]) == (
        "for the workshop",
        staff_user,
        ["Alpha"],
    )
    response = staff.post(
        "/admin/catalog/benchmark/", {"action": "freeze_snapshots", "_selected_action": [multi_lcb.pk]}, follow=True
    )
    assert f"Snapshot #{first.pk + 1} of multi-lcb frozen (1 row)" in response.content.decode()
    assert Snapshot.objects.count() == 2
    change = staff.post(
        f"/admin/history/snapshot/{first.pk}/change/", {"benchmark": multi_lcb.pk, "reason": "rewritten"}
    )
    assert change.status_code == 403 and Snapshot.objects.get(pk=first.pk).reason == "for the workshop"
    assert staff.post(f"/admin/history/snapshot/{first.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Snapshot.objects.count() == 2
