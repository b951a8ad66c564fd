"""Errors by kind on the arena API: a body that cannot be read is the same 400 or 415 from a session
(which must carry a CSRF token) as from a token; only a missing or wrong CSRF token is a 403."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.authtoken.models import Token

from leaderboard.arena.models import Vote
from tests.arena.conftest import voter_of_client

pytestmark = pytest.mark.django_db

BODIES = [
    ("not json", "application/json", 400),
    ('{"winner": ', "application/json", 400),
    ("winner=model_a", "text/plain", 415),
    ("<vote/>", "application/xml", 415),
]


@pytest.mark.parametrize(("body", "media_type", "expected"), BODIES)
def test_a_malformed_body_from_a_session_is_refused_by_kind_not_as_csrf(make_battle, body, media_type, expected):
    session = Client(enforce_csrf_checks=True)
    battle = make_battle(voter_of_client(session))
    token = session.cookies["csrftoken"].value
    answer = session.post(
        f"/api/arena/battles/{battle.public_id}/vote/", body, content_type=media_type, HTTP_X_CSRFTOKEN=token
    )
    assert answer.status_code == expected, answer.content
    assert not Vote.objects.exists()


@pytest.mark.parametrize(("body", "media_type", "expected"), BODIES)
def test_a_malformed_body_with_a_token_gets_the_same_answer(make_battle, user, body, media_type, expected):
    battle = make_battle(voter_of_client(Client()))
    key = Token.objects.create(user=user).key
    answer = Client().post(
        f"/api/arena/battles/{battle.public_id}/vote/", body, content_type=media_type, HTTP_AUTHORIZATION=f"Token {key}"
    )
    assert answer.status_code == expected, answer.content


def test_a_session_without_its_csrf_token_is_still_a_403(make_battle):
    session = Client(enforce_csrf_checks=True)
    battle = make_battle(voter_of_client(session))
    answer = session.post(
        f"/api/arena/battles/{battle.public_id}/vote/", '{"winner": "model_a"}', content_type="application/json"
    )
    assert answer.status_code == 403 and "CSRF" in answer.json()["detail"]
    assert not Vote.objects.exists()
