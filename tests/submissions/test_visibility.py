"""A leaderboard row's visibility follows its model and its submission wherever either changes (the
admin, a service, even a bulk update that sends no signal): a row made private leaves the page, the
cached page, the API and the downloads at once; private rows belong to their submitter, so one user's
private run never lands on another's row."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from rest_framework.test import APIClient

from leaderboard.catalog.models import Model
from leaderboard.chains import board_rows
from leaderboard.runs.models import LeaderboardEntry, Submission
from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db

BOARD = "/benchmarks/multi-lcb/"
API = "/api/benchmarks/multi-lcb/leaderboard/"


class _Form(HTMLParser):
    """The fields an admin change form would send back as it stands."""

    def __init__(self) -> None:
        super().__init__()
        self.data: dict[str, str] = {}
        self._select: str | None = None
        self._textarea: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "input" and a.get("name") and a.get("type") not in {"submit", "button"}:
            if a.get("type") != "checkbox":
                self.data[a["name"]] = a.get("value", "")
            elif "checked" in a:
                self.data[a["name"]] = a.get("value", "on")
        elif tag == "select":
            self._select = a.get("name")
        elif tag == "option" and self._select and "selected" in a:
            self.data[self._select] = a.get("value", "")
        elif tag == "textarea":
            self._textarea = a.get("name")
            self.data.setdefault(self._textarea or "", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        elif tag == "textarea":
            self._textarea = None

    def handle_data(self, data: str) -> None:
        if self._textarea:
            self.data[self._textarea] += data


def admin_untick_public(staff: Client, path: str) -> None:
    """What staff do: open the change form, untick "public", save."""
    form = _Form()
    form.feed(staff.get(path).content.decode())
    data = {k: v for k, v in form.data.items() if k != "is_public"}
    answer = staff.post(path, data)
    assert answer.status_code == 302, re.findall(r"errorlist.{0,300}", answer.content.decode())


def visitor_sees(name: str) -> dict[str, bool]:
    """Where an anonymous visitor finds ``name``: the page (twice: fresh and cached), the API, the CSV."""
    first, second = Client().get(BOARD), Client().get(BOARD)
    assert second["X-Page-Cache"] == "hit"
    return {
        "page": name in first.content.decode(),
        "cached page": name in second.content.decode(),
        "api": name in APIClient().get(API).content.decode(),
        "csv": name in Client().get(BOARD + "?format=csv").content.decode(),
    }


@pytest.fixture
def staff(django_user_model) -> Client:
    client = Client()
    client.force_login(
        django_user_model.objects.create_user(
            "staffer", password="a-long-test-password", is_staff=True, is_superuser=True
        )
    )
    return client


EVERYWHERE = {"page": True, "cached page": True, "api": True, "csv": True}
NOWHERE = {"page": False, "cached page": False, "api": False, "csv": False}


def test_a_submission_made_private_in_the_admin_leaves_every_public_view(multi_lcb, user, staff):
    run = scored_run(multi_lcb, user, "alpha-secret-run", 0.4)
    scored_run(multi_lcb, user, "beta-stays", 0.6)
    assert visitor_sees("alpha-secret-run") == EVERYWHERE
    admin_untick_public(staff, f"/admin/submissions/submission/{run.submission_id}/change/")
    assert Submission.objects.get(pk=run.submission_id).is_public is False
    assert visitor_sees("alpha-secret-run") == NOWHERE
    assert visitor_sees("beta-stays") == EVERYWHERE
    owner = Client()
    owner.force_login(user)
    assert "alpha-secret-run" in owner.get(BOARD).content.decode()  # the submitter still sees it, as private
    entry = LeaderboardEntry.objects.get(model__name="alpha-secret-run")
    assert (entry.is_public, entry.owner_id) == (False, user.pk)


def test_a_model_made_private_in_the_admin_leaves_every_public_view(multi_lcb, user, staff):
    run = scored_run(multi_lcb, user, "gamma-hidden-model", 0.4)
    assert visitor_sees("gamma-hidden-model") == EVERYWHERE
    admin_untick_public(staff, f"/admin/catalog/model/{run.submission.model_id}/change/")
    assert Model.objects.get(pk=run.submission.model_id).is_public is False
    assert visitor_sees("gamma-hidden-model") == NOWHERE


def test_a_flag_changed_without_signals_is_still_honoured_when_read(multi_lcb, user, other_user):
    """A bulk update sends no signal and leaves the stored row as it was: the read checks the source.
    (Signed in, so that no cached page is involved: a bulk update does not move the cache's generation.)"""
    run = scored_run(multi_lcb, user, "delta-bulk", 0.4)
    viewer = Client()
    viewer.force_login(other_user)
    assert "delta-bulk" in viewer.get("/").content.decode()  # the home page's top rows
    Submission.objects.filter(pk=run.submission_id).update(is_public=False)
    for path in (BOARD, "/"):
        assert "delta-bulk" not in viewer.get(path).content.decode(), path
    assert "delta-bulk" not in APIClient().get(API).content.decode()
    Model.objects.filter(pk=run.submission.model_id).update(is_public=False)
    Submission.objects.filter(pk=run.submission_id).update(is_public=True)
    assert "delta-bulk" not in APIClient().get(API).content.decode()


def board_values(user=None) -> dict[tuple[str, bool], float]:
    api = APIClient()
    if user is not None:
        api.force_authenticate(user)
    rows = api.get(API).json()["rows"]
    return {
        (row["model"], not row["unranked_reason"].startswith("private")): row["scores"]["pass@1"]["value"]
        for row in rows
    }


def test_private_runs_of_a_public_model_belong_to_their_submitters(multi_lcb, user, other_user, django_user_model):
    """Ada's public model; Bob and Cy each score it privately, later than Ada's public run."""
    public = scored_run(multi_lcb, user, "shared-model", 0.5)
    model = public.submission.model
    cy = django_user_model.objects.create_user("cy", password="a-long-test-password")
    scored_run(multi_lcb, other_user, model, 0.9, public=False, python_slice=False)
    scored_run(multi_lcb, cy, model, 0.1, public=False, python_slice=False)
    assert board_values() == {("shared-model", True): 0.5}
    assert board_values(user) == {("shared-model", True): 0.5}  # the model's owner sees no one else's private run
    assert board_values(other_user) == {("shared-model", True): 0.5, ("shared-model", False): 0.9}
    assert board_values(cy) == {("shared-model", True): 0.5, ("shared-model", False): 0.1}
    assert LeaderboardEntry.objects.filter(model=model).count() == 3
    board_rows.leaderboards_rebuild()  # a rebuild files them the same way
    assert board_values(other_user) == {("shared-model", True): 0.5, ("shared-model", False): 0.9}
    assert board_values(cy) == {("shared-model", True): 0.5, ("shared-model", False): 0.1}


def test_a_run_made_private_gives_the_public_row_back_to_the_previous_public_run(multi_lcb, user):
    older = scored_run(multi_lcb, user, "epsilon", 0.3)
    newer = scored_run(multi_lcb, user, older.submission.model, 0.7, python_slice=False)
    assert board_values() == {("epsilon", True): 0.7}
    submission = newer.submission
    submission.is_public = False
    submission.save()  # as a service or the API would
    assert board_values() == {("epsilon", True): 0.3}
    assert board_values(user) == {("epsilon", True): 0.3, ("epsilon", False): 0.7}
