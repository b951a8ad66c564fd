"""Who may see and who may change what: the site's one permission rule.

Staff may see and manage everything. Anyone may see what is public; an owner may see and manage
what is theirs. "Theirs" is the object's ``owner`` (a model, a submission, an upload) or, for an
evaluation run, its submission's. Pages, the API and services all ask here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Q


def user_id(user: Any) -> int | None:
    """The signed-in user's id, or None for an anonymous visitor (or no user at all)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return getattr(user, "pk", None)


def is_staff(user: Any) -> bool:
    return user_id(user) is not None and bool(getattr(user, "is_staff", False))


def owner_id_of(obj: Any) -> int | None:
    """The id of the user an object belongs to (a run belongs to its submission's owner)."""
    if hasattr(obj, "owner_id"):
        return obj.owner_id
    submission = getattr(obj, "submission", None)
    return getattr(submission, "owner_id", None)


def can_manage(user: Any, obj: Any) -> bool:
    """Staff, or the object's owner."""
    uid = user_id(user)
    return uid is not None and (is_staff(user) or owner_id_of(obj) == uid)


def visible_q(user: Any, *, public: Sequence[str] = ("is_public",), owner: str = "owner_id") -> Q:
    """The rows ``user`` may see: those whose every ``public`` flag is true, plus those whose
    ``owner`` field is the user; staff see every row."""
    if is_staff(user):
        return Q()
    q = Q(**dict.fromkeys(public, True))
    if (uid := user_id(user)) is not None:
        q |= Q(**{owner: uid})
    return q
