"""Reading a Needle-in-a-Video-Haystack release into grid items, every frame stored once.

A release is a directory:

- a haystack video (``haystack.mp4``, or the one ``.mp4``/``.mkv``/``.webm``/``.mov`` file there),
  supplied by an operator or generated for the sample; it is sampled at one frame per second, each
  frame stored once by content hash, and their keys stored as the haystack's manifest;
- ``needles.json``: LongVA's needle records ``{path, prompt, answer}`` (the image beside the file),
  with an optional ``options`` list of four (then the answer is a letter, or an option's text) and an
  optional ``id``; without options the answer is short ("Yellow", "200");
- ``multihop.json`` (optional): chains ``{id, chain: [{path, caption}, ...], decoys: [{path, caption}],
  distractors: [caption, ...], question: {prompt, options, answer}}``: the chain's frames in order
  (each clue's image says "Find a frame of <next caption>", the last is plain), decoy frames that
  lead nowhere, captions for Q1's wrong options, and Q2 about the final frame;
- ``grid.json`` (optional): ``{"frames": [...], "depths": [...], "multihop_frames": [...],
  "circular": false}``; the default is LongVA's grid, 200 to 3,000 frames in steps of 200 at depths 0 to
  100 in steps of 20.

A single-hop item is a (needle, N, depth) cell: N frames given to the model, the needle frame at
``depth`` percent of them. A multi-hop item is a (chain, N, question) pair: the chain's and the decoys'
frames spread evenly over N frames in a seeded shuffled order. With ``circular``, each question is
asked four times with its options rotated. Errors name the file, the record and the field.
"""
from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from evaluators.core.answers import LETTERS, option_letter
from evaluators.core.images import jpeg_of, prepared_jpeg
from evaluators.core.media import MediaSink
from evaluators.core.types import DatasetError, Item
from evaluators.core.video import read_frames

VIDEO_SUFFIXES = (".mp4", ".mkv", ".webm", ".mov")
DEFAULT_GRID: dict[str, Any] = {"frames": list(range(200, 3001, 200)), "depths": list(range(0, 101, 20)),
                                "multihop_frames": list(range(200, 3001, 400)), "circular": False}
#: frames are sent at most this large (the haystack's frames and the needles alike)
FRAME_MAX_SIDE = 448
MULTIHOP_Q1 = ("Start from the frame showing {start}. Each such frame says which frame to find next; follow the "
               "frames to the end of the chain. What does the last frame of the chain show?")


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
    """The release's grid (grid.json) over the defaults, checked."""
    grid = dict(DEFAULT_GRID)
    if (root / "grid.json").is_file():
        given = _load_json(root / "grid.json")
        if not isinstance(given, dict):
            raise DatasetError("grid.json: expected an object")
        unknown = set(given) - set(DEFAULT_GRID)
        if unknown:
            raise DatasetError(f"grid.json: unknown field(s) {', '.join(sorted(unknown))}")
        grid.update(given)
    for name in ("frames", "multihop_frames"):
        if not isinstance(grid[name], list) or not grid[name] or not all(isinstance(n, int) and n >= 2 for n in grid[name]):
            raise DatasetError(f"grid.json, field '{name}': a non-empty list of frame counts of at least 2")
    if not isinstance(grid["depths"], list) or not grid["depths"] or not all(
            isinstance(d, (int, float)) and 0 <= d <= 100 for d in grid["depths"]):
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
        raise DatasetError(f"{root.name}: expected one haystack video ({', '.join(VIDEO_SUFFIXES)}), found "
                           f"{len(found) or 'none'}{': ' + ', '.join(p.name for p in found) if found else ''}")
    return found[0]


