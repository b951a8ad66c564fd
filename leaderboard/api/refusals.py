"""The answers the apps' API views share: a refusal as a problem body (``detail`` and the ``field`` at
fault), the 401 of a signed-out request, and the signed-in user of a view that requires one."""

from __future__ import annotations

from django.contrib.auth.models import User
from rest_framework import status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response


def refused(exc: Exception, code: int = status.HTTP_400_BAD_REQUEST) -> Response:
    return Response({"detail": str(exc), "field": getattr(exc, "field", None)}, status=code)


def signed_out() -> Response:
    return Response({"detail": "Sign in or send 'Authorization: Token <key>'."}, status=status.HTTP_401_UNAUTHORIZED)


def signed_in(request: Request) -> User:
    """The user of a view whose permission class requires one to be signed in."""
    if not isinstance(request.user, User):
        raise NotAuthenticated()
    return request.user
