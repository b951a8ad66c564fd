"""Rendered public pages kept in the cache, so a leaderboard that has not changed is not rendered again.

A page is cached for visitors only (no session or messages cookie: nothing on it depends on who asks),
under the current *generation* of the boards, the path, the query and whether htmx asked for a
fragment. The generation is a random token in the cache that changes whenever something a board shows
changes: a leaderboard row, a run, a submission, a model, a dataset version or a benchmark is saved or deleted (signals
connected in ``leaderboard.web.apps``), once at once and again when the transaction commits, so a page
rendered from data about to change is never stored under the new generation. The generation is read
before the page's queries, so a render can only ever be stored under a generation that is older than
the data it shows.

The key is built from the parsed request: the scheme and host, the path, the query's names and values sorted and
URL-encoded (so no crafted query spells another query's key) and ``request.htmx`` (true only for
``HX-Request: true``, as django-htmx reads it).

The CSRF token is the one thing on a visitor's page that belongs to the visitor: the page is rendered
with a placeholder in its place, stored like that, and every response gets the visitor's own token.
The placeholder is a random nonce drawn for that render and stored with the page, so no text on the
page (a model named like a placeholder) can be one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.utils.http import urlencode

from leaderboard.http import HtmxRequest

log = logging.getLogger(__name__)
GENERATION_KEY = "pagecache:generation"
CSRF_SLOT_META = "leaderboard.csrf_slot"
# A page stays at most this long even when nothing says it changed (code deployed, a clock on the page).
PAGE_SECONDS = 600


def _build_id() -> str:
    """Templates and static files of this deployment: a new release never serves an older release's pages."""
    digest = hashlib.sha256()
    for root in (Path(settings.BASE_DIR) / "templates", Path(settings.BASE_DIR) / "static"):
        for path in sorted(root.rglob("*")):
            if path.is_file():
                stat = path.stat()
                digest.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:12]


BUILD_ID = _build_id()


def quietly(action: Callable[[], Any], default: Any = None) -> Any:
    """A cache call that cannot fail the request: with the cache down (Redis restarting) pages are
    rendered every time, which is slower, never wrong."""
    try:
        return action()
    except Exception as exc:  # noqa: BLE001 - the cache's own connection errors; the page does not depend on it
        log.warning("page cache unavailable (%s: %s); rendering without it", type(exc).__name__, exc)
        return default


def new_generation() -> None:
    """Every cached page is out of date from now on."""
    quietly(lambda: cache.set(GENERATION_KEY, secrets.token_hex(8), None))


def boards_changed(**_: Any) -> None:
    """Signal receiver: something a board shows changed; now, and again once it is committed."""
    new_generation()
    transaction.on_commit(new_generation)


def _generation() -> str | None:
    """The current generation (None: the cache is down, nothing is served from it)."""

    def read() -> str:
        found = cache.get(GENERATION_KEY)
        if found is None:
            cache.add(GENERATION_KEY, secrets.token_hex(8), None)
            found = cache.get(GENERATION_KEY)
        return str(found)

    return quietly(read)


def _cacheable(request: HttpRequest) -> bool:
    return (
        request.method in {"GET", "HEAD"}
        and settings.SESSION_COOKIE_NAME not in request.COOKIES
        and "messages" not in request.COOKIES
    )


def _key(request: HtmxRequest, generation: str) -> str:
    query = urlencode(sorted(request.GET.lists()), doseq=True)
    from leaderboard.setup_status import cache_token

    # what make run is still installing shows on every page (leaderboard.setup_status): its state is in the key
    # a page may give its own full address (a snapshot's permanent address):
    # the scheme and host asked for are in the key
    wanted = json.dumps(
        [BUILD_ID, generation, request.build_absolute_uri("/"), request.path, query, bool(request.htmx), cache_token()]
    )
    return "pagecache:page:v2:" + hashlib.sha256(wanted.encode()).hexdigest()


#: what is kept of a page: status, content type, body, and the CSRF placeholder the body was rendered with
Stored = tuple[int, str, bytes, str]


def _with_token(request: HttpRequest, stored: Stored) -> HttpResponse:
    status, content_type, body, slot = stored
    response = HttpResponse(
        body.replace(slot.encode(), get_token(request).encode()), status=status, content_type=content_type
    )
    response["X-Page-Cache"] = "hit"
    return response


def cached_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Serve a visitor's GET from the cache, or render it (with the CSRF placeholder) and keep it.
    Only a 200 HTML answer is kept; a 400, a 404 or a download is rendered every time."""

    @wraps(view)
    def wrapper(request: HtmxRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not _cacheable(request) or request.GET.get("format"):
            return view(request, *args, **kwargs)
        generation = _generation()
        if generation is None:
            return view(request, *args, **kwargs)
        key = _key(request, generation)
        found = quietly(lambda: cache.get(key))
        if found is not None:
            return _with_token(request, found)
        slot = request.META[CSRF_SLOT_META] = f"csrf-slot-{secrets.token_hex(16)}"
        response = view(request, *args, **kwargs)
        if response.streaming:
            return response
        stored: Stored = (response.status_code, response["Content-Type"], response.content, slot)
        if response.status_code == 200 and stored[1].startswith("text/html") and not response.cookies:
            quietly(lambda: cache.set(key, stored, PAGE_SECONDS))
        fresh = _with_token(request, stored)
        for header, value in response.items():
            fresh.headers.setdefault(header, value)
        fresh["X-Page-Cache"] = "miss"
        return fresh

    return wrapper


def csrf_slot(request: HttpRequest) -> dict[str, str]:
    """Context processor: while a page is rendered for the cache, its CSRF token is the placeholder."""
    slot = request.META.get(CSRF_SLOT_META)
    return {"csrf_token": slot} if slot else {}
