"""A headline drawn as a bar, longer for better: the one rule the model profile's bars and the rank
history's chart share."""

from __future__ import annotations

from typing import Any


def bar_share(metric: dict[str, Any], value: float, *, largest: float | None = None) -> float:
    """``value`` of ``metric`` (a benchmark's metric column) as a bar's share of its track, 0 to 1, longer
    for better: a share against 1, a number against 100 (or against ``largest``, the largest shown, for a
    higher-is-better number with no fixed scale); where lower is better (an edit distance on 0-100) the
    bar is the rest of the scale, so a perfect 0 is a full bar."""
    higher = metric.get("higher_is_better", True)
    if metric.get("format", "percent") == "percent":
        full = 1.0
    elif higher and largest is not None:
        full = largest
    else:
        full = 100.0
    share = max(0.0, min(1.0, value / full))
    return share if higher else 1.0 - share
