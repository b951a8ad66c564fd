"""The changelog is written by the real services that change a board, one test per kind; a private
model never appears in it for visitors (page, API), not even its earlier entries."""

from __future__ import annotations

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from leaderboard.catalog.models import Model
from leaderboard.chains import board_rows
from leaderboard.chains.datasets import dataset_version_import, dataset_version_make_current
from leaderboard.history.models import ChangeKind, ChangelogEntry
from leaderboard.runs.models import Submission
from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db

API = "/api/benchmarks/multi-lcb/changelog/"


def kinds() -> list[tuple[str, str]]:
    return [
        (e.kind, e.text)
        for e in ChangelogEntry.objects.order_by("at", "pk")
        if e.kind not in (ChangeKind.DATASET_ADDED,)
    ]


def test_a_first_public_row_and_a_run_replacing_it(multi_lcb, user):
    first = scored_run(multi_lcb, user, "Alpha", 0.5)
    second = scored_run(multi_lcb, user, "Alpha", 0.75)
    assert kinds() == [
        ("model_added", "Alpha added on dataset mini: 50.0%"),
        ("run_replaced", f"Alpha: run #{second.pk} replaced run #{first.pk} on dataset mini, 50.0% → 75.0%"),
    ]
    replaced = ChangelogEntry.objects.get(kind=ChangeKind.RUN_REPLACED)
    assert replaced.previous_headline == pytest.approx([0.5, 0.45, 0.55, 3]) and replaced.headline == pytest.approx(
        [0.75, 0.7, 0.8, 3]
    )
    assert (replaced.run, replaced.previous_run_id, replaced.model.name) == (second, first.pk, "Alpha")
    board_rows.leaderboard_entry_refresh(run=first)  # an older run delivered again changes nothing
    board_rows.leaderboards_rebuild()  # nor does rebuilding every row from the runs
    assert len(kinds()) == 2
    api = APIClient().get(API).json()
    assert [
        (e["kind"], e["model"], e["headline"][0], e["previous_headline"][0]) for e in api if e["kind"] == "run_replaced"
    ] == [("run_replaced", "alpha", 0.75, 0.5)]


def test_a_dataset_version_added_then_made_current(multi_lcb, mini_release, client):
    assert ChangelogEntry.objects.get().text.startswith(
        "dataset version mini (36 items, sha256 "
    )  # the fixture's import: 3 problems x 12 languages
    version = dataset_version_import(benchmark=multi_lcb, release_path=mini_release, tag="mini-2", make_current=False)
    dataset_version_make_current(version=version)
    texts = [e.text for e in ChangelogEntry.objects.order_by("at", "pk")]
    short = version.content_hash[:12]
    assert texts == [
        f"dataset version mini (36 items, sha256 {short}) added and made current",
        f"dataset version mini-2 (36 items, sha256 {short}) added",
        f"dataset version mini-2 (36 items, sha256 {short}) made current",
    ]
    assert list(multi_lcb.dataset_versions.filter(is_current=True).values_list("tag", flat=True)) == ["mini-2"]
    dataset_version_make_current(version=version)  # already current: nothing new
    assert ChangelogEntry.objects.count() == 3
    page = client.get("/benchmarks/multi-lcb/").content.decode()
    assert f"dataset version mini-2 (36 items, sha256 {short}) made current" in page
    assert "Dataset version made current" in client.get("/benchmarks/multi-lcb/changelog/").content.decode()


def test_a_model_made_private_leaves_no_public_entry(multi_lcb, user, client, django_user_model):
    scored_run(multi_lcb, user, "Secret-Omega", 0.6)
    assert "Secret-Omega added" in client.get("/benchmarks/multi-lcb/").content.decode()  # cached from here on
    model = Model.objects.get(name="Secret-Omega")
    model.is_public = False
    model.save()  # the admin's, API's and services' path: re-files the rows
    hidden = ChangelogEntry.objects.get(kind=ChangeKind.MODEL_HIDDEN)
    assert (hidden.is_public, hidden.text) == (
        False,
        "Secret-Omega hidden from dataset mini: the model was made private",
    )
    for path in ("/benchmarks/multi-lcb/", "/benchmarks/multi-lcb/changelog/"):
        assert "Secret-Omega" not in client.get(path).content.decode()
    assert "Secret-Omega" not in APIClient().get(API).content.decode()
    owner = APIClient()
    owner.force_authenticate(user)
    assert "Secret-Omega" not in owner.get(API).content.decode()  # its owner reads the public changelog too
    staff = APIClient()
    staff.force_authenticate(django_user_model.objects.create_user("boss", is_staff=True))
    assert "Secret-Omega hidden" in staff.get(API).content.decode()


def test_a_private_run_writes_nothing_and_a_withdrawn_submission_retires_the_row_for_staff_only(
    multi_lcb, user, other_user
):
    scored_run(multi_lcb, other_user, "Private-Psi", 0.9, public=False)
    assert not ChangelogEntry.objects.filter(model__isnull=False).exists()
    run = scored_run(multi_lcb, user, "Alpha", 0.5)
    submission = Submission.objects.get(pk=run.submission_id)
    submission.is_public = False
    submission.save()
    retired = ChangelogEntry.objects.get(kind=ChangeKind.MODEL_RETIRED)
    assert (retired.is_public, retired.text) == (
        False,
        "Alpha retired from dataset mini: its submission was made private or withdrawn",
    )
    assert "Alpha" not in APIClient().get(API).content.decode()  # nor its earlier entries: their run is private now
    assert retired.previous_headline == pytest.approx([0.5, 0.45, 0.55, 3])
    submission.is_public = True
    submission.save()
    back = ChangelogEntry.objects.get(kind=ChangeKind.MODEL_RETURNED)
    assert back.text == "Alpha back on the board on dataset mini: 50.0%"


def test_an_older_public_run_taking_the_row_back_is_a_replacement(multi_lcb, user):
    old = scored_run(multi_lcb, user, "Alpha", 0.5, finished_at=timezone.now() - timezone.timedelta(days=1))
    new = scored_run(multi_lcb, user, "Alpha", 0.7)
    submission = Submission.objects.get(pk=new.submission_id)
    submission.is_public = False
    submission.save()
    entry = ChangelogEntry.objects.filter(kind=ChangeKind.RUN_REPLACED).order_by("-pk").first()
    assert entry is not None and entry.text == (
        f"Alpha: run #{old.pk} took the row back from run #{new.pk} on dataset mini "
        "(the later run left the public board), 70.0% → 50.0%"
    )


def test_a_new_evaluator_version_or_judge_on_the_board(multi_lcb, user):
    scored_run(multi_lcb, user, "Alpha", 0.5, evaluator_version="ev1", judge={"label": "judge-a"})
    beta = scored_run(multi_lcb, user, "Beta", 0.6, evaluator_version="ev2", judge={"label": "judge-b"})
    scored_run(multi_lcb, user, "Gamma", 0.6, evaluator_version="ev2", judge={"label": "judge-b"})  # not new any more
    assert [
        (e.kind, e.text)
        for e in ChangelogEntry.objects.filter(
            kind__in=[ChangeKind.EVALUATOR_CHANGED, ChangeKind.JUDGE_CHANGED]
        ).order_by("pk")
    ] == [
        ("evaluator_changed", f"evaluator version ev2 first used (by run #{beta.pk}); other rows were scored by ev1"),
        ("judge_changed", f"judge judge-b first used (by run #{beta.pk}); other rows were judged by judge-a"),
    ]
