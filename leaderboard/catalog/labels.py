"""The one table of words for a benchmark's keys: metric keys ("ned_char"), slice dimensions ("question_type")
and slice values ("short_1", "cpp") to what a page prints ("Char. edit distance (0-100)", "Question type",
"Short answer 1", "C++"). The words come from the evaluator's declarations, synced onto the benchmark
(``metric_columns`` labels, ``slice_dimensions`` labels and ``value_labels``), and from the evaluator's words for
the keys an item result carries beyond them (``Presentation.item_labels``, ``item_value_labels``). Every page that
shows a key shows it through here; a key without words is shown as it is, and ``Labels.missing`` names the
keys that look like code and have no words (tests/web/test_words_not_code.py holds the site to it)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from evaluators.core import evaluator_for
from leaderboard.catalog.models import Benchmark

#: a value that is a code rather than words: lower-case letters, digits and _@+#.- with no space ("short_1",
#: "cpp", "easy"); a name ("Hindi"), a number ("32") or a phrase ("environment & public health") is words
_CODE_LIKE = re.compile(r"[a-z][a-z0-9_@+#.\-]*")


def code_like(text: str) -> bool:
    return bool(_CODE_LIKE.fullmatch(text))


@dataclass(frozen=True)
class Labels:
    """A benchmark's words for its keys; a lookup of an unknown key gives the key itself."""

    metrics: Mapping[str, str] = field(default_factory=dict)
    dimensions: Mapping[str, str] = field(default_factory=dict)
    values: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def metric(self, key: str) -> str:
        return self.metrics.get(key, key)

    def dimension(self, key: str) -> str:
        return self.dimensions.get(key, key)

    def value(self, dimension: str, value: str) -> str:
        return self.values.get(dimension, {}).get(value, value)

    def slice(self, slice_key: str) -> str:
        """A stored slice key ("language=cpp,difficulty=easy") in words ("Language: C++, Difficulty: Easy");
        "" (the whole benchmark) gives ""."""
        parts = [part.partition("=") for part in slice_key.split(",") if part]
        return ", ".join(f"{self.dimension(dim)}: {self.value(dim, value)}" for dim, _, value in parts)

    def slices(self, slices: Mapping[str, Any]) -> list[tuple[str, str]]:
        """An item's slices as (dimension, value) in words, in the item's order."""
        return [(self.dimension(dim), self.value(dim, str(value))) for dim, value in slices.items()]

    def missing(self, *, metrics: Iterable[str] = (), slices: Iterable[tuple[str, str]] = ()) -> list[str]:
        """The keys among ``metrics`` and ``slices`` ((dimension, value) pairs) that have no words: a metric
        or dimension key not in the table, a code-like value (``code_like``) not in it."""
        found = [f"metric {key!r}" for key in sorted(set(metrics)) if key not in self.metrics]
        for dim, value in sorted(set(slices)):
            if dim not in self.dimensions:
                found.append(f"slice dimension {dim!r}")
            if code_like(value) and value not in self.values.get(dim, {}):
                found.append(f"slice value {dim}={value!r}")
        return sorted(set(found))


def labels_for(benchmark: Benchmark) -> Labels:
    """The words for ``benchmark``'s keys (its columns and dimensions as synced, its evaluator's item words)."""
    metrics: dict[str, str] = {}
    dimensions: dict[str, str] = {}
    values: dict[str, dict[str, str]] = {}
    if benchmark.evaluator_key:
        evaluator = evaluator_for(benchmark.evaluator_key)
        shown = evaluator.presentation()
        metrics.update(shown.item_labels)
        dimensions.update(shown.item_labels)
        for dim, named in shown.item_value_labels.items():
            values.setdefault(dim, {}).update(named)
    metrics.update({str(c["key"]): str(c["label"]) for c in benchmark.metric_columns})
    for dim in benchmark.slice_dimensions:
        dimensions[str(dim["key"])] = str(dim["label"])
        values.setdefault(str(dim["key"]), {}).update(value_words(dim))
    return Labels(metrics, dimensions, values)


def value_words(dimension: Mapping[str, Any]) -> dict[str, str]:
    """A synced slice dimension's declared values in words (its ``value_labels``' full names; none: {})."""
    names = [str(pair[1]) for pair in dimension.get("value_labels") or []]
    return dict(zip((str(v) for v in dimension.get("values") or []), names))
