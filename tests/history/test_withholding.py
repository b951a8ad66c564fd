"""Takedowns that keep snapshots honest (issue 44): a frozen row whose submission or model was made private,
whose run was deleted, or that staff withheld, leaves the snapshot's page, API and downloads with a public
note ("1 row withheld on <date>: <reason>"), while the stored bytes and their sha256 stay as frozen; no
public text names a staff member; full addresses are on the host the site was asked at."""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json

import pyarrow.parquet as pq
import pytest
from django.test import Client
from rest_framework.test import APIClient

from leaderboard.catalog.models import Model
from leaderboard.history.models import Snapshot, SnapshotWithholding
from leaderboard.history.services import SnapshotRefused, snapshot_freeze, snapshot_row_withhold
from tests.support.factories import run_make, scored_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def board(multi_lcb, user):
    """Alpha 0.80 [0.75, 0.85] rank 1, Gamma 0.52 [0.47, 0.57] rank 2, Beta 0.50 [0.45, 0.55] rank 2."""
    return {
        name: scored_run(multi_lcb, user, name, value)
        for name, value in (("Alpha", 0.80), ("Beta", 0.50), ("Gamma", 0.52))
    }


@pytest.fixture
def staffer(django_user_model):
    return django_user_model.objects.create_user(
        "quentin-staffer", password="pw", first_name="Quentin", last_name="Marlowe", is_staff=True, is_superuser=True
    )


def day_of(record: SnapshotWithholding) -> str:
    return f"{record.at.astimezone(dt.UTC):%Y-%m-%d}"


