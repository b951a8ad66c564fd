"""How scores are keyed: a slice as text ('' or 'dim=value,...') and a leaderboard column id
('metric' or 'metric|slice'). Shared by services and selectors so both spell them the same way."""

from __future__ import annotations


def slice_key(slice_: dict[str, str]) -> str:
    return ",".join(f"{k}={slice_[k]}" for k in sorted(slice_))


def column_id(key: str, slice_key: str = "") -> str:
    return f"{key}|{slice_key}" if slice_key else key
