"""Checking the settings a run passes to an evaluator: one reading of numbers and of the generation
settings (n, temperature, top_p, max_tokens, seed) that every benchmark's ``build_requests`` takes.
Errors are ``ValueError`` naming the setting and what is wrong with it."""
from __future__ import annotations

import hashlib
from typing import Any, Mapping

#: the generation settings every evaluator accepts, with their bounds (integer?, low, high)
GENERATION_BOUNDS: dict[str, tuple[bool, float, float]] = {
    "n": (True, 1, 1000),
    "temperature": (False, 0.0, 2.0),
    "top_p": (False, 0.0, 1.0),
    "max_tokens": (True, 1, 10_000_000),
    "seed": (True, 0, 2**31 - 1),
}


def setting_number(key: str, value: Any, *, integer: bool, low: float, high: float) -> float | int:
    """``value`` as a number within low..high (a numeric string is accepted); ValueError names ``key``."""
    if isinstance(value, str):
        try:
            value = int(value) if integer else float(value)
        except ValueError:
            raise ValueError(f"setting '{key}': {value!r} is not a number") from None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"setting '{key}': expected a number, got {type(value).__name__}")
    if integer and not float(value).is_integer():
        raise ValueError(f"setting '{key}': expected a whole number, got {value!r}")
    if not (low <= value <= high):
        raise ValueError(f"setting '{key}': {value!r} is outside {low:g}..{high:g}")
    return int(value) if integer else float(value)


def generation_setting(key: str, value: Any) -> float | int:
    """One generation setting checked against GENERATION_BOUNDS."""
    integer, low, high = GENERATION_BOUNDS[key]
    return setting_number(key, value, integer=integer, low=low, high=high)


def generation_settings(settings: Mapping[str, Any] | None, defaults: Mapping[str, Any]) -> dict[str, Any]:
    """``defaults`` overridden by ``settings``; only keys of ``defaults`` are accepted."""
    if settings is not None and not isinstance(settings, Mapping):
        raise ValueError("settings must be a mapping")
    merged = dict(defaults)
    for key, value in (settings or {}).items():
        if key not in defaults:
            raise ValueError(f"unknown setting '{key}' (known: {', '.join(defaults)})")
        merged[key] = generation_setting(key, value) if key in GENERATION_BOUNDS else value
    return merged


def item_seed(base: int, item_id: str) -> int:
    """A per-item seed from the run's ``seed`` setting, stable across runs and machines."""
    return int.from_bytes(hashlib.sha256(f"{base}:{item_id}".encode()).digest()[:4], "big") & 0x7FFFFFFF
