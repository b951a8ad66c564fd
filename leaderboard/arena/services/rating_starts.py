"""Where the ratings task keeps what it can start from next time, per database: the kept vote rows
(``ratings.vote_table(cached=True)``) and each snapshot's fitted parameters (``RatingResult.fitted``),
from which the next fit of the same board starts (``rate(start=...)``: after a few new votes the
Newton fit on the votes converges in a step or two instead of starting from the raw fit). Both are
files under ``VAR_DIR/arena-votes/``; a missing or unreadable one only means a cold start."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection


def vote_cache_dir() -> Path:
    return Path(settings.VAR_DIR) / "arena-votes"


def kept_key(style_names: tuple[str, ...]) -> str:
    """The kept files' key: the style definition and the database (server, name and the database's oid:
    a database dropped and made again under the same name, as a test database is, starts its ids again
    and must not meet the old one's rows)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT oid FROM pg_database WHERE datname = current_database()")
        database = (
            connection.settings_dict.get("HOST"),
            connection.settings_dict.get("PORT"),
            connection.settings_dict.get("NAME"),
            cursor.fetchone()[0],
        )
    return hashlib.sha256(repr((style_names, database)).encode()).hexdigest()[:16]


def _starts_path(style_names: tuple[str, ...]) -> Path | None:
    if connection.vendor != "postgresql":
        return None
    return vote_cache_dir() / f"fits-{kept_key(style_names)}.json"


def load_starts(style_names: tuple[str, ...]) -> dict[str, Any]:
    """The fitted parameters of the last snapshots, by :func:`start_key` ({} when none are kept)."""
    path = _starts_path(style_names)
    try:
        found = json.loads(path.read_text()) if path is not None and path.exists() else {}
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def save_starts(style_names: tuple[str, ...], starts: dict[str, Any]) -> None:
    path = _starts_path(style_names)
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    partial.write_text(json.dumps(starts))
    partial.replace(path)


def start_key(kind: str, filter_key: str, filter_value: str) -> str:
    """A snapshot's board: its kind (raw or style) and its group."""
    return json.dumps([kind, filter_key, filter_value])
