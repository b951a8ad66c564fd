"""Two models side by side: per benchmark, the headline and the first slice dimension's values, each with
its interval, a difference marked significant when the two 95% intervals do not overlap; the items one
model gets right and the other wrong (from the per-item results of runs on the same dataset version);
and in the Search Arena, their head-to-head record and the win rate the ratings predict, with an
interval. For ``/compare/`` and ``GET /api/compare/``. Reads only."""

from __future__ import annotations

import math
from typing import Any

from django.db.models import Q

from leaderboard.arena import standing
from leaderboard.arena.catalog_link import contestant_names
from leaderboard.arena.selectors import latest_snapshots, public_votes
from leaderboard.boards.selectors import model_scores
from leaderboard.catalog.labels import labels_for
from leaderboard.catalog.models import Model
from leaderboard.modelhost.validation import run_status
from leaderboard.runs.models import ItemResult, Score

#: the most items listed where the two models differ, per benchmark
ITEM_LIMIT = 100


def _cell(score: Score | None) -> dict[str, Any] | None:
    return (
        None
        if score is None
        else {"value": score.value, "ci_low": score.ci_low, "ci_high": score.ci_high, "n": score.n}
    )


def _better(a: dict | None, b: dict | None, higher: bool) -> str:
    """ "a" or "b" when that model's interval lies entirely on the better side of the other's, else ""."""
    if not a or not b or None in (a["ci_low"], a["ci_high"], b["ci_low"], b["ci_high"]):
        return ""
    if a["ci_low"] > b["ci_high"]:
        return "a" if higher else "b"
    if b["ci_low"] > a["ci_high"]:
        return "b" if higher else "a"
    return ""


def _item_key(scores: dict[str, float], primary: str) -> str | None:
    return primary if primary in scores else "correct" if "correct" in scores else None


def _item_scores(pairs: list[tuple[Any, Any]]) -> dict[int, dict[str, Any]]:
    """Each run's per-item scores (by run id, then item id), for the pairs of runs on the same dataset version:
    one query for every board the two models share (it was two a board)."""
    runs = [run.pk for a, b in pairs if a.dataset_version_id == b.dataset_version_id for run in (a, b)]
    found: dict[int, dict[str, Any]] = {run: {} for run in runs}
    for run, item_id, scores in ItemResult.objects.filter(run__in=runs).values_list("run_id", "item_id", "scores"):
        found[run][item_id] = scores
    return found


def _items(run_a: Any, run_b: Any, primary: str, higher: bool, scores: dict[int, dict[str, Any]]) -> dict[str, Any]:
    if run_a.dataset_version_id != run_b.dataset_version_id:
        return {"comparable": False, "rows": [], "a_only": 0, "b_only": 0}
    a, b = scores[run_a.pk], scores[run_b.pk]
    rows: list[dict[str, Any]] = []
    a_only = b_only = 0
    for item_id in sorted(set(a) & set(b)):
        key = _item_key(a[item_id], primary)
        if key is None or key not in b[item_id]:
            continue
        x, y = a[item_id][key], b[item_id][key]
        if x == y:
            continue
        a_wins = (x > y) == higher
        a_only += a_wins
        b_only += not a_wins
        if len(rows) < ITEM_LIMIT:
            rows.append({"item": item_id, "a": x, "b": y, "better": "a" if a_wins else "b"})
    return {"comparable": True, "rows": rows, "a_only": a_only, "b_only": b_only, "key": primary}


