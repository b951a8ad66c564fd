"""Hostile input the API must answer with a 4xx or a clamped page, never a server error: a ``limit`` or
``offset`` past any database integer, and a JSON body nested past Python's recursion limit."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from leaderboard.api.paging import MAX_LIMIT

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "query", ["limit=9223372036854775808", "offset=9223372036854775808", f"limit={MAX_LIMIT * 10}"]
)
def test_a_limit_or_offset_past_any_page_gives_a_clamped_page(multi_lcb, query: str) -> None:
    for path in ("/api/benchmarks/", "/api/models/", "/api/runs/"):
        response = APIClient().get(f"{path}?{query}")
        assert response.status_code == 200, (path, query, response.content[:300])
        assert "results" in response.json()


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("limit=-1&offset=5", "limit"),
        ("limit=0", "limit"),
        ("offset=-5", "offset"),
        ("limit=abc", "limit"),
        ("offset=1e9", "offset"),
    ],
)
def test_an_invalid_limit_or_offset_is_a_400_naming_it(multi_lcb, query: str, field: str) -> None:
    """They used to fall back to the default silently, while the schema promised nothing either way."""
    for path in ("/api/benchmarks/", "/api/models/", "/api/runs/"):
        response = APIClient().get(f"{path}?{query}")
        assert response.status_code == 400 and response.json()["field"] == field, (path, query, response.content[:300])


def test_a_json_body_nested_too_deeply_is_a_400_that_says_so(user) -> None:
    client = APIClient()
    client.force_authenticate(user)
    response = client.post("/api/models/", data="[" * 100_000, content_type="application/json")
    assert response.status_code == 400 and "nested too deeply" in response.json()["detail"]


def test_registering_a_name_does_not_reveal_that_someone_has_a_private_model_of_that_name(user, other_user) -> None:
    """Finding 6: slugs are unique across users, and a private model used to take the bare slug, so
    the next user registering the same name got ``-2`` and learned the hidden model existed."""
    from tests.modelhost.conftest import api_for

    hidden = api_for(user).post(
        "/api/models/", {"name": "Secret Model", "source": "predictions", "is_public": False}, format="json"
    )
    assert hidden.status_code == 201, hidden.content
    assert hidden.json()["slug"].startswith("secret-model-") and hidden.json()["slug"] != "secret-model-2"
    probe = api_for(other_user).post("/api/models/", {"name": "Secret Model", "source": "predictions"}, format="json")
    assert probe.status_code == 201 and probe.json()["slug"] == "secret-model"
    again = api_for(other_user).post(
        "/api/models/", {"name": "secret model", "source": "predictions", "is_public": False}, format="json"
    )
    assert again.json()["slug"] not in {"secret-model-2", hidden.json()["slug"]}
    # a public name taken by a public model is visible anyway: the second public one is numbered
    third = api_for(user).post("/api/models/", {"name": "secret  model", "source": "predictions"}, format="json")
    assert third.json()["slug"] == "secret-model-2"


@pytest.mark.parametrize("where", ["query", "form", "json"])
def test_a_nul_character_anywhere_is_a_400_naming_the_field_not_a_server_error(multi_lcb, user, where) -> None:
    """Fuzzing found GET /api/models/compare/?a=x%00 and a submission's fields reaching PostgreSQL, which
    cannot store NUL: a server error."""
    from tests.modelhost.conftest import api_for

    client = api_for(user)
    if where == "query":
        response = client.get("/api/models/compare/", {"a": "x\x00y", "b": "z"})
        field = "a"
    elif where == "form":
        response = client.post(
            "/api/submissions/", {"benchmark": "multi-lcb", "model_name": "nul\x00name"}, format="multipart"
        )
        field = "model_name"
    else:
        response = client.post(
            "/api/models/", {"name": "ok", "source": "predictions", "organization": "a\x00b"}, format="json"
        )
        field = "organization"
    assert response.status_code == 400, response.content
    problem = response.json()
    message = problem["detail"] if "detail" in problem else problem[field][0]
    assert message.startswith(f"{field}: contains a NUL character")
    page = APIClient().get("/benchmarks/multi-lcb/?page=1%00")
    assert page.status_code == 400 and b"page: contains a NUL" in page.content
