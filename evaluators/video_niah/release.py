"""Reading a Needle-in-a-Video-Haystack release into grid items, every frame stored once.

A release is a directory:

- a haystack video (``haystack.mp4``, or the one ``.mp4``/``.mkv``/``.webm``/``.mov`` file there, such as
  VideoChat-Flash's ``video_haystack.mkv``), sampled at one frame per second of presentation time, each
  frame stored once by content hash, and their keys stored as the haystack's manifest;
- single-hop records: ``needles.json``, LongVA's ``dataset.json`` or VideoChat-Flash's
  ``niah-coco-singlehop_20.json`` (one ``*singlehop*.json``), in any of the formats of ``formats.py``;
  image paths are relative to the directory (or to its ``images/``, where LongVA keeps them);
- multi-hop records (optional): ``multihop.json`` or VideoChat-Flash's ``niah-coco-multihop-100.json``
  (one ``*multihop*.json``); chain ids must be unique;
- ``grid.json`` (optional): ``{"preset": ..., "frames": [...], "depths": [...], "multihop_frames": [...],
  "circular": false}``; a preset names a paper's grid (``PRESETS``), fields given beside it replace its
  own (the grid is then "custom"). Without grid.json: the ``longva`` preset.

N is the number of haystack frames, as in the released harnesses: a single-hop cell sends N + 1 frames,
the needle before haystack frame floor(depth x N) (LongVA's and VideoChat-Flash's ``int(depth *
num_frames)``); a multi-hop item sends its K images with the haystack between them, image i after
``int(i * N / (K - 1))`` haystack frames (VideoChat-Flash's placement), the first image first and the
last one last. A released chain keeps its image order; this platform's chains are shuffled with a seed.
With ``circular``, each multiple-choice question is asked four times with its options rotated. Errors
name the file, the record and the field.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluators.core.images import jpeg_of, prepared_jpeg
from evaluators.core.media import MediaSink
from evaluators.core.types import DatasetError, Item
from evaluators.core.video import read_frames
from evaluators.video_niah.formats import Question, chain_of, needle_of, rotations

VIDEO_SUFFIXES = (".mp4", ".mkv", ".webm", ".mov")


@dataclass(frozen=True)
class Preset:
    """A grid a paper's released scripts run, and where it was read."""

    frames: tuple[int, ...]
    depths: tuple[int, ...]
    multihop_frames: tuple[int, ...]
    source: str


#: depths 0, 20, ..., 100 %: ``--depth_interval 0.2`` in every released script
_DEPTHS = tuple(range(0, 101, 20))
PRESETS: dict[str, Preset] = {
    "longva": Preset(
        tuple(range(200, 3001, 200)),
        _DEPTHS,
        tuple(range(500, 3001, 500)),
        "LongVA vision_niah/eval.sh (single hop 200-3,000 frames, step 200); LongVA has no multi hop, so "
        "its multi-hop grid is the one VideoChat-Flash ran LongVA on (longva_eval_xtuner_multi.sh: 500-3,000, step "
        "500)",
    ),
    "videochat-flash": Preset(
        tuple(range(1000, 10001, 1000)),
        _DEPTHS,
        tuple(range(1000, 10001, 1000)),
        "VideoChat-Flash xtuner-eval_niah/vision_niah/flash_eval_xtuner_single.sh and _multi.sh "
        "(1,000-10,000 frames, step 1,000)",
    ),
    "videochat-flash-longva": Preset(
        tuple(range(500, 3001, 500)),
        _DEPTHS,
        tuple(range(500, 3001, 500)),
        "VideoChat-Flash xtuner-eval_niah/vision_niah/longva_eval_xtuner_single.sh and _multi.sh "
        "(LongVA-7B in VideoChat-Flash's harness: 500-3,000 frames, step 500)",
    ),
}
DEFAULT_PRESET = "longva"
_GRID_FIELDS = ("frames", "depths", "multihop_frames")
#: frames are sent at most this large (the haystack's frames and the needles alike)
FRAME_MAX_SIDE = 448


@dataclass(frozen=True)
class Haystack:
    manifest: str  # the media key of the JSON list of frame keys
    frames: int


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DatasetError(f"{path.name}: cannot be read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{path.name}: not JSON (line {exc.lineno}: {exc.msg})") from None


