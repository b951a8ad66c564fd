"""``row|frozen_cell:column_id``: a frozen row's [value, ci_low, ci_high, n] as the cell the live board's
``web/_cell.html`` prints (None: no value)."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()


@register.filter
def frozen_cell(row: dict[str, Any], column_id: str) -> dict[str, Any] | None:
    found = row["values"].get(column_id)
    if not found or found[0] is None:
        return None
    value, low, high, n = found
    return {"value": value, "ci_low": low, "ci_high": high, "n": n}
