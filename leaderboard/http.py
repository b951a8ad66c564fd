"""Request types for views: what django-htmx and the login requirement add to Django's request, so
views are type-checked against what they really receive."""
from __future__ import annotations

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