def grid_of(root: Path) -> dict[str, Any]:
    """The release's grid: grid.json's preset (default ``longva``) with any fields it gives instead,
    checked; ``name`` is the preset's, or "custom" where grid.json changes its frames or depths."""
    given: dict[str, Any] = {}
    if (root / "grid.json").is_file():
        loaded = _load_json(root / "grid.json")
        if not isinstance(loaded, dict):
            raise DatasetError("grid.json: expected an object")
        unknown = set(loaded) - {"preset", "circular", *_GRID_FIELDS}
        if unknown:
            raise DatasetError(f"grid.json: unknown field(s) {', '.join(sorted(unknown))}")
        given = loaded
    name = given.get("preset", DEFAULT_PRESET)
    if name not in PRESETS:
        raise DatasetError(f"grid.json, field 'preset': {name!r} is not one of {', '.join(PRESETS)}")
    preset = PRESETS[name]
    own: dict[str, Any] = {
        "frames": list(preset.frames),
        "depths": list(preset.depths),
        "multihop_frames": list(preset.multihop_frames),
    }
    grid: dict[str, Any] = {**own, "circular": False, **{k: v for k, v in given.items() if k != "preset"}}
    grid["name"] = name if all(grid[f] == own[f] for f in _GRID_FIELDS) else "custom"
    for field in ("frames", "multihop_frames"):
        if (
            not isinstance(grid[field], list)
            or not grid[field]
            or not all(isinstance(n, int) and n >= 2 for n in grid[field])
        ):
            raise DatasetError(f"grid.json, field '{field}': a non-empty list of frame counts of at least 2")
    if (
        not isinstance(grid["depths"], list)
        or not grid["depths"]
        or not all(isinstance(d, (int, float)) and 0 <= d <= 100 for d in grid["depths"])
    ):
        raise DatasetError("grid.json, field 'depths': a non-empty list of percentages 0..100")
    if not isinstance(grid["circular"], bool):
        raise DatasetError("grid.json, field 'circular': true or false")
    return grid


def haystack_file(root: Path) -> Path:
    preferred = root / "haystack.mp4"
    if preferred.is_file():
        return preferred
    found = sorted(p for p in root.iterdir() if p.suffix.lower() in VIDEO_SUFFIXES and p.is_file())
    if len(found) != 1:
        raise DatasetError(
            f"{root.name}: expected one haystack video ({', '.join(VIDEO_SUFFIXES)}), found "
            f"{len(found) or 'none'}{': ' + ', '.join(p.name for p in found) if found else ''}"
        )
    return found[0]


def store_haystack(root: Path, media: MediaSink, needed: int) -> Haystack:
    """Decode the haystack at one frame per second, store each frame once and the manifest of keys."""
    path = haystack_file(root)
    keys: list[str] = []
    try:
        for image in read_frames(path, fps=1.0):
            keys.append(media.put(jpeg_of(image, max_side=FRAME_MAX_SIDE, quality=90), ext="jpg"))
    except (OSError, ValueError) as exc:  # PyAV's errors are OSErrors; no video stream is a ValueError
        raise DatasetError(f"{path.name}: not a readable video ({exc})") from None
    if len(keys) < needed:
        raise DatasetError(
            f"{path.name}: {len(keys)} frames at one per second, but the grid needs {needed}; "
            "supply a longer haystack or a smaller grid (grid.json)"
        )
    manifest = media.put(json.dumps(keys).encode(), ext="json")
    return Haystack(manifest, len(keys))


def _image(root: Path, relative: str, where: str, media: MediaSink) -> str:
    """The image a record names, stored: its path under the release, or under the release's images/."""
    candidates = [(root / relative).resolve(), (root / "images" / relative).resolve()]
    if not all(c.is_relative_to(root.resolve()) for c in candidates):
        raise DatasetError(f"{where}: {relative!r} leads outside the release")
    target = next((c for c in candidates if c.is_file()), candidates[0])
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise DatasetError(f"{where}: cannot read {relative!r} ({exc.strerror})") from None
    return media.put(prepared_jpeg(data, where=where, max_side=FRAME_MAX_SIDE, quality=90), ext="jpg")


