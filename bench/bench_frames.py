"""Video NIAH's frames on their way to the model server: frames per second from the stored haystack and
the frame cache to request bytes, against decoding the same frames with PyAV alone, and the bytes a
frame costs on the wire against its raw pixels.

A seeded 1,000-second haystack (224x168, one frame per second, libx264) and one needle are imported
as the platform imports a release (each frame decoded once, stored once as JPEG by content hash); then
every request of a 5 x 6 grid (200 to 1,000 frames, depths 0 to 100) is built the way the chat client
builds it (frames expanded from the manifest, data URLs from the frame cache, the JSON body) with a
cold cache and then a warm one. The baseline decodes the haystack video with PyAV, frame by frame, as
a harness without the store would for each request. Rounds repeat the three measurements; figures are
the median of the rounds (the worst round in brackets), with the 1-minute load average taken before each
round. Results: var/bench/frames.{json,md}, or bench/results/ with --publish.

    .venv/bin/python bench/bench_frames.py [--seconds 1000] [--rounds 3] [--publish]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import load_average, spread, write_results
from evaluators.core import media
from evaluators.core.media import DirectoryMedia, inline_media
from evaluators.core.video import read_frames, write_video
from evaluators.video_niah.evaluator import VideoNIAHSingleEvaluator
from evaluators.video_niah.frames import FRAME_SIZE, haystack_frame, object_card


def build_all(requests: list, store: DirectoryMedia) -> tuple[float, int]:
    """Seconds to build every request's body as the client sends it, and the bytes of those bodies."""
    sent = 0
    start = time.perf_counter()
    for request in requests:
        sent += len(json.dumps({"model": "m", "messages": inline_media(request.messages, store)}))
    return time.perf_counter() - start, sent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--publish",
        action="store_true",
        help="write bench/results/ (the figures bench/README.md quotes) instead of var/bench/",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        release = Path(tmp) / "release"
        (release / "images").mkdir(parents=True)
        write_video((haystack_frame(3, i) for i in range(args.seconds)), release / "haystack.mp4", fps=1)
        object_card("red", "star", number="7").save(release / "images" / "needle.png")
        (release / "needles.json").write_text(
            json.dumps(
                [{"id": "n", "path": "images/needle.png", "prompt": "What number is on the star?", "answer": "7"}]
            )
        )
        counts = list(range(200, args.seconds + 1, 200))
        (release / "grid.json").write_text(json.dumps({"frames": counts, "depths": [0, 20, 40, 60, 80, 100]}))
        store = DirectoryMedia(Path(tmp) / "media")
        started = time.perf_counter()
        evaluator = VideoNIAHSingleEvaluator()
        items = list(evaluator.import_release(release, store))
        import_s = time.perf_counter() - started
        requests = [evaluator.build_requests(item, {})[0] for item in items]
        total_frames = sum(item.payload["count"] for item in items)
        cold, warm, decode, loads = [], [], [], []
        sent_bytes = 0
        for _ in range(args.rounds):
            loads.append(load_average())
            media.FRAME_CACHE = media.DataURLCache(media.FRAME_CACHE.max_bytes)  # a fresh worker
            seconds, sent_bytes = build_all(requests, store)
            cold.append(total_frames / seconds)
            seconds, _ = build_all(requests, store)
            warm.append(total_frames / seconds)
            start = time.perf_counter()
            decoded = sum(1 for _ in read_frames(release / "haystack.mp4", fps=1.0))
            decode.append(decoded / (time.perf_counter() - start))
        stored = [p.stat().st_size for p in (Path(tmp) / "media").rglob("*.jpg")]
    med_cold, med_warm, med_decode = statistics.median(cold), statistics.median(warm), statistics.median(decode)
    raw = FRAME_SIZE[0] * FRAME_SIZE[1] * 3
    per_frame_sent = sent_bytes / total_frames
    load = os.getloadavg()[0]
    cold_ratio = [c / d for c, d in zip(cold, decode)]  # each round's rates against its own decoding
    warm_ratio = [w / d for w, d in zip(warm, decode)]
    result = {
        "haystack_seconds": args.seconds,
        "cells": len(items),
        "frames_per_round": total_frames,
        "rounds": args.rounds,
        "import_s": round(import_s, 2),
        "build_cold_fps_median": round(med_cold),
        "build_warm_fps_median": round(med_warm),
        "pyav_decode_fps_median": round(med_decode),
        "ratio_warm_to_decode": round(med_warm / med_decode, 1),
        "raw_bytes_per_frame": raw,
        "stored_bytes_per_frame_median": int(statistics.median(stored)),
        "sent_bytes_per_frame": int(per_frame_sent),
        "load_1min": round(load, 2),
        "load_averages": loads,
        "build_cold_fps_worst": round(min(cold)),
        "build_warm_fps_worst": round(min(warm)),
        "pyav_decode_fps_worst": round(min(decode)),
        "ratio_cold_to_decode_rounds": [round(r, 1) for r in cold_ratio],
        "ratio_warm_to_decode_rounds": [round(r, 1) for r in warm_ratio],
        "build_cold_fps_rounds": [round(v) for v in cold],
        "build_warm_fps_rounds": [round(v) for v in warm],
        "pyav_decode_fps_rounds": [round(v) for v in decode],
    }
    lines = [
        f"A {args.seconds}-frame haystack ({FRAME_SIZE[0]}x{FRAME_SIZE[1]}), a grid of {len(items)} cells "
        f"({counts[0]}-{counts[-1]} frames x 6 depths, {total_frames:,} frames a round), {args.rounds} rounds; "
        f"import (decode, store each frame once) {import_s:.1f} s; load average before each round: {loads}. "
        "Figures: median of the rounds (worst round in brackets); a round's ratio is against its own PyAV decoding.",
        "",
        "| frames to request bytes | frames/s | against PyAV decoding |",
        "|---|---|---|",
        f"| platform, cold frame cache (read, hash check, base64, JSON) | "
        f"{spread(cold, '{:,.0f}', higher_is_better=True)} | "
        f"{spread(cold_ratio, '{:.1f}x', higher_is_better=True)} |",
        f"| platform, warm frame cache (a worker's later cells) | {spread(warm, '{:,.0f}', higher_is_better=True)} | "
        f"{spread(warm_ratio, '{:.1f}x', higher_is_better=True)} |",
        f"| PyAV alone: decoding the haystack video, frame by frame | "
        f"{spread(decode, '{:,.0f}', higher_is_better=True)} | 1 |",
        "",
        "| bytes per frame | |",
        "|---|---|",
        f"| raw pixels (RGB) | {raw:,} |",
        f"| stored (JPEG q90, median) | {int(statistics.median(stored)):,} |",
        f"| sent (base64 data URL in the request body) | {int(per_frame_sent):,} |",
        "",
    ]
    write_results("frames", result, lines)


if __name__ == "__main__":
    main()