def _arena(model_a: Model, model_b: Model) -> dict[str, Any] | None:
    """The two models' arena head-to-head, when both are linked to a contestant (``arena.catalog_link``;
    never by name): their record, and a predicted win share only when both are ranked (``arena.standing``)."""
    linked = contestant_names([model_a.pk, model_b.pk])
    snapshot = latest_snapshots().raw
    if snapshot is None or model_a.pk not in linked or model_b.pk not in linked:
        return None
    a, b = linked[model_a.pk], linked[model_b.pk]
    rows = {m["name"]: m for m in standing.snapshot_rows(snapshot)}
    if a not in rows or b not in rows:
        return None
    votes = (
        public_votes()
        .filter(valid=True)
        .filter(
            Q(battle__model_a__name=a, battle__model_b__name=b) | Q(battle__model_a__name=b, battle__model_b__name=a)
        )
    )
    record = {"a": 0, "b": 0, "ties": 0}
    for winner, left in votes.values_list("winner", "battle__model_a__name"):
        if winner in ("model_a", "model_b"):
            record["a" if (winner == "model_a") == (left == a) else "b"] += 1
        else:
            record["ties"] += 1
    ra, rb = rows[a], rows[b]
    predicted = low = high = None
    if ra["ranked"] and rb["ranked"]:
        diff = ra["rating"] - rb["rating"]
        se = math.hypot((ra["ci_high"] - ra["ci_low"]) / 3.92, (rb["ci_high"] - rb["ci_low"]) / 3.92)

        def share(d: float) -> float:
            return 1.0 / (1.0 + 10 ** (-d / 400.0))

        predicted, low, high = share(diff), share(diff - 1.96 * se), share(diff + 1.96 * se)
    return {
        "record": record,
        "predicted": predicted,
        "predicted_low": low,
        "predicted_high": high,
        "rating_a": ra["rating"] if ra["ranked"] else None,
        "rating_b": rb["rating"] if rb["ranked"] else None,
        "standing_a": ra["standing"],
        "standing_b": rb["standing"],
    }


def compare_models(*, a: Model, b: Model, user: Any) -> dict[str, Any]:
    found_a = {bench.pk: (bench, run, scores) for bench, run, scores in model_scores(model=a, user=user)}
    found_b = {bench.pk: (bench, run, scores) for bench, run, scores in model_scores(model=b, user=user)}
    benchmarks = []
    item_scores = _item_scores([(found_a[pk][1], found_b[pk][1]) for pk in found_a if pk in found_b])
    for pk in (
        [k for k in found_a if k in found_b]
        + [k for k in found_a if k not in found_b]
        + [k for k in found_b if k not in found_a]
    ):
        bench = (found_a.get(pk) or found_b[pk])[0]
        primary = next((c for c in bench.metric_columns if c.get("primary")), None)
        if primary is None:
            continue
        higher = primary.get("higher_is_better", True)
        scores_a = {s.slice_key: s for s in (found_a[pk][2] if pk in found_a else []) if s.key == primary["key"]}
        scores_b = {s.slice_key: s for s in (found_b[pk][2] if pk in found_b else []) if s.key == primary["key"]}
        slices = [""]
        if bench.slice_dimensions:
            dim = bench.slice_dimensions[0]
            slices += [
                f"{dim['key']}={v}"
                for v in dim["values"]
                if f"{dim['key']}={v}" in scores_a or f"{dim['key']}={v}" in scores_b
            ]
        statuses = [
            run_status(bench, found[pk][1].environment, found[pk][1].dataset_version.judge_validations)
            for found in (found_a, found_b)
            if pk in found
        ]
        unranked = next((status.reason for status in statuses if not status.ranked), "")
        rows = []
        words = labels_for(bench)
        for key in slices:
            ca, cb = _cell(scores_a.get(key)), _cell(scores_b.get(key))
            rows.append(
                {
                    "slice": key.split("=", 1)[1] if key else "all",
                    "label": words.value(*key.split("=", 1)) if key else "all",
                    "a": ca,
                    "b": cb,
                    "better": "" if unranked else _better(ca, cb, higher),
                }
            )
        items = (
            _items(found_a[pk][1], found_b[pk][1], primary["key"], higher, item_scores)
            if pk in found_a and pk in found_b
            else None
        )
        benchmarks.append(
            {
                "benchmark": bench.slug,
                "name": bench.name,
                "metric": primary["label"],
                "format": primary.get("format", "percent"),
                "higher_is_better": higher,
                "rows": rows,
                "items": items,
                "unranked_reason": unranked,
                "run_a": found_a[pk][1].pk if pk in found_a else None,
                "run_b": found_b[pk][1].pk if pk in found_b else None,
            }
        )
    return {
        "a": a.slug,
        "b": b.slug,
        "a_name": a.name,
        "b_name": b.name,
        "benchmarks": benchmarks,
        "arena": _arena(a, b),
    }
