"""The page cache (leaderboard.pagecache): a visitor's leaderboard page that has not changed is served
without rendering it again; a finished run, a renamed model or a new dataset version shows at once; a
cached page never carries another visitor's CSRF token; signed-in users always get their own page."""

from __future__ import annotations

import re

import pytest
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext

from leaderboard import pagecache
from leaderboard.catalog.models import Model
from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db

BOARD = "/benchmarks/multi-lcb/"


def token_in(html: str) -> str:
    return re.search(r'"X-CSRFToken": "([^"]+)"', html).group(1)


def test_an_unchanged_board_is_served_from_the_cache_without_queries(multi_lcb, user):
    scored_run(multi_lcb, user, "alpha", 0.3)
    visitor = Client()
    first = visitor.get(BOARD)
    assert first["X-Page-Cache"] == "miss" and "alpha" in first.content.decode()
    with CaptureQueriesContext(connection) as queries:
        second = Client().get(BOARD)
    assert second["X-Page-Cache"] == "hit" and len(queries) == 0
    assert second.content.decode().replace(token_in(second.content.decode()), "") == first.content.decode().replace(
        token_in(first.content.decode()), ""
    )
    # another query, or htmx asking for the fragment, is another page
    assert Client().get(BOARD + "?sort=pass@1|language=python")["X-Page-Cache"] == "miss"
    fragment = Client().get(BOARD, HTTP_HX_REQUEST="true")
    assert fragment["X-Page-Cache"] == "miss" and "<html" not in fragment.content.decode()
    assert Client().get(BOARD, HTTP_HX_REQUEST="true")["X-Page-Cache"] == "hit"


def test_a_finished_run_a_renamed_model_and_a_private_turn_show_at_once(multi_lcb, user):
    scored_run(multi_lcb, user, "alpha", 0.3)
    assert "alpha" in Client().get(BOARD).content.decode()
    scored_run(multi_lcb, user, "beta", 0.8)  # a run reaches the board
    page = Client().get(BOARD)
    assert page["X-Page-Cache"] == "miss" and "beta" in page.content.decode()
    beta = Model.objects.get(name="beta")
    beta.name = "beta-renamed"
    beta.save()
    assert "beta-renamed" in Client().get(BOARD).content.decode()
    Client().get("/")
    assert Client().get("/")["X-Page-Cache"] == "hit"


def test_a_change_committed_by_another_process_invalidates_after_commit(
    multi_lcb, user, django_capture_on_commit_callbacks
):
    """The receiver changes the generation at once and again on commit: a page rendered in between
    (from the data before the commit) is stored under a generation the commit then retires."""
    scored_run(multi_lcb, user, "alpha", 0.3)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        with transaction.atomic():
            scored_run(multi_lcb, user, "gamma", 0.5)
        Client().get(BOARD)  # rendered and kept before the commit hook ran
        assert Client().get(BOARD)["X-Page-Cache"] == "hit"
    assert pagecache.new_generation in callbacks
    for callback in callbacks:
        callback()
    assert Client().get(BOARD)["X-Page-Cache"] == "miss"


def test_every_visitor_gets_their_own_csrf_token_from_a_cached_page(multi_lcb):
    first, second = Client(enforce_csrf_checks=True), Client(enforce_csrf_checks=True)
    page_a, page_b = first.get(BOARD), second.get(BOARD)
    assert page_b["X-Page-Cache"] == "hit"
    token_a, token_b = token_in(page_a.content.decode()), token_in(page_b.content.decode())
    assert "csrf-slot-" not in page_b.content.decode() and token_a != token_b
    assert first.cookies["csrftoken"].value != second.cookies["csrftoken"].value
    # the token on the cached page works with the visitor's own cookie, and not with the other's
    ok = second.post("/accounts/login/", {"username": "x", "password": "y"}, HTTP_X_CSRFTOKEN=token_b)
    assert ok.status_code == 200
    crossed = second.post("/accounts/login/", {"username": "x", "password": "y"}, HTTP_X_CSRFTOKEN=token_a)
    assert crossed.status_code == 403


def test_signed_in_users_and_errors_are_never_cached(multi_lcb, user, client):
    scored_run(multi_lcb, user, "mine", 0.4, public=False)
    client.force_login(user)
    own = client.get(BOARD)
    assert "X-Page-Cache" not in own and "mine" in own.content.decode() and "ada" in own.content.decode()
    visitor = Client().get(BOARD).content.decode()
    assert "mine" not in visitor and "ada" not in visitor
    bad = Client().get(BOARD + "?page=nope")
    assert bad.status_code == 400 and "csrf-slot-" not in bad.content.decode()
    assert Client().get(BOARD + "?page=nope")["X-Page-Cache"] == "miss"


# --- a visitor cannot steer what the cache keeps for others ------------------------------------------


def test_a_crafted_query_name_cannot_spell_another_querys_key(multi_lcb, user):
    """Names and values used to be joined unescaped: the one parameter ``page=['1']&sort`` = ``x`` gave
    the key of ``?page=1&sort=x``, so the crafted page would be served to the next visitor of that URL."""
    scored_run(multi_lcb, user, "alpha", 0.3)
    crafted = Client().get(BOARD, {"page=['1']&sort": "pass@1|language=python"})
    assert crafted["X-Page-Cache"] == "miss"
    honest = Client().get(BOARD, {"page": "1", "sort": "pass@1|language=python"})
    assert honest["X-Page-Cache"] == "miss"
    assert (
        Client().get(BOARD, {"sort": "pass@1|language=python", "page": "1"})["X-Page-Cache"] == "hit"
    )  # the same query, reordered


def test_hx_request_false_is_a_full_page_and_never_the_fragments_entry(multi_lcb, user):
    scored_run(multi_lcb, user, "alpha", 0.3)
    full = Client().get(BOARD, HTTP_HX_REQUEST="false")
    assert "<html" in full.content.decode()
    fragment = Client().get(BOARD, HTTP_HX_REQUEST="true")
    assert fragment["X-Page-Cache"] == "miss" and "<html" not in fragment.content.decode()


def test_a_model_named_like_the_csrf_placeholder_is_shown_as_named(multi_lcb, user):
    """The placeholder was a fixed string: a model with that name got each visitor's token in its place."""
    scored_run(multi_lcb, user, "csrf-slot-6f1c0d0e6b", 0.3)
    Client().get(BOARD)
    cached = Client().get(BOARD)
    html = cached.content.decode()
    assert cached["X-Page-Cache"] == "hit" and "csrf-slot-6f1c0d0e6b" in html
    assert html.count(token_in(html)) == 1  # the token is where it is rendered, and nowhere else
