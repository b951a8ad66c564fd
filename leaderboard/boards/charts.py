"""The pictures on a model's leaderboard row and run page, shaped from its stored scores (no query):
a heatmap of a metric over two slice dimensions (IndicVisionBench: language x question type; Video
NIAH single hop: depth x frames) and lines of metrics against a numeric slice (Video NIAH multi hop:
accuracy against frames). An evaluator declares them (``Presentation.heatmap`` and ``Presentation.lines``,
evaluators.core.evaluator); the templates draw them with a readable table behind every picture."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evaluators.core import evaluator_for
from leaderboard.catalog.labels import labels_for, value_words
from leaderboard.catalog.models import Benchmark
from leaderboard.runs.score_keys import column_id, slice_key

#: the lines' colours and dashes, in the order of the evaluator's metrics
STROKES = (("#2563eb", ""), ("#d97706", "5 3"), ("#059669", "2 2"))
WIDTH, HEIGHT, PAD = 260, 110, 26


def specs(benchmark: Benchmark) -> dict[str, Any]:
    """The evaluator's declared pictures with the labels and values the page shows (empty: none)."""
    found: dict[str, Any] = {}
    if not benchmark.evaluator_key:
        return found
    evaluator = evaluator_for(benchmark.evaluator_key)
    dimensions = {d["key"]: d for d in benchmark.slice_dimensions}
    labels = {c["key"]: c["label"] for c in benchmark.metric_columns}
    shown = evaluator.presentation()
    heat = shown.heatmap
    if heat is not None and heat.rows in dimensions and heat.columns in dimensions:
        found["heatmap"] = {
            "rows": dimensions[heat.rows],
            "columns": dimensions[heat.columns],
            "metric": heat.metric,
            "label": labels.get(heat.metric, heat.metric),
            "scale": float(heat.scale),
        }
    drawn = shown.lines
    if drawn is not None and drawn.dimension in dimensions:
        found["lines"] = {
            "x": dimensions[drawn.dimension],
            "metrics": [(key, labels.get(key, key)) for key in drawn.metrics],
        }
    return found


def figures(found: dict[str, Any], values: Mapping[str, list]) -> dict[str, Any]:
    """``heatmap`` and ``lines`` of one model's stored values (``LeaderboardEntry.values`` or a run's scores)."""
    return {
        "heatmap": heatmap(found["heatmap"], values) if "heatmap" in found else None,
        "lines": lines(found["lines"], values) if "lines" in found else None,
    }


def heatmap(spec: dict[str, Any], values: Mapping[str, list]) -> dict[str, Any] | None:
    """A row per value of one dimension, a column per value of the other, each cell shaded by its
    share of the full scale with the value printed (the colour is never the only cue); a cell the
    model could not take (every request over its limit) says so."""
    rows_dim, cols_dim = spec["rows"], spec["columns"]
    rows = []
    for row in rows_dim["values"]:
        cells = []
        for column in cols_dim["values"]:
            key = slice_key({rows_dim["key"]: row, cols_dim["key"]: column})
            vec = values.get(column_id(spec["metric"], key)) or [None, None, None, 0]
            over = (values.get(column_id("over_limit", key)) or [0.0])[0] or 0.0
            share = None if vec[0] is None else max(0.0, min(1.0, vec[0] / spec["scale"]))
            cells.append(
                {
                    "value": vec[0],
                    "share": share,
                    "percent": spec["scale"] == 1.0,
                    "n": vec[3],
                    "over_limit": vec[0] is None and over >= 1.0,
                }
            )
        if any(cell["value"] is not None or cell["over_limit"] for cell in cells):
            rows.append({"label": value_words(rows_dim).get(row, row), "cells": cells})
    if not rows:
        return None
    columns = value_words(cols_dim)
    return {
        "rows_label": rows_dim["label"],
        "columns_label": cols_dim["label"],
        "metric": spec["label"],
        "columns": [columns.get(v, v) for v in cols_dim["values"]],
        "rows": rows,
    }


def lines(spec: dict[str, Any], values: Mapping[str, list]) -> dict[str, Any] | None:
    """Metrics (0..1) against a numeric dimension as an SVG's polylines, and the same figures as a table."""
    x_dim = spec["x"]
    xs = [
        x
        for x in x_dim["values"]
        if any(values.get(column_id(k, slice_key({x_dim["key"]: x}))) for k, _ in spec["metrics"])
    ]
    if not xs:
        return None
    numbers = [float(x) for x in xs]
    low, high = min(numbers), max(numbers)

    def px(x: float) -> float:
        return PAD + (WIDTH - 2 * PAD) * ((x - low) / (high - low) if high > low else 0.5)

    def py(y: float) -> float:
        return HEIGHT - PAD + (2 * PAD - HEIGHT) * max(0.0, min(1.0, y))

    series, table = [], []
    for (key, label), (colour, dash) in zip(spec["metrics"], STROKES):
        points = [(x, (values.get(column_id(key, slice_key({x_dim["key"]: x}))) or [None])[0]) for x in xs]
        drawn = [(px(float(x)), py(y)) for x, y in points if y is not None]
        series.append(
            {
                "label": label,
                "colour": colour,
                "dash": dash,
                "points": " ".join(f"{a:.1f},{b:.1f}" for a, b in drawn),
                "dots": drawn,
            }
        )
        table.append({"label": label, "colour": colour, "values": [y for _, y in points]})
    ticks = [{"x": px(float(x)), "label": x} for x in xs]
    return {
        "x_label": x_dim["label"],
        "series": series,
        "table": table,
        "xs": xs,
        "ticks": ticks,
        "width": WIDTH,
        "height": HEIGHT,
        "top": py(1.0),
        "bottom": py(0.0),
        "mid": py(0.5),
        "left": PAD,
        "right": WIDTH - PAD,
    }


def run_summary(run: Any) -> dict[str, Any]:
    """A succeeded run's headline scores (labelled and formatted as its benchmark's columns, the
    rest after them) and its pictures, from the run's stored scores."""
    benchmark = run.benchmark
    scores = list(run.scores.all())
    values = {column_id(s.key, s.slice_key): [s.value, s.ci_low, s.ci_high, s.n] for s in scores}
    columns = {c["key"]: c for c in benchmark.metric_columns}
    order = {key: i for i, key in enumerate(columns)}
    headline = sorted((s for s in scores if not s.slice_key), key=lambda s: (order.get(s.key, len(order)), s.key))
    words = labels_for(benchmark)
    rows = [
        {"label": words.metric(s.key), "cell": s, "fmt": columns.get(s.key, {}).get("format", "number")}
        for s in headline
    ]
    return {"headline": rows, **figures(specs(benchmark), values)}