def _records(root: Path, names: tuple[str, ...], pattern: str, what: str) -> tuple[str, list[Any]]:
    """(file name, records) of the first of ``names`` there, or of the one file matching ``pattern``."""
    found = [root / n for n in names if (root / n).is_file()] or sorted(root.glob(pattern))
    if len(found) > 1 and not any(f.name in names for f in found):
        raise DatasetError(f"{root.name}: several {what} files ({', '.join(f.name for f in found)}); keep one")
    if not found:
        raise DatasetError(f"{root.name}: no {what} records ({', '.join(names)} or one {pattern} file)")
    records = _load_json(found[0])
    if not isinstance(records, list) or not records:
        raise DatasetError(f"{found[0].name}: expected a non-empty list of {what} records")
    return found[0].name, records


def _payload(
    haystack: Haystack, count: int, insert: dict[str, str], question: Question, grid: dict[str, Any], source: str
) -> dict[str, Any]:
    return {
        "haystack": haystack.manifest,
        "count": count,
        "insert": insert,
        "question": question.text,
        "options": question.options,
        "answer": question.answer,
        "verbatim": question.verbatim,
        "grid": grid["name"],
        "format": source,
    }


def single_hop_items(root: Path, media: MediaSink) -> Iterator[Item]:
    root = Path(root)
    grid = grid_of(root)
    file, records = _records(root, ("needles.json", "dataset.json"), "*singlehop*.json", "needle")
    haystack = store_haystack(root, media, max(grid["frames"]))
    seen: dict[str, int] = {}
    for number, record in enumerate(records, 1):
        where = f"{file} record {number}"
        if not isinstance(record, dict):
            raise DatasetError(f"{where}: expected an object")
        needle = needle_of(record, where)
        if needle.id in seen:
            raise DatasetError(f"{where}, field 'id': {needle.id!r} repeats (record {seen[needle.id]} has it)")
        seen[needle.id] = number
        key = _image(
            root, needle.image, f"{where}, field '{'image' if needle.format == 'videochat-flash' else 'path'}'", media
        )
        for count in grid["frames"]:
            for depth in grid["depths"]:
                position = math.floor(depth * count / 100 + 1e-9)  # int(depth * num_frames), depth a fraction there
                for suffix, asked in rotations(needle.question, grid["circular"]):
                    payload = _payload(haystack, count + 1, {str(position): key}, asked, grid, needle.format)
                    yield Item(
                        f"single/{needle.id}/{count}/{depth:g}{suffix}",
                        {"frames": str(count), "depth": f"{depth:g}"},
                        {**payload, "needle": needle.id},
                    )


def placements(haystack_frames: int, images: int) -> tuple[int, list[int]]:
    """(frames sent, position of each image) for ``images`` spread over ``haystack_frames``, as
    VideoChat-Flash places them: image i after int(i * N / (K - 1)) haystack frames."""
    interval = haystack_frames / (images - 1)
    used = [int(i * interval) for i in range(images)]
    return used[-1] + images, [before + i for i, before in enumerate(used)]


def multi_hop_items(root: Path, media: MediaSink) -> Iterator[Item]:
    root = Path(root)
    grid = grid_of(root)
    file, records = _records(root, ("multihop.json",), "*multihop*.json", "chain")
    haystack = store_haystack(root, media, max(grid["multihop_frames"]))
    seen: dict[str, int] = {}
    for number, record in enumerate(records, 1):
        where = f"{file} chain {number}"
        if not isinstance(record, dict):
            raise DatasetError(f"{where}: expected an object")
        chain = chain_of(record, number, where)
        if chain.id in seen:
            raise DatasetError(
                f"{where}: chain id {chain.id!r} is also chain {seen[chain.id]}'s; two chains with one id "
                "would be merged, so ids must be unique"
            )
        seen[chain.id] = number
        keys = [_image(root, path, f"{where}, image {i}", media) for i, path in enumerate(chain.images, 1)]
        if chain.shuffle:
            random.Random(f"{chain.id}:order").shuffle(keys)
        for n in grid["multihop_frames"]:
            count, positions = placements(n, len(keys))
            insert = {str(p): k for p, k in zip(positions, keys)}
            for name, question in (("q1", chain.q1), ("q2", chain.q2)):
                for suffix, asked in rotations(question, grid["circular"]):
                    yield Item(
                        f"multi/{chain.id}/{n}/{name}{suffix}",
                        {"frames": str(n), "question": name},
                        {**_payload(haystack, count, insert, asked, grid, chain.format), "chain": chain.id},
                    )
