"""Video NIAH's release and requests: the sample's grid, needles landing at the asked depth (checked by
decoding the frames that are sent, as images and as a video), every haystack frame stored once and
reused, multi-hop chains solvable by following their clues while decoys lead nowhere, the video mode's
server options, and release errors that name the file, the record and the field."""

from __future__ import annotations

import base64
import io
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from evaluators.core.media import FRAME_CACHE, DirectoryMedia, HashingSink, inline_media, media_counts
from evaluators.core.types import DatasetError, ServerOptions
from evaluators.core.video import read_frames
from evaluators.llm.server_command import ServerSpec, build_command, with_options
from evaluators.video_niah.data import make_sample
from evaluators.video_niah.evaluator import VideoNIAHMultiEvaluator, VideoNIAHSingleEvaluator

SINGLE, MULTI = VideoNIAHSingleEvaluator(), VideoNIAHMultiEvaluator()
SAMPLE = SINGLE.presentation().sample_dataset()


def sent_frames(request, store) -> list[Image.Image]:
    """The frames a request carries once sent: its image parts decoded, or its video's frames."""
    parts = inline_media(request.messages, store)[0]["content"]
    images = [p for p in parts if p["type"] == "image_url"]
    videos = [p for p in parts if p["type"] == "video_url"]
    if videos:
        return list(read_frames(io.BytesIO(base64.b64decode(videos[0]["video_url"]["url"].split(",", 1)[1]))))
    return [
        Image.open(io.BytesIO(base64.b64decode(p["image_url"]["url"].split(",", 1)[1]))).convert("RGB") for p in images
    ]


def distance(a: Image.Image, b: Image.Image) -> float:
    return float(
        np.abs(
            np.asarray(a.convert("RGB"), dtype=float) - np.asarray(b.convert("RGB").resize(a.size), dtype=float)
        ).mean()
    )


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    store = DirectoryMedia(tmp_path_factory.mktemp("media"))
    return store, list(SINGLE.import_release(SAMPLE, store)), list(MULTI.import_release(SAMPLE, store))


def test_the_sample_grid_and_each_frame_stored_once(imported):
    store, single, multi = imported
    assert len(single) == 3 * 4 * 3 and len(multi) == 2 * 3 * 2
    assert {i.slices["frames"] for i in single} == {"4", "8", "16", "32"} and {i.slices["depth"] for i in single} == {
        "0",
        "50",
        "100",
    }
    stored = list(store.root.rglob("*.jpg"))
    # 64 haystack frames (the same ones for both leaderboards), 3 needles, 2 chains of 5 frames and 2 decoys
    assert len(stored) == 64 + 3 + 2 * 7
    assert len({i.payload["haystack"] for i in single + multi}) == 1
    assert json.loads(store.read(single[0].payload["haystack"]))[:1] == [
        store.put(store.read(json.loads(store.read(single[0].payload["haystack"]))[0]), ext="jpg")
    ]


@pytest.mark.parametrize("mode", ["images", "video"])
def test_needles_land_at_the_asked_depth_in_the_frames_sent(imported, mode):
    store, single, _ = imported
    evaluator = SINGLE.configured({"mode": mode})
    needle = Image.open(SAMPLE / "images" / "star-number.png")
    for item in (i for i in single if i.payload["needle"] == "star-number" and i.slices["frames"] in ("8", "32")):
        frames = sent_frames(evaluator.build_requests(item, {})[0], store)
        n, depth = int(item.slices["frames"]), float(item.slices["depth"])
        count = n + 1  # N haystack frames and the needle, as the released harnesses send them
        assert len(frames) == count
        expected = int(depth / 100 * n)  # the needle before haystack frame int(depth x N)
        nearest = min(range(count), key=lambda k: distance(frames[k], needle))
        assert nearest == expected, (item.id, nearest)
        assert (
            distance(frames[expected], needle) < 12
            and min(distance(f, needle) for k, f in enumerate(frames) if k != expected) > 40
        )


def test_the_frame_cache_encodes_each_haystack_frame_once_across_cells(imported):
    store, single, _ = imported
    before_hits, before_misses = FRAME_CACHE.hits, FRAME_CACHE.misses
    for item in single:
        inline_media(SINGLE.build_requests(item, {})[0].messages, store)
    sent = sum(i.payload["count"] for i in single)
    misses = FRAME_CACHE.misses - before_misses
    assert FRAME_CACHE.hits - before_hits + misses == sent
    assert misses <= 31 + 3  # at most every distinct frame once (some were cached by the test before)


def test_multi_hop_chains_are_solvable_and_decoys_lead_nowhere(imported):
    store, _, multi = imported
    chains = {c["id"]: c for c in json.loads((SAMPLE / "multihop.json").read_text())}
    definitions = {c["id"]: c for c in make_sample.CHAINS}
    for item in multi:
        chain = chains[item.payload["chain"]]
        definition = definitions[chain["id"]]
        inserted = set(item.payload["insert"].values())
        keys = {
            store.put(make_png_jpeg(SAMPLE / f["path"]), ext="jpg"): f["caption"]
            for f in chain["chain"] + chain["decoys"]
        }
        shown = {keys[k] for k in inserted}
        captions = [make_sample.caption(*link) for link in definition["links"]]
        # from the first caption, each clue names the next frame, which is there; the last is the answer
        assert all(caption in shown for caption in captions)
        for _, nowhere in definition["decoys"]:
            assert nowhere not in shown and nowhere not in captions  # a decoy's clue names a frame that is not there
        if item.slices["question"] == "q1":
            assert item.payload["options"]["ABCD".index(item.payload["answer"])] == captions[-1]
            assert captions[0] in item.payload["question"]
        else:
            assert item.payload["options"]["ABCD".index(item.payload["answer"])] == definition["number"]
        positions = sorted(int(p) for p in item.payload["insert"])
        count, n = item.payload["count"], int(item.slices["frames"])
        assert count == n + 7 and positions[0] == 0 and positions[-1] == count - 1 and len(positions) == 7
        # image i after int(i x N / 6) haystack frames (N = 16: after 0, 2, 5, 8, 10, 13, 16)
        assert positions == [int(i * n / 6) + i for i in range(7)]


def make_png_jpeg(path: Path) -> bytes:
    from evaluators.core.images import prepared_jpeg

    return prepared_jpeg(path.read_bytes(), where="test", max_side=448, quality=90)


def test_server_options_follow_the_mode_and_the_requests(imported):
    _, single, _ = imported
    video = SINGLE.configured({"mode": "video"})
    assert video.generation().modality == "video" and SINGLE.generation().modality == "image"
    assert video.generation().server == ServerOptions(video_all_frames=True)
    command = build_command(with_options(ServerSpec(kind="vllm", model="/m"), video.generation().server), port=1)
    assert command[command.index("--media-io-kwargs") + 1] == '{"video": {"num_frames": -1}}'
    largest = max(single, key=lambda i: i.payload["count"])
    assert media_counts(SINGLE.build_requests(largest, {})[0].messages) == (33, 0)  # N = 32 and the needle
    assert media_counts(video.build_requests(largest, {})[0].messages) == (0, 1)
    with pytest.raises(ValueError, match="'mode': 'audio' is not one of images, video"):
        SINGLE.configured({"mode": "audio"})


def _copy(tmp_path: Path) -> Path:
    return Path(shutil.copytree(SAMPLE, tmp_path / "release"))


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda r: (r / "needles.json").unlink(),
            "release: no needle records (needles.json, dataset.json or one *singlehop*.json file)",
        ),
        (lambda r: (r / "haystack.mp4").unlink(), "expected one haystack video"),
        (lambda r: (r / "haystack.mp4").write_bytes(b"not a video"), "haystack.mp4: not a readable video"),
        (
            lambda r: (r / "grid.json").write_text('{"frames": [4, 200]}'),
            "64 frames at one per second, but the grid needs 200",
        ),
        (lambda r: (r / "grid.json").write_text('{"frames": [1]}'), "grid.json, field 'frames'"),
        (lambda r: (r / "grid.json").write_text('{"speed": 2}'), "grid.json: unknown field(s) speed"),
        (
            lambda r: (r / "grid.json").write_text('{"preset": "vnbench"}'),
            "grid.json, field 'preset': 'vnbench' is not one of",
        ),
        (lambda r: _edit(r / "needles.json", 2, answer="E"), "needles.json record 3, field 'answer': 'E' names none"),
        (
            lambda r: _edit(r / "needles.json", 0, path="../../etc/passwd"),
            "needles.json record 1, field 'path': '../../etc/passwd' leads outside",
        ),
        (lambda r: _edit(r / "needles.json", 1, path="images/missing.png"), "record 2, field 'path': cannot read"),
        (lambda r: _edit(r / "needles.json", 1, id="star-number"), "record 2, field 'id': 'star-number' repeats"),
    ],
)
def test_release_errors_name_the_file_record_and_field(tmp_path, change, message):
    release = _copy(tmp_path)
    change(release)
    with pytest.raises(DatasetError) as raised:
        list(SINGLE.import_release(release, HashingSink()))
    assert message in str(raised.value)


def _edit(target: Path, index: int, **fields) -> None:
    records = json.loads(target.read_text())
    records[index].update(fields)
    target.write_text(json.dumps(records))


def test_multi_hop_release_errors(tmp_path):
    release = _copy(tmp_path)
    chains = json.loads((release / "multihop.json").read_text())
    chains[1]["distractors"] = chains[1]["distractors"][:2]
    (release / "multihop.json").write_text(json.dumps(chains))
    with pytest.raises(DatasetError, match=re.escape("multihop.json chain 2, field 'distractors'")):
        list(MULTI.import_release(release, HashingSink()))
    chains[1]["distractors"].append("a grey cloud")
    chains[1]["id"] = "chain-a"  # two chains with one id would be merged into one
    (release / "multihop.json").write_text(json.dumps(chains))
    with pytest.raises(DatasetError, match=re.escape("multihop.json chain 2: chain id 'chain-a' is also chain 1's")):
        list(MULTI.import_release(release, HashingSink()))
