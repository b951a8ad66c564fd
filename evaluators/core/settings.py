"""Checking the settings a run passes to an evaluator: one reading of numbers and of the generation
settings (n, temperature, top_p, max_tokens, seed) that every benchmark's ``build_requests`` takes.
Errors are ``ValueError`` naming the setting and what is wrong with it.

``GenerationSettings`` is those settings as one typed value: read once from a submission's stored JSON
(``from_json``), carried from the web to the generating worker and its model server, and keyed for the
worker's cache of built requests (``cache_key``). A benchmark takes the ones given (``given``) over its
own defaults and refuses one it does not use (``generation_settings``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

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


@dataclass(frozen=True)
class GenerationSettings:
    """A submission's generation settings: each None where the submission leaves it to the benchmark."""

    #: samples per item
    n: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    #: new tokens per answer
    max_tokens: int | None = None
    #: the run's seed, from which each item's is derived (``item_seed``)
    seed: int | None = None

    @classmethod
    def from_json(cls, data: object) -> GenerationSettings:
        """The settings of a stored JSON object (None or {}: none given). ValueError names the setting that
        is unknown, of another type or out of GENERATION_BOUNDS."""
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise ValueError(
                f"generation settings: expected an object of setting names and values, got {type(data).__name__}"
            )
        known = [f.name for f in fields(cls)]
        unknown = sorted(str(key) for key in data if key not in known)
        if unknown:
            raise ValueError(f"unknown setting '{unknown[0]}' (known: {', '.join(known)})")
        values = {str(key): generation_setting(str(key), value) for key, value in data.items()}
        return cls(
            n=_whole(values.get("n")),
            temperature=values.get("temperature"),
            top_p=values.get("top_p"),
            max_tokens=_whole(values.get("max_tokens")),
            seed=_whole(values.get("seed")),
        )

    def given(self) -> dict[str, int | float]:
        """The settings given, by name (what ``build_requests`` takes over the benchmark's defaults)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}

    def cache_key(self) -> str:
        """A text equal for equal settings, whatever order or spelling ("0.5" or 0.5) they were given in."""
        return json.dumps(self.given(), sort_keys=True)


def _whole(value: float | int | None) -> int | None:
    """A setting GENERATION_BOUNDS keeps whole (``generation_setting`` returned it as an int)."""
    return None if value is None else int(value)
