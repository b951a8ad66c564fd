"""Frames for Needle-in-a-Video-Haystack: a deterministic haystack, needles and clue frames drawn with
Pillow, and video files written and read with PyAV.

The haystack is seeded: frame ``i`` of seed ``s`` is always the same picture (a slowly drifting colour
field with a few moving discs), so a sample can be regenerated and a test can check what it decodes.
Needles and clue frames are drawn on a plain card so that they stand out from the haystack: a needle
shows one object with a number; a clue frame of a multi-hop chain shows its object with the overlaid
text "Find a frame of <next caption>".
"""

from __future__ import annotations

import math
import random
from typing import Any

#: the haystack's frame size (width, height); needles and clues are drawn at the same size
FRAME_SIZE = (224, 168)
COLOURS: dict[str, tuple[int, int, int]] = {
    "red": (210, 40, 40),
    "blue": (40, 80, 210),
    "green": (40, 160, 70),
    "yellow": (235, 200, 30),
    "purple": (140, 60, 170),
    "orange": (240, 130, 30),
}
SHAPES = ("circle", "square", "triangle", "star")


def _font(size: int) -> Any:
    from PIL import ImageFont

    try:
        return ImageFont.truetype("/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf", size)
    except OSError:
        return ImageFont.load_default(size)


def haystack_frame(seed: int, index: int, size: tuple[int, int] = FRAME_SIZE) -> Any:
    """Frame ``index`` of the haystack of ``seed``: a colour field drifting with time, three discs
    moving on seeded paths. The same arguments always draw the same pixels."""
    from PIL import Image, ImageDraw

    rng = random.Random(seed)
    phases = [rng.uniform(0, 2 * math.pi) for _ in range(3)]
    speeds = [rng.uniform(0.01, 0.05) for _ in range(3)]
    t = index
    background = tuple(int(110 + 60 * math.sin(speeds[c] * t + phases[c])) for c in range(3))
    image = Image.new("RGB", size, background)
    draw = ImageDraw.Draw(image)
    w, h = size
    for disc in range(3):
        x = (w / 2) + (w / 3) * math.sin(speeds[disc] * 3 * t + phases[disc] * (disc + 1))
        y = (h / 2) + (h / 3) * math.cos(speeds[(disc + 1) % 3] * 2 * t + phases[disc])
        r = 10 + 6 * disc
        shade = tuple(255 - v for v in background)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=shade)
    return image


def _shape(draw: Any, shape: str, centre: tuple[float, float], radius: float, fill: tuple[int, int, int]) -> None:
    x, y = centre
    r = radius
    if shape == "circle":
        draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)
    elif shape == "square":
        draw.rectangle((x - r, y - r, x + r, y + r), fill=fill)
    elif shape == "triangle":
        draw.polygon([(x, y - r), (x - r, y + r), (x + r, y + r)], fill=fill)
    else:
        points = [
            (
                x + (r if i % 2 == 0 else r / 2.4) * math.sin(i * math.pi / 5),
                y - (r if i % 2 == 0 else r / 2.4) * math.cos(i * math.pi / 5),
            )
            for i in range(10)
        ]
        draw.polygon(points, fill=fill)


def object_card(
    colour: str, shape: str, *, number: str = "", text: str = "", size: tuple[int, int] = FRAME_SIZE
) -> Any:
    """A white card with one coloured shape, an optional number on it and an optional line of text
    under it (a clue's "Find a frame of ..."), the text wrapped to fit."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(image)
    w, h = size
    centre = (w / 2, h * (0.38 if text else 0.5))
    _shape(draw, shape, centre, min(w, h) * (0.26 if text else 0.34), COLOURS[colour])
    if number:
        font = _font(int(h * 0.2))
        draw.text(centre, number, font=font, fill="black", anchor="mm", stroke_width=2, stroke_fill="white")
    if text:
        font = _font(max(10, int(h * 0.085)))
        lines = _wrap(text, font, w - 12)
        for i, line in enumerate(lines):
            draw.text((w / 2, h * 0.74 + i * font.size * 1.15), line, font=font, fill="black", anchor="mm")
    return image


def _wrap(text: str, font: Any, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and font.getlength(f"{lines[-1]} {word}") <= width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines
