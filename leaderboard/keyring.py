"""Secrets the site derives from SECRET_KEY, one per purpose.

``derived_key(purpose)`` is HMAC-SHA256 keyed by SECRET_KEY over ``"leaderboard/<purpose>"``: a
key-derivation function with a purpose label, so no derived secret equals SECRET_KEY or another derived
secret, and learning one (a voter salt shown somewhere by mistake) reveals neither the key nor the
others. Purposes in use: ``arena.voter`` (voter hashes), ``arena.ip`` (client address hashes),
``modelhost.secrets`` (the Fernet key of stored endpoint API keys). A setting given explicitly
(LEADERBOARD_VOTER_SALT, LEADERBOARD_SECRETS_KEY) is used as it is instead.
"""

from __future__ import annotations

import hashlib
import hmac

from django.conf import settings

PURPOSES = ("arena.voter", "arena.ip", "modelhost.secrets")


def derived_key(purpose: str) -> bytes:
    if purpose not in PURPOSES:
        raise ValueError(f"unknown key purpose {purpose!r} (known: {', '.join(PURPOSES)})")
    return hmac.new(settings.SECRET_KEY.encode(), f"leaderboard/{purpose}".encode(), hashlib.sha256).digest()
