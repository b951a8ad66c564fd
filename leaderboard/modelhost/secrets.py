"""Endpoint API keys at rest: Fernet (AES-128-CBC + HMAC) with the key from the
``LEADERBOARD_SECRETS_KEY`` setting, or one derived from SECRET_KEY for this purpose alone
(leaderboard.keyring) when it is not set. A key is encrypted when it is stored and decrypted only in the
worker that calls the endpoint; keys stored under the earlier derivation (a plain hash of a label and
SECRET_KEY) still decrypt."""

from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


def _fernet() -> MultiFernet:
    configured = settings.SECRETS_KEY
    if configured:
        return MultiFernet([Fernet(configured.encode())])
    from leaderboard.keyring import derived_key

    earlier = hashlib.sha256(b"leaderboard.modelhost.secrets:" + settings.SECRET_KEY.encode()).digest()
    return MultiFernet(
        [Fernet(base64.urlsafe_b64encode(derived_key("modelhost.secrets"))), Fernet(base64.urlsafe_b64encode(earlier))]
    )


def encrypt(plain: str) -> str:
    """The token to store; '' stays '' (no key)."""
    return _fernet().encrypt(plain.encode()).decode() if plain else ""


def decrypt(token: str) -> str:
    if not token:
        return ""
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken:
        raise ValueError(
            "the stored API key cannot be decrypted: LEADERBOARD_SECRETS_KEY (or SECRET_KEY) changed "
            "since it was saved; set the key again on the model's page"
        ) from None
