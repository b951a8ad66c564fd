"""Media (images) by content hash: how items refer to them, where they are kept, and how a request
gets its image parts only when it is sent.

An item never holds image bytes. At import an evaluator hands each image to a :class:`MediaSink`
(``put``), which keeps it once under its key, ``<sha256>.<ext>``, and the item's payload holds the key.
A request's message refers to an image with an OpenAI-style part whose URL is ``media:<key>``
(:func:`media_part`); the chat client swaps it for a ``data:`` URL read from a :class:`MediaSource`
(:func:`inline_media`) just before the request is sent and drops it after, so a generation job
holds at most its in-flight requests' images, whatever the dataset's size. A frame sequence (a video
haystack with a needle inserted: :func:`frames_part`) refers to a stored manifest of frame keys and
is expanded the same way, its frames' data URLs kept in a bounded cache (:data:`FRAME_CACHE`) since
every cell of a grid shares them.

:class:`DirectoryMedia` keeps media in a local folder (the command line, tests); the site keeps
them in its file storage (``leaderboard.catalog.media``), one prefix per dataset version.
:class:`HashingSink` only computes keys, for a release read without keeping anything.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from evaluators.core.types import InfrastructureError

#: the URL scheme of a stored medium in a request's message
SCHEME = "media:"
#: what a key looks like: a SHA-256 in hex and a short extension
KEY_RE = re.compile(r"^[0-9a-f]{64}\.[a-z0-9]{1,5}$")
MIME_TYPES = {
    "jpg": "image/jpeg",
    "png": "image/png",
    "webp": "image/webp",
    "gif": "image/gif",
    "mp4": "video/mp4",
    "json": "application/json",
}


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
            return url[len(SCHEME) :]
    return None


def frames_part(
    manifest: str, count: int, insert: dict[int, str] | None = None, *, as_video: bool = False, fps: int = 1
) -> dict[str, Any]:
    """A part that stands for ``count`` frames: those of the stored ``manifest`` (a JSON list of frame
    keys, a haystack) in order, with ``insert`` placing other media at given positions (0-based) of the
    sequence, so the model gets exactly ``count`` frames. Sent as that many image parts, or with
    ``as_video`` as one MP4 video part at ``fps`` (evaluators.core.video)."""
    placed = {int(position): check_key(key) for position, key in (insert or {}).items()}
    if count < 1 or any(not 0 <= position < count for position in placed):
        raise ValueError(f"frames: {count} frames cannot hold inserts at {sorted(placed)}")
    return {
        "type": FRAMES_TYPE,
        FRAMES_TYPE: {
            "manifest": check_key(manifest),
            "count": count,
            "insert": {str(p): k for p, k in sorted(placed.items())},
            "as": "video" if as_video else "images",
            "fps": fps,
        },
    }


#: the part type of a frame sequence (never sent as it is: inline_media expands it)
FRAMES_TYPE = "media_frames"


def _parts(message: dict[str, Any]) -> list[Any]:
    content = message.get("content")
    return content if isinstance(content, list) else []


def media_keys(messages: Sequence[dict[str, Any]]) -> list[str]:
    """The keys the messages refer to, in order (repeats included; a frame sequence's manifest and inserts)."""
    keys: list[str] = []
    for message in messages:
        for part in _parts(message):
            key = _ref(part)
            if key is not None:
                keys.append(key)
            elif isinstance(part, dict) and part.get("type") == FRAMES_TYPE:
                keys += [part[FRAMES_TYPE]["manifest"], *part[FRAMES_TYPE]["insert"].values()]
    return keys


def media_counts(messages: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """(images, videos) the messages send once expanded: what a server must allow per prompt."""
    images = videos = 0
    for message in messages:
        for part in _parts(message):
            if _ref(part) is not None:
                images += 1
            elif isinstance(part, dict) and part.get("type") == FRAMES_TYPE:
                if part[FRAMES_TYPE].get("as") == "video":
                    videos += 1
                else:
                    images += int(part[FRAMES_TYPE]["count"])
    return images, videos


def frame_sequence(spec: dict[str, Any], source: MediaSource) -> list[str]:
    """The keys of a frame part's frames, in order (the manifest's frames with the inserts placed)."""
    manifest = _manifest(source, spec["manifest"])
    count = int(spec["count"])
    inserts = {int(p): k for p, k in spec.get("insert", {}).items()}
    needed = count - len(inserts)
    if needed > len(manifest):
        raise MediaError(f"media {spec['manifest']}: {count} frames asked for, the haystack has {len(manifest)}")
    frames = iter(manifest[:needed])
    return [inserts[i] if i in inserts else next(frames) for i in range(count)]


def inline_media(messages: Sequence[dict[str, Any]], source: MediaSource | None) -> list[dict[str, Any]]:
    """The messages with every ``media:`` part replaced by a ``data:`` URL of the stored bytes and every
    frame sequence expanded (image parts, or one video part), as new message and part objects (the
    originals are untouched). Messages without media come back as they are. Raises MediaError if a
    part cannot be read, or when there is no source to read from."""
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
            if key is not None:
                parts.append({**part, "image_url": {**part["image_url"], "url": _data_url(source, check_key(key))}})
            elif isinstance(part, dict) and part.get("type") == FRAMES_TYPE:
                parts += _frames(part[FRAMES_TYPE], source)
            else:
                parts.append(part)
        out.append({**message, "content": parts})
    return out


def _data_url(source: MediaSource, key: str) -> str:
    return f"data:{mime_type(key)};base64,{base64.b64encode(source.read(key)).decode('ascii')}"


def _frames(spec: dict[str, Any], source: MediaSource) -> list[dict[str, Any]]:
    keys = frame_sequence(spec, source)
    if spec.get("as") == "video":
        from evaluators.core.video import mp4_from_jpegs

        video = mp4_from_jpegs([source.read(key) for key in keys], fps=int(spec.get("fps", 1)))
        return [
            {
                "type": "video_url",
                "video_url": {"url": "data:video/mp4;base64," + base64.b64encode(video).decode("ascii")},
            }
        ]
    return [{"type": "image_url", "image_url": {"url": FRAME_CACHE.data_url(source, key)}} for key in keys]


class DataURLCache:
    """Data URLs of frames by key, least recently used first out, at most ``max_bytes`` in all: the
    frames of a haystack are shared by every cell of a grid, so each is read and encoded once per
    worker rather than once per request. Keys are content hashes, so one cache serves every source."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self.hits = 0
        self.misses = 0
        self._urls: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def data_url(self, source: MediaSource, key: str) -> str:
        with self._lock:
            url = self._urls.get(key)
            if url is not None:
                self._urls.move_to_end(key)
                self.hits += 1
                return url
            self.misses += 1
        url = _data_url(source, key)
        with self._lock:
            if key not in self._urls and len(url) <= self.max_bytes:
                self._urls[key] = url
                self.size += len(url)
                while self.size > self.max_bytes:
                    _, dropped = self._urls.popitem(last=False)
                    self.size -= len(dropped)
        return url


#: the worker's frame cache (LEADERBOARD_FRAME_CACHE_BYTES, default 256 MiB)
FRAME_CACHE = DataURLCache(int(os.environ.get("LEADERBOARD_FRAME_CACHE_BYTES", str(256 * 1024 * 1024))))
_MANIFESTS: OrderedDict[str, list[str]] = OrderedDict()


def _manifest(source: MediaSource, key: str) -> list[str]:
    """A haystack's frame keys (a stored JSON list), read once per worker (the last 16 kept)."""
    found = _MANIFESTS.get(key)
    if found is None:
        try:
            found = [check_key(k) for k in json.loads(source.read(key))]
        except (ValueError, TypeError) as exc:
            raise MediaError(f"media {key}: not a list of frame keys ({exc})") from None
        _MANIFESTS[key] = found
        while len(_MANIFESTS) > 16:
            _MANIFESTS.popitem(last=False)
    return found
