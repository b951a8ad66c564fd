"""Fixtures of the history tests: a staff member and a second board."""

from __future__ import annotations

import pytest


@pytest.fixture
def staff_user(django_user_model):
    return django_user_model.objects.create_user("editor", password="pw", is_staff=True, is_superuser=True)


@pytest.fixture
def policon_board(multi_lcb):
    from leaderboard.catalog.models import Benchmark

    return Benchmark.objects.get(slug="policon")
