"""Template context every page gets: how many of the signed-in user's notifications are unread (one
indexed count; nothing for visitors)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from leaderboard.runs.notifications import unread_count


def unread_notifications(request: HttpRequest) -> dict[str, Any]:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"unread_notifications": unread_count(user=user)}
