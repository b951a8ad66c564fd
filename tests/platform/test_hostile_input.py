"""Hostile input the API must answer with a 4xx or a clamped page, never a server error: a ``limit`` or
``offset`` past any database integer, and a JSON body nested past Python's recursion limit."""
from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from leaderboard.api.paging import MAX_LIMIT

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("query", ["limit=9223372036854775808", "offset=9223372036854775808", "limit=-1&offset=-5",
                                   "limit=abc&offset=1e9", f"limit={MAX_LIMIT * 10}"])
def test_any_limit_and_offset_give_a_page(multi_lcb, query: str) -> None:
    for path in ("/api/benchmarks/", "/api/models/", "/api/runs/"):
        response = APIClient().get(f"{path}?{query}")
        assert response.status_code == 200, (path, query, response.content[:300])
        assert "results" in response.json()


def test_a_json_body_nested_too_deeply_is_a_400_that_says_so(user) -> None:
    client = APIClient()
    client.force_authenticate(user)
    response = client.post("/api/models/", data="[" * 100_000, content_type="application/json")
    assert response.status_code == 400 and "nested too deeply" in response.json()["detail"]
