"""The arena's prompt distribution, as the Search Arena paper's data analysis shows it (its section 2 and
appendix B): the conversations' primary intents, their languages (the first detected), turns per
conversation (1 to 6, then more than 6), the first prompt's length in words (split on white space) overall
and per intent, and conversations per week (Monday, UTC) by intent.

The population is the conversations behind the counted public votes (those the ratings use:
``selectors.public_votes``, past the public cut, no pre-release variant under test); an imported
conversation is placed in time by its released timestamp. Shares carry Wilson 95% intervals; lengths
are given as quartiles. Computed by the periodic pass after the ratings and kept with them
(``arena.published``); pages read it from there.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from typing import Any

from leaderboard.arena.labels import language_name
from leaderboard.arena.models import Turn
from leaderboard.arena.selectors import public_votes
from leaderboard.arena.transparency import share_row

#: how many languages are listed by name (the rest are one row), as the paper's figure does
TOP_LANGUAGES = 15
#: turns per conversation: 1..6 one bin each, then "more than 6"
TURN_BINS = 6
#: the first prompt's length in words, binned: (lowest, highest) with None for no upper end
LENGTH_BINS: tuple[tuple[int, int | None], ...] = (
    (1, 5),
    (6, 10),
    (11, 20),
    (21, 50),
    (51, 100),
    (101, 200),
    (201, 500),
    (501, None),
)
UNCLASSIFIED = "not classified"
#: the colours of the intents in the per-week chart, in the order of the intents (most asked first)
PALETTE = ("#2563eb", "#f59e0b", "#10b981", "#9333ea", "#e11d48", "#0891b2", "#65a30d", "#475569", "#a16207", "#db2777")


def words(text: str) -> int:
    """A prompt's length in words: its white-space separated pieces."""
    return len(text.split())


def quantiles(values: list[int]) -> dict[str, float] | None:
    """The quartiles, the 99th percentile and the mean (linear interpolation, as numpy's default)."""
    import numpy as np

    if not values:
        return None
    q1, median, q3, p99 = (float(x) for x in np.percentile(values, [25, 50, 75, 99]))
    return {"n": len(values), "q1": q1, "median": median, "q3": q3, "p99": p99, "mean": float(np.mean(values))}


def _week(at: dt.datetime) -> dt.date:
    day = at.astimezone(dt.UTC).date()
    return day - dt.timedelta(days=day.weekday())


def _timestamp(stamp: Any, created: dt.datetime) -> dt.datetime:
    """When the conversation happened: an imported one's released timestamp, else when it was created."""
    if isinstance(stamp, str):
        try:
            parsed = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
        except ValueError:
            return created
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)
    return created


def _rows(counter: Counter[str], total: int, order: list[str]) -> list[dict[str, Any]]:
    top = max(counter.values(), default=0) or 1
    return [{"value": label, **share_row(counter[label], total), "bar": 100 * counter[label] / top} for label in order]


def prompt_distribution() -> dict[str, Any]:
    """The distribution (module doc), computed now (``arena.published.distribution``: as kept with the latest
    ratings)."""
    counted = public_votes().filter(valid=True)
    rows = list(
        counted.values_list(
            "battle_id", "battle__primary_intent", "battle__languages", "battle__extra__timestamp", "battle__created_at"
        )
    )
    total = len(rows)
    if not total:
        return {"n": 0}
    battles = counted.values("battle_id")  # a subquery: the counted battles are never sent back as a list of ids
    turns = Counter(
        Turn.objects.filter(battle_id__in=battles).values_list("battle_id", flat=True).iterator(chunk_size=10_000)
    )
    lengths = {
        battle: words(prompt)
        for battle, prompt in Turn.objects.filter(battle_id__in=battles, index=0)
        .values_list("battle_id", "prompt")
        .iterator(chunk_size=2000)
    }
    intents: Counter[str] = Counter()
    languages: Counter[str] = Counter()
    turn_bins: Counter[str] = Counter()
    length_bins: Counter[str] = Counter()
    by_intent: dict[str, list[int]] = defaultdict(list)
    weeks: dict[dt.date, Counter[str]] = defaultdict(Counter)
    bin_labels = [f"{low}–{high}" if high else f"more than {low - 1}" for low, high in LENGTH_BINS]
    turn_labels = [str(i) for i in range(1, TURN_BINS + 1)] + [f"more than {TURN_BINS}"]
    for battle, intent, langs, stamp, created in rows:
        intent = intent or UNCLASSIFIED
        intents[intent] += 1
        languages[language_name(langs[0]) if langs else "Undetermined (und)"] += 1
        n_turns = max(turns[battle], 1)
        turn_bins[turn_labels[min(n_turns, TURN_BINS + 1) - 1]] += 1
        length = lengths.get(battle, 0)
        by_intent[intent].append(length)
        length_bins[
            next(label for (low, high), label in zip(LENGTH_BINS, bin_labels) if high is None or length <= high)
        ] += 1
        weeks[_week(_timestamp(stamp, created))][intent] += 1
    intent_order = [label for label, _ in intents.most_common()]
    languages, named = _top_languages(languages)
    return {
        "n": total,
        "intents": _rows(intents, total, intent_order),
        "languages": _rows(languages, total, named),
        "turns": _rows(turn_bins, total, turn_labels),
        "lengths": _rows(length_bins, total, bin_labels),
        "length_summary": quantiles([lengths.get(r[0], 0) for r in rows]),
        "length_by_intent": [{"intent": i, **(quantiles(by_intent[i]) or {})} for i in intent_order],
        "weeks": _week_rows(weeks, intent_order),
        "intent_order": intent_order,
        "legend": [{"intent": i, "colour": PALETTE[k % len(PALETTE)]} for k, i in enumerate(intent_order)],
        "method": (
            "the conversations behind the counted votes; intent: the battle's primary intent (its classifier is named "
            "with the ratings); language: the first language detected in the prompts; length: the first prompt's "
            "words, split on white space; week: Monday to Sunday, UTC, by the conversation's time (an imported "
            "one's released timestamp); shares with Wilson 95% intervals"
        ),
    }


def _top_languages(languages: Counter[str]) -> tuple[Counter[str], list[str]]:
    """The TOP_LANGUAGES most common languages, the rest counted as "other languages"; and their order."""
    named = [label for label, _ in languages.most_common(TOP_LANGUAGES)]
    if len(languages) <= TOP_LANGUAGES:
        return languages, named
    kept = Counter(
        {
            **{k: languages[k] for k in named},
            "other languages": sum(languages.values()) - sum(languages[k] for k in named),
        }
    )
    return kept, [*named, "other languages"]


def _week_rows(weeks: dict[dt.date, Counter[str]], intent_order: list[str]) -> list[dict[str, Any]]:
    """Each week's conversations, as a bar split by intent (widths relative to the busiest week)."""
    top_week = max((sum(c.values()) for c in weeks.values()), default=1)
    return [
        {
            "week": week,
            "count": sum(counter.values()),
            "bar": 100 * sum(counter.values()) / top_week,
            "by_intent": [counter[i] for i in intent_order],
            "segments": [
                {"intent": i, "width": 100 * counter[i] / top_week, "colour": PALETTE[k % len(PALETTE)]}
                for k, i in enumerate(intent_order)
                if counter[i]
            ],
        }
        for week, counter in sorted(weeks.items())
    ]
