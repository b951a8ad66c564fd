"""Media (images) by content hash: how items refer to them, where they are kept, and how a request
gets its image parts only when it is sent.

An item never holds image bytes. At import an evaluator hands each image to a :class:`MediaSink`
(``put``), which keeps it once under its key, ``<sha256>.<ext>``, and the item's payload holds the key.
A request's message refers to an image with an OpenAI-style part whose URL is ``media:<key>``
(:func:`media_part`); the chat client swaps it for a ``data:`` URL read from a :class:`MediaSource`
(:func:`inline_media`) just before the request is sent and drops it after, so a generation job
holds at most its in-flight requests' images, whatever the dataset's size.

:class:`DirectoryMedia` keeps media in a local folder (the command line, tests); the site keeps
them in its file storage (``leaderboard.catalog.media``), one prefix per dataset version.
:class:`HashingSink` only computes keys, for a release read without keeping anything.
"""
from __future__ import annotations

import base64
import hashlib
import os
import re
import tempfile
from pathlib import Path
from typing import Any, Protocol, Sequence

from evaluators.core.types import InfrastructureError

#: the URL scheme of a stored medium in a request's message
SCHEME = "media:"
#: what a key looks like: a SHA-256 in hex and a short extension
KEY_RE = re.compile(r"^[0-9a-f]{64}\.[a-z0-9]{1,5}$")
MIME_TYPES = {"jpg": "image/jpeg", "png": "image/png", "webp": "image/webp", "gif": "image/gif", "mp4": "video/mp4"}


class MediaError(InfrastructureError):
    """A stored medium cannot be read (missing, corrupt, storage down): the machine's fault, so the
    job that needed it is retried rather than charged to the model."""


class MediaSink(Protocol):
    def put(self, data: bytes, *, ext: str) -> str:
        """Keep ``data`` (once, whatever the number of puts) and return its key."""
        ...


class MediaSource(Protocol):
    def read(self, key: str) -> bytes:
        """The bytes stored under ``key``; raises MediaError when they cannot be read."""
        ...


def media_key(data: bytes, ext: str) -> str:
    ext = ext.lower().lstrip(".")
    if ext == "jpeg":
        ext = "jpg"
    key = f"{hashlib.sha256(data).hexdigest()}.{ext}"
    if not KEY_RE.match(key):
        raise ValueError(f"ext: {ext!r} is not a short file extension")
    return key


def check_key(key: str) -> str:
    """``key`` if it is a media key; a ValueError otherwise (it becomes part of a path)."""
    if not isinstance(key, str) or not KEY_RE.match(key):
        raise ValueError(f"{key!r} is not a media key (<sha256>.<ext>)")
    return key


def mime_type(key: str) -> str:
    return MIME_TYPES.get(key.rsplit(".", 1)[-1], "application/octet-stream")


class HashingSink:
    """Computes keys and keeps nothing: reading a release to score it or to check it."""

    def __init__(self) -> None:
        self.keys: set[str] = set()

    def put(self, data: bytes, *, ext: str) -> str:
        key = media_key(data, ext)
        self.keys.add(key)
        return key


def sink_or_hashing(media: MediaSink | None) -> MediaSink:
    return HashingSink() if media is None else media


class DirectoryMedia:
    """Media in a local folder, ``ROOT/ab/abcd....jpg``: both a sink and a source."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        check_key(key)
        return self.root / key[:2] / key

    def put(self, data: bytes, *, ext: str) -> str:
        key = media_key(data, ext)
        target = self.path(key)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, partial = tempfile.mkstemp(dir=target.parent, prefix=".part-")
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
            os.replace(partial, target)
        return key

    def read(self, key: str) -> bytes:
        try:
            data = self.path(key).read_bytes()
        except OSError as exc:
            raise MediaError(f"media {key}: {exc.strerror or exc}") from None
        return verified(key, data)


def verified(key: str, data: bytes) -> bytes:
    """``data`` if it hashes to ``key``; a MediaError otherwise (a corrupt or swapped file)."""
    if hashlib.sha256(data).hexdigest() != key.split(".", 1)[0]:
        raise MediaError(f"media {key}: the stored bytes do not match their hash")
    return data


def media_part(key: str) -> dict[str, Any]:
    """The message part that refers to a stored image (the client inlines it when sending)."""
    return {"type": "image_url", "image_url": {"url": SCHEME + check_key(key)}}


def _ref(part: Any) -> str | None:
    if isinstance(part, dict) and part.get("type") == "image_url":
        url = (part.get("image_url") or {}).get("url", "")
        if isinstance(url, str) and url.startswith(SCHEME):
            return url[len(SCHEME):]
    return None


def media_keys(messages: Sequence[dict[str, Any]]) -> list[str]:
    """The keys the messages refer to, in order (repeats included)."""
    return [key for message in messages if isinstance(message.get("content"), list)
            for key in map(_ref, message["content"]) if key is not None]


def inline_media(messages: Sequence[dict[str, Any]], source: MediaSource | None) -> list[dict[str, Any]]:
    """The messages with every ``media:`` part replaced by a ``data:`` URL of the stored bytes
    (new message and part objects; the originals are untouched). Messages without media come back as
    they are. Raises MediaError if a part cannot be read, or when there is no source to read from."""
    if not media_keys(messages):
        return list(messages)
    if source is None:
        raise MediaError("the request refers to stored media, but no media source was given to read them from")
    out: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if not isinstance(content, list):
            out.append(message)
            continue
        parts = []
        for part in content:
            key = _ref(part)
            if key is None:
                parts.append(part)
                continue
            encoded = base64.b64encode(source.read(check_key(key))).decode("ascii")
            parts.append({**part, "image_url": {**part["image_url"], "url": f"data:{mime_type(key)};base64,{encoded}"}})
        out.append({**message, "content": parts})
    return out
