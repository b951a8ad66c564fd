"""Endpoint API keys at rest: Fernet (AES-128-CBC + HMAC) with the key from the
``LEADERBOARD_SECRETS_KEY`` setting, or one derived from SECRET_KEY when it is not set. A key is
encrypted when it is stored and decrypted only in the worker that calls the endpoint."""
from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings


def _fernet() -> Fernet:
    configured = settings.SECRETS_KEY
    if configured:
        return Fernet(configured.encode())
    derived = hashlib.sha256(b"leaderboard.modelhost.secrets:" + settings.SECRET_KEY.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(derived))


def encrypt(plain: str) -> str:
    """The token to store; '' stays '' (no key)."""
    return _fernet().encrypt(plain.encode()).decode() if plain else ""


def decrypt(token: str) -> str:
    if not token:
        return ""
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken:
        raise ValueError("the stored API key cannot be decrypted: LEADERBOARD_SECRETS_KEY (or SECRET_KEY) changed "
                         "since it was saved; set the key again on the model's page") from None
