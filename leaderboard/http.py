"""Request types for views: what django-htmx and the login requirement add to Django's request, so
views are type-checked against what they really receive; and a path on this site as a full address."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxRequest(HttpRequest):
    """Every request: django-htmx's middleware adds ``htmx``; the visitor may be anonymous."""

    htmx: HtmxDetails
    user: User | AnonymousUser


class SignedInRequest(HtmxRequest):
    """A request to a ``login_required`` view: the user is signed in."""

    user: User


#: the address of full links made with no request (emails, commands, the schedule) while ``SITE_URL`` is unset
LOCAL_SITE_URL = "http://127.0.0.1:8000"


def site_address(path: str, request: HttpRequest | None = None) -> str:
    """A path on this site as a full address: on ``settings.SITE_URL`` (``LEADERBOARD_SITE_URL``) when it
    is set, else on the scheme and host the request came to (the site may run on any port), else
    ``LOCAL_SITE_URL``."""
    if settings.SITE_URL:
        return settings.SITE_URL.rstrip("/") + path
    if request is not None:
        return request.build_absolute_uri(path)
    return LOCAL_SITE_URL + path
