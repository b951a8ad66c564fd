"""The one permission rule (leaderboard.accounts.policy): staff manage everything, owners their own,
and everyone sees what is public."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.contrib.auth.models import AnonymousUser

from leaderboard.accounts import policy
from leaderboard.catalog.models import Model
from leaderboard.catalog.services import model_get_or_create

pytestmark = pytest.mark.django_db


def test_can_manage_owner_staff_and_nobody_else(user, other_user):
    staff = type(user).objects.create_user("staff", password="a-long-test-password", is_staff=True)
    model = model_get_or_create(owner=user, name="mine")
    run = SimpleNamespace(submission=SimpleNamespace(owner_id=user.pk))  # a run belongs to its submission's owner
    for obj in (model, run):
        assert policy.can_manage(user, obj)
        assert policy.can_manage(staff, obj)
        assert not policy.can_manage(other_user, obj)
        assert not policy.can_manage(AnonymousUser(), obj)
        assert not policy.can_manage(None, obj)


def test_visible_rows(user, other_user):
    staff = type(user).objects.create_user("staff", password="a-long-test-password", is_staff=True)
    model_get_or_create(owner=user, name="public")
    model_get_or_create(owner=user, name="private", is_public=False)

    def names(viewer) -> set[str]:
        return set(Model.objects.filter(policy.visible_q(viewer)).values_list("name", flat=True))

    assert names(AnonymousUser()) == names(other_user) == {"public"}
    assert names(user) == names(staff) == {"public", "private"}
