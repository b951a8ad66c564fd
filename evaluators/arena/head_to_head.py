"""The Search Arena paper's cross-arena head-to-head test, per setting and per intent.

The paper (Section 3.3, Appendix F; its ``cross_setting_analysis`` notebook) put a search-augmented model
into the general Text Arena and a model without search into the Search Arena, and in each arena counted
the battles between a search-augmented side and a side without search: how often voters preferred the
search side. Per intent (and over all intents) it ran an exact binomial test against 1/2 on the wins and
losses alone (ties, both-bad included, left out), one-sided in the direction the counts lean (the side
with more wins is tested for "greater"; on a draw, the side without search), with no correction for testing
nine intents. This module computes the same figures from any battles (:func:`tally`), and adds what the
paper's printout did not have: the search side's win share with its Wilson 95% interval, the two-sided
p-value, and the two-sided p-values adjusted across the intents of one setting (Holm's step-down).

Which side is search-augmented is :func:`searched`: a contestant we configured searches in the
``search`` setting unless it is a plain ``chat`` contestant, and never in the ``chat`` setting; an
imported contestant (no configuration) counts as searching in a battle when its answers there cite
sources. A battle counts when exactly one side searched.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from evaluators.arena.attribution import wilson
from evaluators.arena.intent import INTENTS
from evaluators.arena.rating_types import OUTCOMES

Side = Literal["a", "b"]
#: the row of all intents together
ALL_INTENTS = "All intents"
#: the intent of a battle that was never classified
UNCLASSIFIED = "not classified"
#: the settings in the order they are shown
SETTINGS: tuple[str, ...] = ("search", "chat")


def binomial_tail(successes: int, n: int) -> float:
    """P(X >= successes) for X ~ Binomial(n, 1/2): the upper tail, summed term by term in log space."""
    if n < 0 or not 0 <= successes <= n + 1:
        raise ValueError(f"successes: expected 0..n+1 with n >= 0, got {successes} of {n}")
    if successes == 0:
        return 1.0
    log_half = n * math.log(0.5)
    log_n = math.lgamma(n + 1)
    terms = [math.exp(log_n - math.lgamma(k + 1) - math.lgamma(n - k + 1) + log_half) for k in range(successes, n + 1)]
    return min(1.0, math.fsum(terms))


def paper_p_value(wins: int, losses: int) -> float | None:
    """The paper's p-value: the exact binomial test of the larger count against 1/2, one-sided
    ("greater"), over wins + losses; on a draw the losses' side is tested. None without a decided battle."""
    n = wins + losses
    return binomial_tail(max(wins, losses), n) if n else None


def two_sided_p_value(wins: int, losses: int) -> float | None:
    """The two-sided exact binomial test against 1/2 (the distribution is symmetric: twice the smaller
    tail, at most 1). None without a decided battle."""
    n = wins + losses
    if not n:
        return None
    return 1.0 if wins == losses else min(1.0, 2 * binomial_tail(max(wins, losses), n))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of m p-values (family-wise error), in the order given."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def searched(setting: str, kind: str | None, cited: bool) -> bool:
    """Whether one side of a battle answered with search: a configured contestant (``kind``, its
    responder kind) searches in the ``search`` setting unless it is a plain ``chat`` contestant, and
    never in the ``chat`` setting; an imported one (``kind`` None) when its answers in the battle cite."""
    if kind is None:
        return cited
    return setting == "search" and kind != "chat"


def search_side(setting: str, a: tuple[str | None, bool], b: tuple[str | None, bool]) -> Side | None:
    """The side that searched when exactly one did (each side as (responder kind or None, cited)), else None."""
    found = (searched(setting, *a), searched(setting, *b))
    if found == (True, False):
        return "a"
    if found == (False, True):
        return "b"
    return None


@dataclass(frozen=True)
class MixedBattle:
    """One counted vote between a side with search and a side without: its setting, its primary intent
    ("" when not classified), the side that searched, and the vote (one of ``OUTCOMES``)."""

    setting: str
    intent: str
    search_side: Side
    winner: str

    def __post_init__(self) -> None:
        if self.winner not in OUTCOMES:
            raise ValueError(f"winner: {self.winner!r} is not one of {', '.join(OUTCOMES)}")
        if self.search_side not in ("a", "b"):
            raise ValueError(f"search_side: expected 'a' or 'b', got {self.search_side!r}")


