"""Media through the engine: content-addressed keys, the folder store, parts inlined only when a request
is sent (and what the server receives), Parquet and directory releases with Hugging Face image
structs, images prepared as the paper sends them, the modality order and the server options; and a
generation-shaped send over a dataset ten times larger holding no more memory."""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image

from evaluators.core import modality
from evaluators.core.images import prepared_jpeg
from evaluators.core.media import (
    DirectoryMedia,
    HashingSink,
    MediaError,
    inline_media,
    media_key,
    media_keys,
    media_part,
)
from evaluators.core.records import image_bytes, iter_records, record_files
from evaluators.core.types import DatasetError, InfrastructureError, ModelRequest, ServerOptions
from evaluators.llm.client import ChatClient
from evaluators.llm.server_command import ServerSpec, build_command, with_options
from evaluators.llm.types import Endpoint
from tests.conftest import REPO
from tests.support.openai_server import OpenAIServer, Reply


def png(size=(64, 48), mode="RGBA", colour=(10, 200, 30, 128)) -> bytes:
    out = io.BytesIO()
    Image.new(mode, size, colour if mode == "RGBA" else 7).save(out, "PNG")
    return out.getvalue()


def noise_jpeg(seed: int, size=(320, 240)) -> bytes:
    pixels = np.random.default_rng(seed).integers(0, 256, size=(size[1], size[0], 3), dtype=np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels, "RGB").save(out, "JPEG", quality=95)
    return out.getvalue()


def test_keys_are_content_hashes_and_the_folder_store_keeps_each_once(tmp_path):
    store = DirectoryMedia(tmp_path / "media")
    data = noise_jpeg(1)
    key = store.put(data, ext="jpeg")
    assert key == media_key(data, "jpg") and key.endswith(".jpg") and len(key) == 68
    assert store.put(data, ext="jpg") == key and len(list((tmp_path / "media").rglob("*.jpg"))) == 1
    assert store.read(key) == data
    store.path(key).write_bytes(b"swapped")  # a corrupt or swapped file is never sent
    with pytest.raises(MediaError, match="do not match their hash"):
        store.read(key)
    with pytest.raises(MediaError, match="No such file"):
        store.read(media_key(b"never stored", "jpg"))
    with pytest.raises(ValueError, match="not a media key"):
        store.read("../../etc/passwd")
    assert isinstance(MediaError("x"), InfrastructureError)  # the machine's fault: the job is retried
    assert HashingSink().put(data, ext="jpg") == key  # hashing only: nothing written


def test_media_parts_are_inlined_for_the_request_only(tmp_path):
    store = DirectoryMedia(tmp_path)
    key = store.put(b"\xff\xd8jpeg bytes", ext="jpg")
    messages = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": [{"type": "text", "text": "What is it?"}, media_part(key)]},
    ]
    assert media_keys(messages) == [key]
    sent = inline_media(messages, store)
    assert (
        sent[1]["content"][1]["image_url"]["url"]
        == "data:image/jpeg;base64," + base64.b64encode(b"\xff\xd8jpeg bytes").decode()
    )
    assert messages[1]["content"][1]["image_url"]["url"] == f"media:{key}"  # the stored request is untouched
    assert inline_media(messages[:1], None) == messages[:1]  # no media, no source needed
    with pytest.raises(MediaError, match="no media source"):
        inline_media(messages, None)


