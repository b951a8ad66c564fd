"""Preparing an image the way benchmarks send them: decoded safely, converted to RGB, shrunk to at
most ``max_side`` pixels on its longer side (Lanczos, aspect kept) and encoded as JPEG. Done once at
import, so the stored medium is exactly what a request carries and sending it is a read and a base64.
"""

from __future__ import annotations

import io
import warnings
from typing import Any

from evaluators.core.types import DatasetError

#: the most pixels an image may have before it is refused as a decompression bomb (8K x 8K)
MAX_PIXELS = 8192 * 8192


def prepared_jpeg(data: bytes, *, where: str, max_side: int = 1080, quality: int = 95) -> bytes:
    """``data`` (any format Pillow reads) as an RGB JPEG of at most ``max_side`` px. A DatasetError
    naming ``where`` if it is not an image, is truncated, or is too large to decode safely."""
    from PIL import Image

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as opened:
                if opened.width * opened.height > MAX_PIXELS:
                    raise DatasetError(
                        f"{where}: the image is {opened.width}x{opened.height} pixels; at most {MAX_PIXELS:,} are read"
                    )
                opened.load()
                image = opened.convert("RGB")
    except DatasetError:
        raise
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise DatasetError(f"{where}: not a readable image ({type(exc).__name__}: {exc})") from None
    return jpeg_of(image, max_side=max_side, quality=quality)


def jpeg_of(image: Any, *, max_side: int | None = None, quality: int = 95) -> bytes:
    """A decoded image (PIL) as an RGB JPEG, shrunk to at most ``max_side`` px (Lanczos) if given."""
    from PIL import Image

    image = image.convert("RGB")
    if max_side is not None and max(image.size) > max_side:
        image.thumbnail((max_side, max_side), Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality)
    return out.getvalue()
