"""Template filters for score tables."""
from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


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


def _show(value: float, fmt: str) -> str:
    return f"{100 * value:.1f}" if fmt == "percent" else f"{value:.3f}"


@register.simple_tag
def score_cells(row: Any, columns: list[dict]) -> SafeString:
    """The <td> cells of one leaderboard row: value, 95% interval and n. Built in one pass with
    plain string formatting: every interpolated value is a number we format, so nothing needs
    escaping (a sub-template per cell made a 50-row page spend most of its time in lookups)."""
    parts = []
    for column in columns:
        cell = row.cells.get(column["id"])
        if cell is None:
            parts.append('<td class="num"><span class="muted">–</span></td>')
            continue
        fmt = column.get("format", "percent")
        ci = (f'<span class="ci">[{_show(float(cell.ci_low), fmt)}, {_show(float(cell.ci_high), fmt)}]</span>'
              if cell.ci_low is not None and cell.ci_high is not None else "")
        parts.append(f'<td class="num"><span class="v">{_show(float(cell.value), fmt)}</span>{ci}<span class="n">n={int(cell.n)}</span></td>')
    return mark_safe("".join(parts))


@register.simple_tag
def run_summary(run: Any) -> dict[str, Any]:
    """A succeeded run's labelled headline scores and pictures (leaderboard.submissions.charts)."""
    from leaderboard.submissions.charts import run_summary as summary

    return summary(run)