def test_the_client_sends_the_image_and_a_missing_medium_stops_the_batch_as_the_machines_fault(tmp_path):
    store = DirectoryMedia(tmp_path)
    data = noise_jpeg(2)
    key = store.put(data, ext="jpg")
    request = ModelRequest("a", [{"role": "user", "content": [{"type": "text", "text": "Describe"}, media_part(key)]}])
    with OpenAIServer(lambda req: Reply(text="a picture")) as server:
        client = ChatClient(Endpoint(server.base_url, "vlm"), max_concurrency=2)
        results = []
        client.chat_many([request], on_result=lambda r, o: results.append(o), media=store)
        sent = server.requests[0]["messages"][0]["content"][1]["image_url"]["url"]
        assert base64.b64decode(sent.split(",", 1)[1]) == data and results[0].text == "a picture"
        missing = ModelRequest("b", [{"role": "user", "content": [media_part(media_key(b"gone", "jpg"))]}])
        with pytest.raises(MediaError, match=r"gone|No such file"):
            client.chat_many([missing, request], on_result=lambda r, o: results.append(o), media=store)
        client.close()


def _parquet(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)
    return path


def test_parquet_and_directory_releases_with_image_structs_and_named_errors(tmp_path):
    jpeg = noise_jpeg(3)
    (tmp_path / "rel" / "imgs").mkdir(parents=True)
    (tmp_path / "rel" / "imgs" / "b.jpg").write_bytes(jpeg)
    _parquet(tmp_path / "rel" / "test-00000-of-00002.parquet", [{"id": "a", "image": {"bytes": jpeg, "path": "a.jpg"}}])
    _parquet(
        tmp_path / "rel" / "test-00001-of-00002.parquet",
        [
            {"id": "b", "image": {"bytes": None, "path": "imgs/b.jpg"}},
            {"id": "c", "image": {"bytes": None, "path": None}},
            {"id": "d", "image": {"bytes": None, "path": "../../x.jpg"}},
        ],
    )
    (tmp_path / "rel" / ".hidden").mkdir()
    _parquet(tmp_path / "rel" / ".hidden" / "x.parquet", [{"id": "z"}])
    files = record_files(tmp_path / "rel")
    assert [f.name for f in files] == ["test-00000-of-00002.parquet", "test-00001-of-00002.parquet"]
    records = [r for f in files for r in iter_records(f)]
    assert [r.data["id"] for r in records] == ["a", "b", "c", "d"] and records[1].row == 1
    assert image_bytes(records[0], "image") == jpeg and image_bytes(records[1], "image") == jpeg
    with pytest.raises(DatasetError, match=r"test-00001-of-00002.parquet row 2, column 'image': no image"):
        image_bytes(records[2], "image")
    with pytest.raises(DatasetError, match="leads outside the release"):
        image_bytes(records[3], "image")
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not really")
    with pytest.raises(DatasetError, match=re.escape("bad.parquet: not a readable Parquet file")):
        list(iter_records(tmp_path / "bad.parquet"))
    with pytest.raises(DatasetError, match=r"expected a .parquet or .jsonl file"):
        record_files(tmp_path / "rel" / "imgs" / "b.jpg")


def test_images_are_prepared_as_the_paper_sends_them():
    wide = io.BytesIO()
    Image.new("P", (2400, 1200), 3).save(wide, "PNG")  # palette, larger than 1080 px
    out = Image.open(io.BytesIO(prepared_jpeg(wide.getvalue(), where="r 1")))
    assert (out.format, out.mode, out.size) == ("JPEG", "RGB", (1080, 540))
    small = Image.open(io.BytesIO(prepared_jpeg(png(), where="r 2")))
    assert (small.mode, small.size) == ("RGB", (64, 48))  # RGBA to RGB, never enlarged
    with pytest.raises(DatasetError, match=re.escape("ocr.parquet row 3, column 'image': not a readable image")):
        prepared_jpeg(b"\x89PNG\r\n\x1a\n truncated", where="ocr.parquet row 3, column 'image'")


def test_modality_is_a_capability_order():
    assert modality.covers("video", "image") and modality.covers("image", "text") and modality.covers("text", "text")
    assert not modality.covers("text", "image") and not modality.covers("image", "video")
    assert modality.covered_by("image") == ("text", "image")
    message = modality.refusal(
        model_name="tiny-llama", model_modality="text", benchmark_name="IndicVisionBench OCR", needed="image"
    )
    assert (
        message
        and "tiny-llama is registered as a text model" in message
        and "Register a model that takes image" in message
    )
    assert modality.refusal(model_name="m", model_modality="video", benchmark_name="b", needed="image") is None
    with pytest.raises(ValueError, match="'audio' is not one of"):
        modality.covers("audio", "text")


