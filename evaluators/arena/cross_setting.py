"""The cross-arena comparison: each model's rating with web search and in plain chat, and the difference.

The two settings are rated separately (:func:`evaluators.arena.ratings.rate` on each setting's votes);
a Bradley-Terry scale is fixed only up to a shift, so the ratings compare across settings only when
both fits hold the same model at the same rating. :func:`common_reference` picks that model (the
configured one when it was voted on in both settings, else the model with the most votes in its
less-voted setting), and :func:`compare` reads the two results side by side.

A model's difference is its chat rating minus its search rating, both relative to the common reference
(whose difference is 0 by construction): a positive difference means the model does better, against the
reference, in plain chat than with search. The settings' votes are independent, so the difference's
95% interval combines the two intervals' sides in quadrature (lower end: the chat interval's lower
half-width with the search interval's upper one), a normal approximation to the two bootstrap intervals.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from evaluators.arena.rating_types import BattleArrays, BattleRecord


def common_reference(
    votes_by_setting: Mapping[str, Sequence[BattleRecord] | BattleArrays], configured: str | None = None
) -> str | None:
    """The model both settings' fits are anchored on: ``configured`` when it has votes in every setting,
    else the model with the most votes in its least-voted setting (then most votes in all, then name);
    None when no model has votes in every setting. Each setting's votes as BattleRecords or BattleArrays."""
    counts = [_votes_per_model(votes) for votes in votes_by_setting.values()]
    if not counts:
        return None
    shared = sorted(set.intersection(*(set(c) for c in counts)))
    if configured in shared:
        return configured
    if not shared:
        return None
    return max(shared, key=lambda name: (min(c[name] for c in counts), sum(c[name] for c in counts)))


def _votes_per_model(votes: Sequence[BattleRecord] | BattleArrays) -> Counter[str]:
    """How many of these votes each model took part in."""
    if isinstance(votes, BattleArrays):
        seats = np.bincount(votes.a, minlength=len(votes.models)) + np.bincount(votes.b, minlength=len(votes.models))
        return Counter({name: int(n) for name, n in zip(votes.models, seats.tolist()) if n})
    counted: Counter[str] = Counter()
    for r in votes:
        counted[r.model_a] += 1
        counted[r.model_b] += 1
    return counted


@dataclass
class ComparedModel:
    """One model in both settings: ratings with 95% intervals and votes, and chat minus search."""

    name: str
    search_rating: float
    search_low: float
    search_high: float
    search_votes: int
    chat_rating: float
    chat_low: float
    chat_high: float
    chat_votes: int
    difference: float
    difference_low: float
    difference_high: float
    reference: bool = False

    @property
    def clear(self) -> bool:
        """The difference's interval excludes zero."""
        return self.difference_low > 0 or self.difference_high < 0


@dataclass
class SettingComparison:
    """The two settings side by side. ``comparable`` is False (with ``why_not``) when the fits are not
    anchored on the same model; ``rows`` then stays empty."""

    reference: str
    comparable: bool
    why_not: str = ""
    rows: list[ComparedModel] = field(default_factory=list)
    #: models rated in one setting only (or not estimable in the other), by setting
    only_in: dict[str, list[str]] = field(default_factory=dict)
    method: str = ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for row, model in zip(data["rows"], self.rows):
            row["clear"] = model.clear
        return data


METHOD = (
    "Each setting's valid votes fitted separately by the arena's Bradley-Terry fit (bootstrap 95% intervals), "
    "both anchored on the same model; difference = chat minus search, its 95% interval the two independent "
    "intervals combined in quadrature side by side (normal approximation)"
)


def _estimable(result: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The models of a rating result with a finite rating and a closed interval."""
    return {
        m["name"]: m
        for m in result.get("models", [])
        if not m.get("note") and m.get("ci_low") is not None and m.get("ci_high") is not None
    }


def compare(search: Mapping[str, Any], chat: Mapping[str, Any]) -> SettingComparison:
    """Two rating results (``RatingResult.to_dict()``: the search setting's and the chat setting's) side by side."""
    anchors = [(r.get("anchor") or {}) for r in (search, chat)]
    names = [a.get("model", "") if a.get("kind") == "reference" else "" for a in anchors]
    rated = [_estimable(search), _estimable(chat)]
    only_in = {"search": sorted(set(rated[0]) - set(rated[1])), "chat": sorted(set(rated[1]) - set(rated[0]))}
    if not set(rated[0]) & set(rated[1]) or not names[0] or names[0] != names[1]:
        why = (
            "no model has a rating in both settings yet, so the two scales cannot be tied together"
            if not set(rated[0]) & set(rated[1])
            else f"the settings are anchored on different models ({names[0] or 'the mean'} with search, "
            f"{names[1] or 'the mean'} in plain chat), so their ratings do not compare"
        )
        return SettingComparison(reference="", comparable=False, why_not=why, only_in=only_in, method=METHOD)
    rows = []
    for name in sorted(set(rated[0]) & set(rated[1])):
        s, c = rated[0][name], rated[1][name]
        difference = c["rating"] - s["rating"]
        below = math.hypot(c["rating"] - c["ci_low"], s["ci_high"] - s["rating"])
        above = math.hypot(c["ci_high"] - c["rating"], s["rating"] - s["ci_low"])
        rows.append(
            ComparedModel(
                name=name,
                search_rating=s["rating"],
                search_low=s["ci_low"],
                search_high=s["ci_high"],
                search_votes=int(s["votes"]),
                chat_rating=c["rating"],
                chat_low=c["ci_low"],
                chat_high=c["ci_high"],
                chat_votes=int(c["votes"]),
                difference=difference,
                difference_low=difference - below,
                difference_high=difference + above,
                reference=name == names[0],
            )
        )
    rows.sort(key=lambda r: -r.search_rating)
    return SettingComparison(reference=names[0], comparable=True, rows=rows, only_in=only_in, method=METHOD)