def store_haystack(root: Path, media: MediaSink, needed: int) -> Haystack:
    """Decode the haystack at one frame per second, store each frame once and the manifest of keys."""
    path = haystack_file(root)
    keys: list[str] = []
    try:
        for index, image in enumerate(read_frames(path, fps=1.0)):
            keys.append(media.put(jpeg_of(image, max_side=FRAME_MAX_SIDE, quality=90), ext="jpg"))
    except (OSError, ValueError) as exc:  # PyAV's errors are OSErrors; no video stream is a ValueError
        raise DatasetError(f"{path.name}: not a readable video ({exc})") from None
    if len(keys) < needed:
        raise DatasetError(f"{path.name}: {len(keys)} frames at one per second, but the grid needs {needed}; "
                           "supply a longer haystack or a smaller grid (grid.json)")
    manifest = media.put(json.dumps(keys).encode(), ext="json")
    return Haystack(manifest, len(keys))


def _image(root: Path, record: dict[str, Any], where: str, media: MediaSink) -> str:
    relative = record.get("path")
    if not isinstance(relative, str) or not relative.strip():
        raise DatasetError(f"{where}, field 'path': missing")
    target = (root / relative).resolve()
    if not target.is_relative_to(root.resolve()):
        raise DatasetError(f"{where}, field 'path': {relative!r} leads outside the release")
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise DatasetError(f"{where}, field 'path': cannot read {relative!r} ({exc.strerror})") from None
    return media.put(prepared_jpeg(data, where=f"{where}, field 'path'", max_side=FRAME_MAX_SIDE, quality=90), ext="jpg")


def _options(record: dict[str, Any], where: str) -> list[str] | None:
    options = record.get("options")
    if options is None:
        return None
    if not isinstance(options, list) or len(options) != 4 or not all(isinstance(o, str) and o.strip() for o in options):
        raise DatasetError(f"{where}, field 'options': four non-empty texts")
    return [o.strip() for o in options]


def _answer(record: dict[str, Any], options: list[str] | None, where: str) -> str:
    answer = record.get("answer")
    if not isinstance(answer, (str, int)) or isinstance(answer, bool) or not str(answer).strip():
        raise DatasetError(f"{where}, field 'answer': missing or empty")
    if options is None:
        return str(answer).strip()
    letter = option_letter(str(answer), options)
    if letter is None:
        raise DatasetError(f"{where}, field 'answer': {answer!r} names none of the four options")
    return letter


def rotations(options: list[str], answer: str, circular: bool) -> list[tuple[str, list[str], str]]:
    """(suffix, options, answer letter) per asking: once, or four times with the options rotated."""
    if not circular:
        return [("", options, answer)]
    index = LETTERS.index(answer)
    return [(f"/r{k}", options[k:] + options[:k], LETTERS[(index - k) % 4]) for k in range(4)]


def single_hop_items(root: Path, media: MediaSink) -> Iterator[Item]:
    root = Path(root)
    grid = grid_of(root)
    records = _load_json(root / "needles.json") if (root / "needles.json").is_file() else None
    if not isinstance(records, list) or not records:
        raise DatasetError(f"{root.name}: needles.json is missing or holds no needle records")
    haystack = store_haystack(root, media, max(grid["frames"]) - 1)
    seen: set[str] = set()
    for number, record in enumerate(records, 1):
        where = f"needles.json record {number}"
        if not isinstance(record, dict):
            raise DatasetError(f"{where}: expected an object")
        needle_id = str(record.get("id") or Path(str(record.get("path", number))).stem)
        if needle_id in seen:
            raise DatasetError(f"{where}, field 'id': {needle_id!r} repeats")
        seen.add(needle_id)
        prompt = record.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise DatasetError(f"{where}, field 'prompt': missing or empty")
        options = _options(record, where)
        answer = _answer(record, options, where)
        needle = _image(root, record, where, media)
        for count in grid["frames"]:
            for depth in grid["depths"]:
                position = round(depth / 100 * (count - 1))
                asked = rotations(options, answer, grid["circular"]) if options else [("", None, answer)]
                for suffix, shown, gold in asked:
                    yield Item(f"single/{needle_id}/{count}/{depth:g}{suffix}", {"frames": str(count), "depth": f"{depth:g}"},
                               {"haystack": haystack.manifest, "count": count, "insert": {str(position): needle},
                                "question": prompt.strip(), "options": shown, "answer": gold, "needle": needle_id})


