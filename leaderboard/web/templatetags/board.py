"""Template filters for score tables."""
from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def get_item(mapping: dict, key: str) -> Any:
    return mapping.get(key) if mapping else None


@register.filter
def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}"


@register.filter
def duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    seconds = int(seconds)
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60} min"