def served(client: Client, snapshot: Snapshot, fmt: str):
    response = client.get(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/download.{fmt}")
    assert response.status_code == 200
    return response


def test_a_row_made_private_is_withheld_from_the_snapshots_page_api_and_downloads_with_its_note(
    client, multi_lcb, board
):
    snapshot = snapshot_freeze(benchmark=multi_lcb, reason="release 1")
    stored = {fmt: bytes(getattr(snapshot, f"{fmt}_bytes")) for fmt in ("csv", "json", "parquet")}
    beta = board["Beta"]
    submission = beta.submission
    submission.is_public = False
    submission.save()

    record = SnapshotWithholding.objects.get()
    note = f"1 row withheld on {day_of(record)}: the submission was made private"
    page = client.get(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/").content.decode()
    assert note + "." in page and "Beta" not in page
    assert "3 rows frozen, 1 withheld" in page
    for fmt in ("csv", "json", "parquet"):  # the stored files' digests stay shown
        assert f'<code class="digest">{hashlib.sha256(stored[fmt]).hexdigest()}</code>' in page

    api = APIClient().get(f"/api/benchmarks/multi-lcb/snapshots/{snapshot.pk}/").json()
    assert [(r["model"], r["rank"]) for r in api["rows"]] == [("Alpha", 1), ("Gamma", 2)]
    assert api["withheld"] == [
        {"rows": 1, "on": day_of(record), "reason": "the submission was made private", "text": note}
    ]
    assert (api["rows_frozen"], api["json_sha256"]) == (3, hashlib.sha256(stored["json"]).hexdigest())
    assert "Beta" not in json.dumps(api) and f'"run": {beta.pk},' not in json.dumps(api)

    for fmt in ("csv", "json", "parquet"):
        response = served(client, snapshot, fmt)
        assert response.content != stored[fmt] and b"Beta" not in response.content
        assert response["X-Content-SHA256"] == hashlib.sha256(response.content).hexdigest()
        assert response["X-Stored-SHA256"] == hashlib.sha256(stored[fmt]).hexdigest()
        assert response["X-Withheld"] == note and "immutable" not in response["Cache-Control"]
        assert f"multi-lcb-snapshot-{snapshot.pk}-redacted.{fmt}" in response["Content-Disposition"]
    lines = list(csv.reader(io.StringIO(served(client, snapshot, "csv").content.decode())))
    assert [(line[0], line[1], line[3]) for line in lines[1:]] == [
        ("1", "Alpha", str(board["Alpha"].pk)),
        ("2", "Gamma", str(board["Gamma"].pk)),
    ]
    data = json.loads(served(client, snapshot, "json").content)
    assert [r["model"] for r in data["rows"]] == ["Alpha", "Gamma"] and submission.pk not in [
        r["submission"] for r in data["rows"]
    ]
    assert (data["reason"], data["withheld"]) == ("release 1", [note])
    assert data["stored_sha256"] == {fmt: hashlib.sha256(stored[fmt]).hexdigest() for fmt in ("csv", "json", "parquet")}
    table = pq.read_table(io.BytesIO(served(client, snapshot, "parquet").content))
    assert table.column("model").to_pylist() == ["Alpha", "Gamma"]

    submission.is_public = True  # public again: the row is back and the stored bytes are served as frozen
    submission.save()
    assert not SnapshotWithholding.objects.exists()
    for fmt in ("csv", "json", "parquet"):
        response = served(client, snapshot, fmt)
        assert (
            response.content == stored[fmt] and response["X-Content-SHA256"] == hashlib.sha256(stored[fmt]).hexdigest()
        )
    assert "Beta" in client.get(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/").content.decode()


def test_a_model_made_private_and_a_deleted_run_each_leave_a_dated_note(client, multi_lcb, board):
    snapshot = snapshot_freeze(benchmark=multi_lcb, reason="release 1")
    gamma = Model.objects.get(name="Gamma")
    gamma.is_public = False
    gamma.save()
    board["Beta"].submission.delete()
    hidden, deleted = (SnapshotWithholding.objects.get(run_id=board[name].pk) for name in ("Gamma", "Beta"))
    assert (hidden.reason, deleted.reason) == ("the model was made private", "the run was deleted")
    api = APIClient().get(f"/api/benchmarks/multi-lcb/snapshots/{snapshot.pk}/").json()
    assert [r["model"] for r in api["rows"]] == ["Alpha"]
    assert sorted(n["text"] for n in api["withheld"]) == [
        f"1 row withheld on {day_of(hidden)}: the model was made private",
        f"1 row withheld on {day_of(deleted)}: the run was deleted",
    ]
    page = client.get(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/").content.decode()
    assert (
        "Gamma" not in page
        and "Beta" not in page
        and f"1 row withheld on {day_of(deleted)}: the run was deleted." in page
    )


def test_staff_withhold_a_row_by_moderation_with_a_public_reason_that_names_no_staff(client, multi_lcb, board, staffer):
    snapshot = snapshot_freeze(benchmark=multi_lcb, reason="release 1")
    staff = Client()
    staff.force_login(staffer)
    refused = staff.post(
        "/admin/history/snapshotwithholding/add/",
        {
            "snapshot": snapshot.pk,
            "run_id": board["Gamma"].pk,
            "reason": "removed by quentin-staffer after a complaint",
        },
    )
    assert refused.status_code == 200 and "names a staff member" in refused.content.decode()
    wrong = staff.post(
        "/admin/history/snapshotwithholding/add/", {"snapshot": snapshot.pk, "run_id": 999999, "reason": "a complaint"}
    )
    assert f"run #999999 has no row in snapshot #{snapshot.pk}" in wrong.content.decode()
    assert not SnapshotWithholding.objects.exists()
    done = staff.post(
        "/admin/history/snapshotwithholding/add/",
        {"snapshot": snapshot.pk, "run_id": board["Gamma"].pk, "reason": "its answers were copied from the test set"},
    )
    assert done.status_code == 302, done.content.decode()[-2000:]
    record = SnapshotWithholding.objects.get()
    assert (record.cause, record.created_by) == ("moderated", staffer)

    Model.objects.get(name="Gamma").save()  # the model's rows filed again: a moderated row stays withheld
    page = client.get(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/").content.decode()
    assert (
        f"1 row withheld on {day_of(record)}: its answers were copied from the test set." in page
        and "Gamma" not in page
    )
    api = APIClient().get(f"/api/benchmarks/multi-lcb/snapshots/{snapshot.pk}/").content.decode()
    assert "Gamma" not in api and "quentin" not in api.lower() and "marlowe" not in api.lower()
    with pytest.raises(SnapshotRefused, match=r"run_id: the row of run #.* by moderation already"):
        snapshot_row_withhold(snapshot=snapshot, run_id=board["Gamma"].pk, reason="again", user=staffer)
    with pytest.raises(SnapshotRefused, match="reason: names a staff member"):
        snapshot_row_withhold(snapshot=snapshot, run_id=board["Beta"].pk, reason="Marlowe says so", user=staffer)


def test_freezing_from_the_admin_action_publishes_no_staff_name(client, multi_lcb, board, staffer):
    staff = Client()
    staff.force_login(staffer)
    response = staff.post(
        "/admin/catalog/benchmark/", {"action": "freeze_snapshots", "_selected_action": [multi_lcb.pk]}, follow=True
    )
    snapshot = Snapshot.objects.get()
    assert (
        f"Snapshot #{snapshot.pk} of multi-lcb frozen (3 rows)" in response.content.decode()
        and snapshot.created_by == staffer
    )
    visitor, api = Client(), APIClient()
    public = [
        visitor.get(path).content
        for path in (
            f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/",
            "/benchmarks/multi-lcb/snapshots/",
            "/benchmarks/multi-lcb/changelog/",
            "/benchmarks/multi-lcb/",
            *(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/download.{fmt}" for fmt in ("csv", "json", "parquet")),
        )
    ]
    public += [
        api.get(path).content
        for path in (
            f"/api/benchmarks/multi-lcb/snapshots/{snapshot.pk}/",
            "/api/benchmarks/multi-lcb/snapshots/",
            "/api/benchmarks/multi-lcb/changelog/",
        )
    ]
    for body in public:
        assert b"quentin" not in body.lower() and b"marlowe" not in body.lower()
    form = staff.post(
        "/admin/history/snapshot/add/",
        {"benchmark": multi_lcb.pk, "reason": "asked for by Quentin Marlowe", "corrects": ""},
    )
    assert form.status_code == 200 and "names a staff member" in form.content.decode() and Snapshot.objects.count() == 1


def test_permanent_addresses_and_the_citation_use_the_host_the_site_was_asked_at(multi_lcb, board, settings):
    settings.SITE_URL = ""
    snapshot = snapshot_freeze(benchmark=multi_lcb, reason="release 1")
    path = f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/"
    for host in ("127.0.0.1:8123", "localhost:9000"):  # the second host is not served the first's cached page
        page = Client(HTTP_HOST=host).get(path).content.decode()
        assert (
            f"<code>http://{host}{path}</code>" in page and f"howpublished = {{\\url{{http://{host}{path}}}}}" in page
        )
        assert "127.0.0.1:8000" not in page
        api = APIClient(HTTP_HOST=host).get(f"/api{path}").json()
        assert api["url"] == f"http://{host}{path}" and f"\\url{{http://{host}{path}}}" in api["citation"]["bibtex"]
        assert api["downloads"]["csv"] == f"http://{host}{path}download.csv"
        listed = APIClient(HTTP_HOST=host).get("/api/benchmarks/multi-lcb/snapshots/").json()
        assert [s["url"] for s in listed] == [f"http://{host}{path}"]
    settings.SITE_URL = "https://boards.example.org"  # the site's public address, when set, wins
    assert (
        "<code>https://boards.example.org/benchmarks/" in Client(HTTP_HOST="127.0.0.1:8124").get(path).content.decode()
    )


def test_a_run_cancelled_from_the_admin_names_no_staff_on_its_public_page(multi_lcb, user, staffer):
    from leaderboard.runs.models import RunStatus

    model = Model.objects.create(owner=user, name="Delta", slug="delta")
    run = run_make(multi_lcb, user, model, status=RunStatus.QUEUED)
    staff = Client()
    staff.force_login(staffer)
    staff.post(
        "/admin/submissions/evaluationrun/", {"action": "cancel_runs", "_selected_action": [run.pk]}, follow=True
    )
    run.refresh_from_db()
    assert run.status == RunStatus.CANCELLED and run.log.strip().endswith("cancelled by the site's staff")
    page = Client().get(f"/submissions/{run.submission_id}/").content.decode()
    assert "cancelled by the site&#x27;s staff" in page and "quentin" not in page.lower()
