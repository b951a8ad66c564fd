"""Who is voting: a keyed hash of the signed-in user's id or of the session, and a keyed hash of the
client address that believes X-Forwarded-For only from configured proxies. The two keys are derived
from SECRET_KEY for their own purposes (leaderboard.keyring), or the voter's is LEADERBOARD_VOTER_SALT
when set; neither is SECRET_KEY, so a leaked key of one kind maps no vote back to a user."""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest


@dataclass(frozen=True)
class Voter:
    hash: str
    ip_hash: str


def salted_hash(value: str, purpose: str = "arena.voter") -> str:
    """HMAC-SHA256 of ``value`` under the purpose's key (the voter's: LEADERBOARD_VOTER_SALT when set)."""
    from leaderboard.keyring import derived_key

    key = (
        settings.LEADERBOARD_VOTER_SALT.encode()
        if purpose == "arena.voter" and settings.LEADERBOARD_VOTER_SALT
        else derived_key(purpose)
    )
    return hmac.new(key, value.encode(), hashlib.sha256).hexdigest()


def client_address(request: HttpRequest) -> str:
    """REMOTE_ADDR, or when it is a trusted proxy, the right-most X-Forwarded-For hop that is not one."""
    remote = request.META.get("REMOTE_ADDR", "")
    trusted = set(settings.LEADERBOARD_TRUSTED_PROXIES)
    if remote not in trusted:
        return remote
    hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if h.strip()]
    for hop in reversed(hops):
        try:
            ipaddress.ip_address(hop)
        except ValueError:
            return remote  # a forged or broken header: fall back to the proxy itself
        if hop not in trusted:
            return hop
    return remote


def _identity(request: HttpRequest) -> str | None:
    """ "user:<id>" for a signed-in user, "session:<key>" for a visitor with a session, else None."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return f"user:{user.pk}"
    key = request.session.session_key
    return f"session:{key}" if key else None


def voter_of(request: HttpRequest) -> Voter:
    """The request's voter; an anonymous visitor gets a session so the battle stays theirs."""
    identity = _identity(request)
    if identity is None:
        request.session["arena"] = True
        request.session.save()
        identity = f"session:{request.session.session_key}"
    return Voter(hash=salted_hash(identity), ip_hash=salted_hash(f"ip:{client_address(request)}", "arena.ip"))


def voter_hash_if_known(request: HttpRequest) -> str | None:
    """The request's voter hash without creating a session (for reads: a visitor with no session
    owns no battle), or None."""
    identity = _identity(request)
    return salted_hash(identity) if identity is not None else None
