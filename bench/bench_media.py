"""Images from the media store to the model server: how fast requests are built, against how fast the
model server takes them in, on the same machine, and how many bytes an image costs on the wire.

- Build rate: images per second from a stored key to the bytes of a request body (read from the
  folder store, checked against its hash, base64 into a data URL, the body serialized), which is
  what the chat client does per request (``evaluators.core.media.inline_media``).
- Intake: requests per second the tiny vision model under `transformers serve` answers with one
  image and one new token (the server decoding the JPEG and running the vision tower: its own floor).
- Bytes: photo-like source images (PNG, 1600x1200 and 4000x3000) prepared once at import as the
  paper sends them (RGB, at most 1080 px, JPEG quality 95), then base64 in the request.

Reports the median of repeated rounds (the worst round in brackets; the 1-minute load average is taken
before each round) and the ratio build rate / intake (how much faster the platform builds requests than
the server takes them): the ratio of the medians, and in brackets the slowest build round over the
fastest intake round (the two are measured apart, so their rounds do not pair up).

    .venv/bin/python bench/bench_media.py [--images 200] [--rounds 5] [--requests 20] [--publish]

Results: var/bench/media.{json,md}, or bench/results/ with --publish.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from PIL import Image

from bench.common import load_average, median_worst, spread, write_results
from evaluators.core.images import prepared_jpeg
from evaluators.core.media import DirectoryMedia, inline_media, media_part
from evaluators.llm.client import ChatClient
from evaluators.llm.server import ModelServer
from evaluators.llm.server_command import ServerSpec
from evaluators.llm.tiny import create_tiny_vision_model


def photo_like(seed: int, size: tuple[int, int]) -> bytes:
    """A smooth gradient with texture and noise, saved as PNG: closer to a photograph than flat colour."""
    rng = np.random.default_rng(seed)
    w, h = size
    x, y = np.meshgrid(np.linspace(0, 1, w), np.linspace(0, 1, h))
    base = np.stack(
        [np.sin(x * rng.uniform(2, 9)) * 90 + 120, np.cos(y * rng.uniform(2, 9)) * 90 + 120, (x + y) * 60 + 60], axis=-1
    )
    pixels = np.clip(base + rng.normal(0, 12, size=(h, w, 3)), 0, 255).astype(np.uint8)
    out = io.BytesIO()
    Image.fromarray(pixels, "RGB").save(out, "PNG")
    return out.getvalue()


def build_rate(store: DirectoryMedia, keys: list[str]) -> float:
    """Images per second from key to request body bytes."""
    start = time.perf_counter()
    for key in keys:
        messages = [{"role": "user", "content": [{"type": "text", "text": "What is shown?"}, media_part(key)]}]
        body = json.dumps({"model": "m", "messages": inline_media(messages, store), "max_tokens": 1}).encode()
        assert body
    return len(keys) / (time.perf_counter() - start)


def intake_rate(client: ChatClient, store: DirectoryMedia, keys: list[str]) -> float:
    """Requests per second the server answers, one at a time, one image each, one new token."""
    start = time.perf_counter()
    for key in keys:
        client.chat(
            [{"role": "user", "content": [{"type": "text", "text": "What is shown?"}, media_part(key)]}],
            max_tokens=1,
            media=store,
        )
    return len(keys) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=20)
    parser.add_argument(
        "--publish",
        action="store_true",
        help="write bench/results/ (the figures bench/README.md quotes) instead of var/bench/",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        store = DirectoryMedia(Path(tmp) / "media")
        sizes = {"1600x1200": (1600, 1200), "4000x3000": (4000, 3000)}
        byte_rows = []
        keys: list[str] = []
        for label, size in sizes.items():
            sources = [photo_like(seed, size) for seed in range(3 if size[0] > 2000 else args.images)]
            prepared = [prepared_jpeg(source, where="bench") for source in sources]
            keys += [store.put(data, ext="jpg") for data in prepared]
            sent = [
                len(
                    inline_media([{"role": "user", "content": [media_part(store.put(p, ext="jpg"))]}], store)[0][
                        "content"
                    ][0]["image_url"]["url"]
                )
                for p in prepared
            ]
            byte_rows.append(
                (
                    label,
                    statistics.median(map(len, sources)),
                    statistics.median(map(len, prepared)),
                    statistics.median(sent),
                )
            )
        build, build_loads = [], []
        for _ in range(args.rounds):
            build_loads.append(load_average())
            build.append(build_rate(store, keys[: args.images]))
        model = create_tiny_vision_model(Path(tmp) / "tiny-llava")
        spec = ServerSpec(
            kind="transformers", model=str(model), start_timeout_s=180, log_path=str(Path(tmp) / "server.log")
        )
        with ModelServer(spec) as server:
            client = ChatClient(server.endpoint(), timeout_s=120, max_concurrency=1)
            intake_rate(client, store, keys[:3])  # warm-up
            intake, intake_loads = [], []
            for _ in range(args.rounds):
                intake_loads.append(load_average())
                intake.append(intake_rate(client, store, keys[: args.requests]))
            client.close()
    load = os.getloadavg()[0]
    med_build, worst_build = median_worst(build, higher_is_better=True)
    med_intake = statistics.median(intake)
    worst_ratio = worst_build / max(intake)  # the slowest build round over the fastest intake round: the least headroom
    result = {
        "images": args.images,
        "rounds": args.rounds,
        "requests": args.requests,
        "build_images_per_s_median": round(med_build, 1),
        "intake_requests_per_s_median": round(med_intake, 2),
        "ratio": round(med_build / med_intake, 1),
        "load_1min": round(load, 2),
        "load_averages": build_loads + intake_loads,
        "load_averages_build": build_loads,
        "load_averages_intake": intake_loads,
        "build_images_per_s_worst": round(worst_build, 1),
        "intake_requests_per_s_worst": round(min(intake), 2),
        "ratio_worst": round(worst_ratio, 1),
        "build_images_per_s_rounds": [round(v, 1) for v in build],
        "intake_requests_per_s_rounds": [round(v, 2) for v in intake],
        "bytes": [
            {"source": label, "source_bytes": int(src), "stored_bytes": int(jpg), "sent_bytes": int(sent)}
            for label, src, jpg, sent in byte_rows
        ],
    }
    lines = [
        f"{args.images} stored 1080 px JPEGs, {args.rounds} rounds; intake over {args.requests} requests a round; "
        f"load average before each round: build {build_loads}, intake {intake_loads}. "
        "Figures: median of the rounds (worst round in brackets); the ratio is of the medians, in brackets the "
        "slowest build round over the fastest intake round.",
        "",
        "| | median (worst) | ratio |",
        "|---|---|---|",
        f"| request build (key -> hash-checked read -> base64 data URL -> JSON body) | "
        f"{spread(build, '{:,.0f}', higher_is_better=True)} images/s | {med_build / med_intake:,.0f}x "
        f"({worst_ratio:,.0f}x) the intake |",
        f"| model server intake (tiny LLaVA, `transformers serve`, CPU, 1 image, 1 token) | "
        f"{spread(intake, '{:.2f}', higher_is_better=True)} requests/s | 1 |",
        "",
        "| source image | source file | stored (RGB, <=1080 px, JPEG q95) | sent (base64 in the data URL) | sent / "
        "source |",
        "|---|---|---|---|---|",
        *[
            f"| {label} PNG | {src / 1024:,.0f} KiB | {jpg / 1024:,.0f} KiB | {sent / 1024:,.0f} KiB | "
            f"{sent / src:.2f} |"
            for label, src, jpg, sent in byte_rows
        ],
        "",
    ]
    write_results("media", result, lines)


if __name__ == "__main__":
    main()
