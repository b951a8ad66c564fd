"""Secure defaults: debug is off unless asked for (a server error or a 404 shows no settings and no URL
list), and every secret the site derives from SECRET_KEY is its own: the voter and address hash keys
and the Fernet key of stored API keys are neither SECRET_KEY nor each other, a vote's hash cannot be
recomputed from SECRET_KEY as it once could, and API keys stored under the earlier derivation still
decrypt."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from django.conf import settings
from django.test import Client

from leaderboard.arena.identity import salted_hash
from leaderboard.keyring import PURPOSES, derived_key
from leaderboard.modelhost import secrets

REPO = Path(__file__).resolve().parents[2]


def test_debug_is_off_unless_asked_for(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_DEBUG"}
    env.update(DJANGO_SETTINGS_MODULE="leaderboard.settings", LEADERBOARD_VAR_DIR=str(tmp_path))
    probe = "import django; django.setup(); from django.conf import settings; print(settings.DEBUG)"
    default = subprocess.run(
        [sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    asked = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        env={**env, "DJANGO_DEBUG": "1"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert default.stdout.strip() == "False" and asked.stdout.strip() == "True"


def test_check_deploy_is_clean_for_a_production_configuration(tmp_path: Path) -> None:
    # the browser tests set DJANGO_ALLOW_ASYNC_UNSAFE in this process: a deployment never has it
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_DEBUG", "DJANGO_ALLOW_ASYNC_UNSAFE")}
    env.update(
        LEADERBOARD_VAR_DIR=str(tmp_path),
        DJANGO_SECRET_KEY="p" + "roduction-" * 8,
        DJANGO_HTTPS="1",
        DJANGO_HSTS_SUBDOMAINS="1",
        DJANGO_HSTS_PRELOAD="1",
    )
    done = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0 and "no issues" in done.stdout, done.stdout + done.stderr


@pytest.mark.django_db
def test_a_404_lists_no_urls() -> None:
    response = Client().get("/no-such-page/")
    page = response.content.decode()
    assert response.status_code == 404 and "URLconf" not in page and "[name=" not in page and "api/schema/" not in page
    assert "Not found" in page and 'href="/"' in page  # a way on for people
    api = Client().get("/api/no-such-thing/")
    assert api.status_code == 404 and api.json() == {"detail": "Not found."}  # the schema's problem body


def test_every_derived_secret_is_its_own() -> None:
    keys = {purpose: derived_key(purpose) for purpose in PURPOSES}
    assert len(set(keys.values())) == len(PURPOSES)
    assert all(settings.SECRET_KEY.encode() not in key and key.hex() != settings.SECRET_KEY for key in keys.values())
    with pytest.raises(ValueError, match="unknown key purpose"):
        derived_key("anything")


def test_a_voter_hash_cannot_be_recomputed_from_the_secret_key(settings) -> None:
    settings.LEADERBOARD_VOTER_SALT = ""
    voter = salted_hash("user:1")
    assert voter != hashlib.sha256(f"{settings.SECRET_KEY}:user:1".encode()).hexdigest()  # the earlier scheme
    assert voter != salted_hash("user:1", "arena.ip") and salted_hash("user:1") == voter
    settings.LEADERBOARD_VOTER_SALT = "configured-salt"
    assert salted_hash("user:1") != voter  # an explicit salt is used as it is


def test_api_keys_stored_under_the_earlier_derivation_still_decrypt(settings) -> None:
    settings.SECRETS_KEY = ""
    earlier = hashlib.sha256(b"leaderboard.modelhost.secrets:" + settings.SECRET_KEY.encode()).digest()
    old_token = Fernet(base64.urlsafe_b64encode(earlier)).encrypt(b"sk-old").decode()
    assert secrets.decrypt(old_token) == "sk-old"
    new_token = secrets.encrypt("sk-new")
    assert Fernet(base64.urlsafe_b64encode(derived_key("modelhost.secrets"))).decrypt(new_token.encode()) == b"sk-new"
