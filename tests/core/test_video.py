"""Sampling a video at one frame per second by presentation time: a video that starts late and has a gap
in its timestamps gives the first frame of each second that has frames, and no burst after the gap."""

from __future__ import annotations

import io
from fractions import Fraction

from PIL import Image

from evaluators.core.video import read_frames


def video_at(times: list[Fraction]) -> io.BytesIO:
    """A lossless video (FFV1 in Matroska) whose frame k is shown at times[k] seconds, its grey level 2k."""
    import av

    out = io.BytesIO()
    with av.open(out, mode="w", format="matroska") as container:
        stream = container.add_stream("ffv1", rate=10)
        stream.width, stream.height, stream.pix_fmt = 32, 32, "yuv444p"
        stream.time_base = Fraction(1, 10)
        for k, at in enumerate(times):
            frame = av.VideoFrame.from_image(Image.new("RGB", (32, 32), (2 * k,) * 3)).reformat(format="yuv444p")
            frame.pts, frame.time_base = int(at * 10), Fraction(1, 10)
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    out.seek(0)
    return out


def test_a_late_start_and_a_gap_give_one_frame_per_second_that_has_frames():
    # ten frames a second from 3.0 s to 5.9 s, nothing from 6 s to 9 s, then 9.0 s to 10.9 s
    times = [Fraction(t, 10) for t in [*range(30, 60), *range(90, 110)]]
    frames = list(read_frames(video_at(times), fps=1.0))
    grey = [round(frame.convert("L").getpixel((16, 16)) / 2) for frame in frames]
    # the first frame of seconds 3, 4, 5, 9 and 10: frames 0, 10, 20, 30 and 40
    assert grey == [0, 10, 20, 30, 40]


def test_two_frames_a_second_at_two_per_second():
    times = [Fraction(t, 10) for t in range(20)]  # 0.0 s to 1.9 s
    grey = [round(f.convert("L").getpixel((16, 16)) / 2) for f in read_frames(video_at(times), fps=2.0)]
    assert grey == [0, 5, 10, 15]