def test_server_options_merge_and_reach_vllms_command_line():
    merged = (
        ServerOptions(images_per_prompt=1)
        .merged(ServerOptions(max_model_len=8192))
        .merged(ServerOptions(max_model_len=4096))
    )
    assert merged == ServerOptions(images_per_prompt=1, max_model_len=8192)
    assert ServerOptions.from_dict(merged.to_dict()) == merged
    spec = with_options(ServerSpec(kind="vllm", model="/m"), merged)
    command = build_command(spec, port=8000, gpu_count=1)
    assert command[command.index("--limit-mm-per-prompt") + 1] == '{"image": 1}'
    assert command[command.index("--max-model-len") + 1] == "8192"
    assert "--limit-mm-per-prompt" not in build_command(ServerSpec(kind="vllm", model="/m"), port=8000)
    assert ServerSpec.from_dict(spec.to_dict()) == spec
    with pytest.raises(ValueError, match="images_per_prompt"):
        ServerOptions(images_per_prompt=-1)


def _send_all(base_url: str, store: DirectoryMedia, keys: list[str], concurrency: int) -> tuple[int, int]:
    """Send one request per key as a generation job does (lazily drawn, bounded concurrency); the
    traced peak of Python memory while doing it, and the answers received."""
    requests = (
        ModelRequest(
            str(i),
            [{"role": "user", "content": [{"type": "text", "text": "What is shown?"}, media_part(key)]}],
            max_tokens=4,
        )
        for i, key in enumerate(keys)
    )
    answers = []
    lock = threading.Lock()

    def on_result(request, outcome):
        with lock:
            answers.append(getattr(outcome, "text", None))

    client = ChatClient(Endpoint(base_url, "vlm"), max_concurrency=concurrency)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        client.chat_many(requests, on_result=on_result, media=store)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        client.close()
    return peak, len([a for a in answers if a == "seen"])


def test_sending_ten_times_more_images_holds_no_more_memory(tmp_path):
    store = DirectoryMedia(tmp_path / "media")
    keys = [store.put(noise_jpeg(seed), ext="jpg") for seed in range(200)]
    size = sum(store.path(k).stat().st_size for k in keys) / len(keys)
    server = subprocess.Popen(
        [sys.executable, "-m", "tests.support.openai_server", "0.005", "seen"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        base_url = server.stdout.readline().strip()  # the server runs in its own process: only the client is traced
        small_peak, small_answers = _send_all(base_url, store, keys[:20], concurrency=4)
        large_peak, large_answers = _send_all(base_url, store, keys, concurrency=4)
    finally:
        server.kill()
        server.wait()
    assert (small_answers, large_answers) == (20, 200)
    # all 200 images, base64-encoded, would be over 60 MB; four requests in flight hold a few images each
    assert large_peak < 2 * small_peak + 4 * size, (small_peak, large_peak, size)
    assert large_peak < 40 * size, (large_peak, size)


def test_the_cli_items_command_keeps_media_by_hash(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "evaluators",
            "items",
            "--benchmark",
            "indic-vision-mmt",
            "--release",
            str(REPO / "evaluators" / "indic_vision" / "data" / "sample"),
            "--out",
            str(tmp_path / "items.jsonl"),
            "--media",
            str(tmp_path / "media"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "wrote 30 item(s)" in out.stdout and "their media are in" in out.stdout
    items = [json.loads(line) for line in (tmp_path / "items.jsonl").read_text().splitlines()]
    stored = {p.name for p in (tmp_path / "media").rglob("*.jpg")}
    assert {item["payload"]["image"] for item in items} == stored and len(stored) == 3  # three scenes, each once