def multi_hop_items(root: Path, media: MediaSink) -> Iterator[Item]:
    root = Path(root)
    grid = grid_of(root)
    records = _load_json(root / "multihop.json") if (root / "multihop.json").is_file() else None
    if not isinstance(records, list) or not records:
        raise DatasetError(f"{root.name}: multihop.json is missing or holds no chains")
    haystack = store_haystack(root, media, max(grid["multihop_frames"]))
    for number, record in enumerate(records, 1):
        where = f"multihop.json chain {number}"
        if not isinstance(record, dict):
            raise DatasetError(f"{where}: expected an object")
        chain_id = str(record.get("id") or number)
        chain, decoys = record.get("chain"), record.get("decoys", [])
        if not isinstance(chain, list) or not 2 <= len(chain) <= 12:
            raise DatasetError(f"{where}, field 'chain': a list of 2 to 12 frames")
        if not isinstance(decoys, list):
            raise DatasetError(f"{where}, field 'decoys': a list of frames")
        frames = [(_image(root, f, f"{where}, chain frame {i}", media), str(f.get("caption", ""))) for i, f in enumerate(chain, 1)]
        decoy_frames = [_image(root, f, f"{where}, decoy {i}", media) for i, f in enumerate(decoys, 1)]
        captions = [caption for _, caption in frames]
        if not all(captions):
            raise DatasetError(f"{where}, field 'chain': every frame needs a caption")
        distractors = record.get("distractors")
        if not isinstance(distractors, list) or len(distractors) != 3 or captions[-1] in distractors:
            raise DatasetError(f"{where}, field 'distractors': three captions other than the last frame's")
        question = record.get("question")
        if not isinstance(question, dict):
            raise DatasetError(f"{where}, field 'question': an object {{prompt, options, answer}}")
        q2_options = _options(question, f"{where}, question")
        if q2_options is None or not str(question.get("prompt", "")).strip():
            raise DatasetError(f"{where}, field 'question': a prompt and four options")
        q2_answer = _answer(question, q2_options, f"{where}, question")
        rng = random.Random(f"{chain_id}:q1")
        q1_options = [captions[-1], *[str(d) for d in distractors]]
        rng.shuffle(q1_options)
        q1_answer = LETTERS[q1_options.index(captions[-1])]
        inserted = [key for key, _ in frames] + decoy_frames
        order = list(range(len(inserted)))
        random.Random(f"{chain_id}:order").shuffle(order)
        questions = (("q1", MULTIHOP_Q1.format(start=captions[0]), q1_options, q1_answer),
                     ("q2", f"{MULTIHOP_Q1.format(start=captions[0]).rsplit(' What', 1)[0]} {str(question['prompt']).strip()}",
                      q2_options, q2_answer))
        for count in grid["multihop_frames"]:
            if count < len(inserted):
                raise DatasetError(f"grid.json, field 'multihop_frames': {count} frames cannot hold the "
                                   f"{len(inserted)} frames of chain {chain_id!r}")
            step = (count - 1) / max(1, len(inserted) - 1)
            insert = {str(round(slot * step)): inserted[frame] for slot, frame in enumerate(order)}
            for name, prompt, options, answer in questions:
                for suffix, shown, gold in rotations(options, answer, grid["circular"]):
                    yield Item(f"multi/{chain_id}/{count}/{name}{suffix}", {"frames": str(count), "question": name},
                               {"haystack": haystack.manifest, "count": count, "insert": insert, "question": prompt,
                                "options": shown, "answer": gold, "chain": chain_id})
