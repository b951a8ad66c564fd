"""A dataset version's media (images) in the site's file storage (local files or S3, like every other
stored file), under one prefix per version: ``media/<benchmark>/<tag>-<token>/ab/abcd....jpg``.

``StorageMedia`` is the engine's media sink at import and its source when a generation job sends
requests (evaluators.core.media): each medium is written once by content hash, read back and checked
against its hash, and the files an import wrote can be deleted again if it fails.
"""

from __future__ import annotations

import secrets

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils.text import slugify

from evaluators.core.media import KEY_RE, MediaError, check_key, media_key, mime_type, verified
from leaderboard.catalog.models import DatasetVersion


def new_prefix(benchmark_slug: str, tag: str) -> str:
    """A fresh prefix for one import (the token keeps a failed or concurrent import of the same tag apart)."""
    return f"media/{benchmark_slug}/{slugify(tag)[:60] or 'version'}-{secrets.token_hex(4)}"


class StorageMedia:
    """Media under ``prefix`` in the default storage: a sink (``put``) and a source (``read``)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix.rstrip("/")
        self.written: list[str] = []  # keys this object stored, for ``delete_written``
        self.count = 0
        self.bytes = 0

    def name(self, key: str) -> str:
        check_key(key)
        return f"{self.prefix}/{key[:2]}/{key}"

    def put(self, data: bytes, *, ext: str) -> str:
        key = media_key(data, ext)
        name = self.name(key)
        if not default_storage.exists(name):
            saved = default_storage.save(name, ContentFile(data))
            if saved != name:  # written meanwhile by someone else: the storage renamed ours; keep one copy
                default_storage.delete(saved)
            else:
                self.written.append(key)
                self.count += 1
                self.bytes += len(data)
        return key

    def read(self, key: str) -> bytes:
        try:
            with default_storage.open(self.name(key), "rb") as handle:
                data = handle.read()
        except Exception as exc:  # noqa: BLE001 - a missing file, a storage outage (S3's errors are not OSErrors)
            raise MediaError(f"media {key} of {self.prefix}: {type(exc).__name__}: {exc}") from None
        return verified(key, data)

    def delete_written(self) -> None:
        """Delete what this object stored (a failed import leaves no files behind)."""
        for key in self.written:
            default_storage.delete(self.name(key))
        self.written = []


def dataset_medium(version: DatasetVersion, key: str) -> tuple[bytes, str]:
    """The bytes and content type of a medium stored with ``version``; LookupError when it has none by
    that key (or it cannot be read)."""
    if not version.media_prefix or not isinstance(key, str) or not KEY_RE.match(key):
        raise LookupError(key)
    try:
        return StorageMedia(version.media_prefix).read(key), mime_type(key)
    except MediaError as exc:
        raise LookupError(key) from exc
