"""Which arena ratings are ranked and which are provisional: the one rule every page (the arena's board,
the home page's card, a model's profile, the models index, the comparison) and the ratings API apply to a
rating snapshot's rows.

The rule, after LMArena (which marks a new model "preliminary" until it has enough votes) and FastChat
(whose category boards list only models with more than 300 battles): a model is ranked once it has at
least the minimum number of counted votes (``LEADERBOARD_ARENA_MIN_VOTES``, the snapshot's
``min_votes``) and a finite 95% interval (at least one win and one loss, and a chain of battles to the
other models). Before that it is listed apart as provisional with its number of votes and no rating: a
rating from a handful of votes (1000, interval -1088 to 3088 after two) reads as a measurement and is
none. A model with enough votes that won (or lost) every one has only a one-sided bound, said in words
("at least 1234, no upper bound yet"). Ranks count ranked models only: 1 + the ranked models whose
lower bound lies above this model's upper bound, so a provisional model never pushes a ranked one down.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from leaderboard.arena.models import RatingSnapshot


def min_votes_of(snapshot: RatingSnapshot | None) -> int:
    """The minimum number of counted votes for a rank under which ``snapshot`` was computed (the
    setting when the snapshot does not say)."""
    found = (snapshot.config or {}).get("min_votes") if snapshot is not None else None
    return int(found if found is not None else settings.ARENA_MIN_VOTES)


def rule_text(min_votes: int) -> str:
    """The rule as the pages say it."""
    return (
        f"A model is ranked once it has at least {min_votes} counted vote{'s' if min_votes != 1 else ''} and a finite "
        f"95% "
        "interval (at least one win and one loss); until then it is listed apart as provisional, with its number of "
        "votes and no rating (LMArena likewise marks a new model preliminary until it has enough votes)."
    )


def is_ranked(row: dict[str, Any], min_votes: int) -> bool:
    return (
        int(row.get("votes") or 0) >= min_votes
        and row.get("bounded", True) is not False
        and row.get("rankable", True) is not False
        and row.get("ci_low") is not None
        and row.get("ci_high") is not None
        and row.get("rating") is not None
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def bound_text(row: dict[str, Any], min_votes: int) -> str:
    """A provisional row's one-sided 97.5% bound ("≥ 1234"), only once it has the votes for a rank and
    lacks only a finite interval; "" otherwise (a bound from a handful of votes reads as a measurement)."""
    if is_ranked(row, min_votes) or int(row.get("votes") or 0) < min_votes or row.get("bounded", True) is not False:
        return ""
    if row.get("ci_low") is not None and row.get("ci_high") is None:
        return f"≥ {row['ci_low']:.0f}"
    if row.get("ci_high") is not None and row.get("ci_low") is None:
        return f"≤ {row['ci_high']:.0f}"
    return ""


def standing_words(row: dict[str, Any], min_votes: int) -> str:
    """Why a row is not ranked, in words (any bound it has written out); "" for a ranked row."""
    if is_ranked(row, min_votes):
        return ""
    votes = int(row.get("votes") or 0)
    if votes == 0:
        return "provisional: no counted votes yet"
    head = f"provisional: {_plural(votes, 'vote')}"
    if votes < min_votes:
        return f"{head} (ranked from {min_votes})"
    if row.get("rankable", True) is False:
        return f"{head}, with no chain of battles to the other models yet"
    if row.get("ci_low") is not None and row.get("ci_high") is None:
        return (
            f"{head}, won every one, so its rating is unbounded above: with 97.5% confidence at least "
            f"{row['ci_low']:.0f} (interval {row['ci_low']:.0f} – open: no upper bound yet)"
        )
    if row.get("ci_high") is not None and row.get("ci_low") is None:
        return (
            f"{head}, lost every one, so its rating is unbounded below: with 97.5% confidence at most "
            f"{row['ci_high']:.0f} (interval open – {row['ci_high']:.0f}: no lower bound yet)"
        )
    return f"{head}, with no finite interval yet"


def _rank(row: dict[str, Any], ranked: list[dict[str, Any]]) -> int:
    return 1 + sum(1 for other in ranked if other["ci_low"] > row["ci_high"])


def with_standing(rows: list[dict[str, Any]], min_votes: int) -> list[dict[str, Any]]:
    """The rows with ``ranked``, ``rank`` (None when not ranked), ``provisional`` (True when not ranked)
    ``standing`` (the words for a row that is not) and ``bound`` (its one-sided bound, if it shows one), ranked rows
    first by rank then rating, the others after them by votes. The other fields are kept as stored."""
    ranked = [r for r in rows if is_ranked(r, min_votes)]
    out = []
    for row in rows:
        on = is_ranked(row, min_votes)
        out.append(
            {
                **row,
                "ranked": on,
                "rank": _rank(row, ranked) if on else None,
                "provisional": not on,
                "standing": standing_words(row, min_votes),
                "bound": bound_text(row, min_votes),
            }
        )
    return sorted(
        out,
        key=lambda r: (
            not r["ranked"],
            r["rank"] or 0,
            -(r["rating"] or 0.0) if r["ranked"] else -int(r.get("votes") or 0),
            str(r.get("name", "")),
        ),
    )


def snapshot_rows(snapshot: RatingSnapshot | None) -> list[dict[str, Any]]:
    """A snapshot's shown rows with their standing (empty without a snapshot)."""
    if snapshot is None:
        return []
    return with_standing(list(snapshot.result.get("models", [])), min_votes_of(snapshot))


def public_result(snapshot: RatingSnapshot) -> dict[str, Any]:
    """The snapshot's result as the ratings API serves it: each model row with its standing."""
    return {**snapshot.result, "models": snapshot_rows(snapshot)}


@dataclass(frozen=True)
class Standings:
    """A board's rows split: the ranked ones (best first) and those listed apart, with the rule."""

    ranked: list[dict[str, Any]] = field(default_factory=list)
    provisional: list[dict[str, Any]] = field(default_factory=list)
    min_votes: int = 0

    @property
    def rule(self) -> str:
        return rule_text(self.min_votes)

    @property
    def short_rule(self) -> str:
        return (
            f"Ranked from {self.min_votes} counted vote{'s' if self.min_votes != 1 else ''} with at least one win "
            f"and one loss."
        )


def standings(snapshot: RatingSnapshot | None) -> Standings:
    rows = snapshot_rows(snapshot)
    return Standings(
        ranked=[r for r in rows if r["ranked"]],
        provisional=[r for r in rows if not r["ranked"]],
        min_votes=min_votes_of(snapshot),
    )
