"""Figures the benchmarks' authors published (``data/reported.json`` in this package), for the section
"reported by the authors, not run here" of each leaderboard: never ranked, never mixed into the rows
scored here. Each figure names its metric (a column of the benchmark), optional slice, source and date;
a figure whose metric the benchmark does not have is refused when the file is read (tested), so a
typo cannot put a number under the wrong column."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

FILE = Path(__file__).resolve().parent / "data" / "reported.json"
FIELDS = {"model", "metric", "value", "source", "date", "slice", "label"}


@dataclass(frozen=True)
class ReportedFigure:
    model: str
    metric: str
    value: float
    source: str
    date: str
    slice: str = ""
    label: str = ""  # instead of the column's label (a per-language figure of a "mean of languages" column)


@lru_cache(maxsize=1)
def _all() -> dict[str, tuple[ReportedFigure, ...]]:
    data = json.loads(FILE.read_text(encoding="utf-8"))
    found: dict[str, tuple[ReportedFigure, ...]] = {}
    for slug, entries in data.items():
        if slug.startswith("_"):
            continue
        figures = []
        for number, entry in enumerate(entries, 1):
            unknown = set(entry) - FIELDS
            missing = {"model", "metric", "value", "source", "date"} - set(entry)
            if unknown or missing or not isinstance(entry["value"], (int, float)):
                raise ValueError(
                    f"{FILE.name}, {slug} entry {number}: "
                    f"{'unknown ' + ', '.join(sorted(unknown)) if unknown else ''}"
                    f"{'missing ' + ', '.join(sorted(missing)) if missing else ''}"
                    f"{'' if unknown or missing else 'value must be a number'}"
                )
            figures.append(ReportedFigure(**{k: entry[k] for k in FIELDS if k in entry}))
        found[slug] = tuple(figures)
    return found


def reported_figures(slug: str, metric_columns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The benchmark's reported figures with their column's label and format, in the file's order.
    Raises ValueError for a figure whose metric is not one of the benchmark's columns."""
    columns = {c["key"]: c for c in metric_columns}
    rows = []
    for figure in _all().get(slug, ()):
        column = columns.get(figure.metric)
        if column is None:
            raise ValueError(
                f"{FILE.name}, {slug}: {figure.model}'s figure names the metric {figure.metric!r}, "
                f"which this benchmark does not have ({', '.join(columns)})"
            )
        rows.append(
            {
                "model": figure.model,
                "label": figure.label or column["label"],
                "slice": figure.slice.replace("=", ": "),
                "value": figure.value,
                "percent": column.get("format", "percent") == "percent",
                "source": figure.source,
                "date": figure.date,
            }
        )
    return rows
