"""Template filters for score tables."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from django import template
from django.utils.safestring import SafeString, mark_safe

from evaluators.llm.types import redact_userinfo
from leaderboard.catalog.labels import Labels
from leaderboard.modelhost.validation import NOT_VALIDATED

register = template.Library()


@register.filter
def without_userinfo(value: Any) -> str:
    """``value`` as text with the user name and password taken out of every URL in it (an endpoint's address
    registered before they were refused, a message or log line quoting it)."""
    return redact_userinfo(value if isinstance(value, str) else str(value))


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
    """A figure in its column's format: a share in percent (one decimal), a count whole ("32 frames"), else three
    decimals."""
    if fmt == "percent":
        return f"{100 * value:.1f}"
    return f"{value:.0f}" if fmt == "count" else f"{value:.3f}"


@register.simple_tag
def score_cells(row: Any, columns: list[dict], compact: bool = False) -> SafeString:
    """The <td> cells of one leaderboard row: value, 95% interval and n. Built in one pass with
    plain string formatting: every interpolated value is a number we format, so nothing needs
    escaping (a sub-template per cell made a 50-row page spend most of its time in lookups).
    ``compact`` (a wide board): the interval as "low–high" widened outwards to whole percentage points
    (hundredths for a number), the exact one in the cell's title."""
    parts = []
    for column in columns:
        cell = row.cells.get(column["id"])
        if cell is None:
            parts.append('<td class="num"><span class="muted">–</span></td>')
            continue
        fmt = column.get("format", "percent")
        ci, title = "", ""
        if cell.ci_low is not None and cell.ci_high is not None:
            low, high = _show(float(cell.ci_low), fmt), _show(float(cell.ci_high), fmt)
            if compact:
                title = f' title="95% interval {low} to {high}, n={int(cell.n)}"'
                ends = _outward(float(cell.ci_low), fmt, math.floor), _outward(float(cell.ci_high), fmt, math.ceil)
                ci = f'<span class="ci">{ends[0]}{" to " if ends[0].startswith("-") else "–"}{ends[1]}</span>'
            else:
                ci = f'<span class="ci">[{low}, {high}]</span>'
        parts.append(
            f'<td class="num"{title}><span class="v">{_show(float(cell.value), fmt)}</span>{ci}<span '
            f'class="n">n={int(cell.n)}</span></td>'
        )
    return mark_safe("".join(parts))


def _outward(value: float, fmt: str, direction: Callable[[float], int]) -> str:
    """An interval's end on a coarser grid, rounded away from the value (``math.floor`` for the low end,
    ``math.ceil`` for the high one) so the shown interval holds the exact one: whole points of a share,
    hundredths of a number, whole units of a count (rounded to a tenth of that grid first, so float noise does not widen
    it)."""
    if fmt == "count":
        return str(direction(round(value, 1)))
    step = direction(round(100 * value, 1))
    return str(step) if fmt == "percent" else f"{step / 100:.2f}"


@register.simple_tag
def run_summary(run: Any) -> dict[str, Any]:
    """A succeeded run's labelled headline scores and pictures (leaderboard.boards.charts)."""
    from leaderboard.boards.charts import run_summary as summary

    return summary(run)


@register.filter
def headline(value: Any) -> str:
    """A board's headline with its 95% interval, in the board's own unit: "72.3% (68.1–76.0)" for a
    share, "41.2 (39.0–43.5)" for a number (leaders.Headline); "–" when there is none."""
    if value is None:
        return "–"
    scale, unit = (100.0, "%") if value.percent else (1.0, "")
    text = f"{scale * value.value:.1f}{unit}"
    if value.ci_low is not None and value.ci_high is not None:
        text += f" ({scale * value.ci_low:.1f}–{scale * value.ci_high:.1f})"
    return text


@register.filter
def get_board(boards: dict[str, Any], slug: str) -> Any:
    """The home page's leaders of one board by its slug (None when it has none)."""
    return boards.get(slug)


@register.filter
def item(mapping: Any, key: str) -> Any:
    """``mapping[key]`` in a template (None when it is not a mapping or has no such key)."""
    return mapping.get(key) if isinstance(mapping, dict) else None


@register.inclusion_tag("web/_unranked.html")
def unranked(reason: str) -> dict[str, Any]:
    """What stands in a rank's place: "judge not validated: not ranked" with a link to how a judge is validated,
    else a dash (with the reason as its tooltip)."""
    return {"reason": reason, "not_validated": reason == NOT_VALIDATED}


@register.filter
def not_validated(reason: str) -> bool:
    """The reason says the figure's judge has no passing validation."""
    return reason == NOT_VALIDATED


# --- keys in words (leaderboard.catalog.labels) ------------------------------------------------------


@register.filter
def metric_words(labels: Labels, key: str) -> str:
    """A metric key in words ("ned_char" -> "Char. edit distance (0-100)")."""
    return labels.metric(key)


@register.filter
def slice_words(labels: Labels, slice_key: str) -> str:
    """A stored slice key in words ("language=cpp" -> "Language: C++")."""
    return labels.slice(slice_key)


@register.simple_tag
def value_words(labels: Labels, dimension: str, value: str) -> str:
    """One slice value in words ("question_type", "short_1" -> "Short answer 1")."""
    return labels.value(dimension, value)


@register.simple_tag
def item_slices(labels: Labels, slices: dict[str, Any]) -> list[tuple[str, str]]:
    """An item's slices as (dimension, value) in words."""
    return labels.slices(slices)


@register.simple_tag
def item_scores(labels: Labels, scores: dict[str, Any]) -> list[tuple[str, str]]:
    """An item's scores as (words, figure): the figure with at most three decimals, a whole number without any
    ("Character edits", "39"; "Correct", "1")."""
    return [(labels.metric(key), plain_number(value)) for key, value in scores.items()]


@register.filter
def plain_number(value: Any) -> str:
    """A number with at most three decimals and no trailing zeros (39.0 -> "39", 0.25 -> "0.25")."""
    if not isinstance(value, (int, float)):
        return str(value)
    return f"{value:.3f}".rstrip("0").rstrip(".") or "0"


@register.filter
def plain(value: Any) -> str:
    """A stored record (a run's environment or settings) as text, not as Python writes it: a mapping as
    "key value, key value", a list as "a, b"; nested records in parentheses."""
    if isinstance(value, dict):
        return ", ".join(f"{key} {_nested(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_nested(item) for item in value)
    return "" if value is None else str(value)


def _nested(value: Any) -> str:
    text = plain(value)
    return f"({text})" if isinstance(value, (dict, list, tuple)) and text else text