@dataclass
class IntentTest:
    """One intent's head-to-head: the search side's wins, losses and ties (ties not in ``n``), its win
    share over wins + losses with the Wilson 95% interval, the paper's one-sided p-value, the two-sided
    one, and (per intent, not for all intents) the two-sided one Holm-adjusted across the setting's intents."""

    intent: str
    wins: int = 0
    losses: int = 0
    ties: int = 0
    n: int = 0
    share: float | None = None
    share_low: float | None = None
    share_high: float | None = None
    #: the side the counts lean to: "search", "no search", or "neither" on a draw
    leaning: str = "neither"
    p_value: float | None = None
    p_two_sided: float | None = None
    p_holm: float | None = None

    def finish(self) -> IntentTest:
        self.n = self.wins + self.losses
        if self.n:
            self.share = self.wins / self.n
            self.share_low, self.share_high = wilson(self.wins, self.n)
        self.leaning = "search" if self.wins > self.losses else "no search" if self.losses > self.wins else "neither"
        self.p_value = paper_p_value(self.wins, self.losses)
        self.p_two_sided = two_sided_p_value(self.wins, self.losses)
        return self


@dataclass
class SettingHeadToHead:
    """One setting's head-to-head: a row per intent (the paper's nine in its order, then any other, the
    unclassified last) and the row of all intents."""

    setting: str
    rows: list[IntentTest] = field(default_factory=list)
    overall: IntentTest = field(default_factory=lambda: IntentTest(intent=ALL_INTENTS))

    @property
    def battles(self) -> int:
        return self.overall.wins + self.overall.losses + self.overall.ties

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "battles": self.battles}


def _intent_order(intent: str) -> tuple[int, str]:
    if intent in INTENTS:
        return INTENTS.index(intent), ""
    return (len(INTENTS) + 1 if intent == UNCLASSIFIED else len(INTENTS)), intent


def tally(battles: Iterable[MixedBattle]) -> dict[str, SettingHeadToHead]:
    """The head-to-head of every setting in ``SETTINGS`` (one with no mixed battle has no rows)."""
    counts: dict[str, dict[str, IntentTest]] = {s: {} for s in SETTINGS}
    for battle in battles:
        if battle.setting not in counts:
            raise ValueError(f"setting: {battle.setting!r} is not one of {', '.join(SETTINGS)}")
        intent = battle.intent or UNCLASSIFIED
        row = counts[battle.setting].setdefault(intent, IntentTest(intent=intent))
        if battle.winner == f"model_{battle.search_side}":
            row.wins += 1
        elif battle.winner in ("model_a", "model_b"):
            row.losses += 1
        else:
            row.ties += 1
    found = {}
    for setting, by_intent in counts.items():
        rows = [by_intent[i].finish() for i in sorted(by_intent, key=_intent_order)]
        tested = [r for r in rows if r.p_two_sided is not None]
        for row, adjusted in zip(tested, holm([r.p_two_sided for r in tested if r.p_two_sided is not None])):
            row.p_holm = adjusted
        overall = IntentTest(
            intent=ALL_INTENTS,
            wins=sum(r.wins for r in rows),
            losses=sum(r.losses for r in rows),
            ties=sum(r.ties for r in rows),
        ).finish()
        found[setting] = SettingHeadToHead(setting=setting, rows=rows, overall=overall)
    return found


def group(
    records: Iterable[tuple[str, str, str, tuple[str | None, bool], tuple[str | None, bool]]],
) -> list[MixedBattle]:
    """The mixed battles among counted votes given as (setting, intent, winner, side A, side B), each side
    as (responder kind or None, cited); the others (both or neither searched) are left out."""
    mixed = []
    for setting, intent, winner, a, b in records:
        side = search_side(setting, a, b)
        if side is not None:
            mixed.append(MixedBattle(setting=setting, intent=intent, search_side=side, winner=winner))
    return mixed


__all__ = [
    "ALL_INTENTS",
    "SETTINGS",
    "UNCLASSIFIED",
    "IntentTest",
    "MixedBattle",
    "SettingHeadToHead",
    "binomial_tail",
    "group",
    "holm",
    "paper_p_value",
    "search_side",
    "searched",
    "tally",
    "two_sided_p_value",
]
