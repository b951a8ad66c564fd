"""Video files from frames and back, with PyAV (FFmpeg bundled in its wheel): the video mode of a
frame sequence (evaluators.core.media) sends one MP4 instead of a list of images, and imports read
an operator's haystack video a frame per second of presentation time."""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any


def write_video(frames: Iterable[Any], target: Path | io.BytesIO, *, fps: int = 1, codec: str = "libx264") -> int:
    """Write ``frames`` (PIL images of one size) as an MP4 at ``fps``; returns the frame count.
    libx264 at a constant quality (crf 18, yuv420p, even sizes) unless another codec is asked for."""
    import av

    count = 0
    with av.open(target if isinstance(target, io.BytesIO) else str(target), mode="w", format="mp4") as container:
        stream: Any = None
        for image in frames:
            if stream is None:
                stream = container.add_stream(codec, rate=fps)
                stream.width, stream.height = (image.size[0] // 2 * 2, image.size[1] // 2 * 2)
                stream.pix_fmt = "yuv420p"
                if codec == "libx264":
                    stream.options = {"crf": "18", "preset": "veryfast"}
            frame = av.VideoFrame.from_image(image.convert("RGB")).reformat(  # type: ignore[no-untyped-call]
                width=stream.width, height=stream.height
            )
            for packet in stream.encode(frame):
                container.mux(packet)
            count += 1
        if stream is not None:
            for packet in stream.encode():
                container.mux(packet)
    return count


def mp4_from_jpegs(frames: list[bytes], *, fps: int = 1) -> bytes:
    """One MP4 of JPEG frames, every frame kept (one per 1/fps seconds)."""
    from PIL import Image

    out = io.BytesIO()
    write_video((Image.open(io.BytesIO(data)) for data in frames), out, fps=fps)
    return out.getvalue()


def read_frames(source: Path | io.BytesIO, *, fps: float = 1.0) -> Iterator[Any]:
    """The video's frames sampled at ``fps`` by presentation time, as PIL images: the first frame of each
    1/fps-second slot of the timeline that has one. A video that starts late gives its first frame, and a
    gap in the timestamps gives nothing for the empty slots (never a burst of frames after it). Raises
    ValueError for a file with no video stream."""
    import av

    container: Any
    with av.open(source if isinstance(source, io.BytesIO) else str(source), mode="r") as container:
        if not container.streams.video:
            raise ValueError("no video stream")
        stream = container.streams.video[0]
        base = stream.time_base or Fraction(1, 1000)
        last_slot: int | None = None
        for frame in container.decode(stream):
            slot = math.floor(float((frame.pts or 0) * base) * fps + 1e-6)
            if last_slot is None or slot > last_slot:
                yield frame.to_image()
                last_slot = slot
