"""Citation attribution of the arena's answers: run after a turn is answered (in the arena worker, after
the intent), stored per turn and side with the raw judge calls, and counted per battle for the
style-controlled ratings. The method is ``evaluators.arena.attribution``'s; the judge is the one
configured under the role ``arena-attribution`` in LEADERBOARD_JUDGES, else the documented heuristic."""

from __future__ import annotations

import json
import logging
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from django.db import connection
from django.db.models import Exists, OuterRef, Q, QuerySet

from evaluators.arena.attribution import JUDGE_ROLE, attribute
from evaluators.llm.judges import Judge
from leaderboard.arena.models import SIDE_FIELDS, SIDES, AnswerStatus, Turn, TurnAttribution
from leaderboard.arena.selectors import answer_from_dict

log = logging.getLogger(__name__)

_judges: dict[str, Judge] = {}


def attribution_judge() -> tuple[Judge | None, str]:
    """The configured attribution judge (one per process, its connection pool reused), or (None, why
    not): no judge under the role is the heuristic's ordinary case, a badly configured one is named."""
    from leaderboard.modelhost.judging import JudgeNotConfigured, judge_for, judges_configured

    try:
        entry = judges_configured().get(JUDGE_ROLE)
        if entry is None:
            return None, ""
        key = json.dumps(entry, sort_keys=True)  # a changed setting gets a new judge
        if key not in _judges:
            _judges[key] = judge_for(JUDGE_ROLE, concurrency=4)
    except JudgeNotConfigured as exc:
        return None, f"attribution judge not usable: {exc}"
    return _judges[key], ""


def turn_attribute(*, turn_id: int) -> int:
    """Attribute each finished side of the turn whose answer cites sources (again, when asked again:
    the row is replaced). Returns the number of sides stored."""
    turn = Turn.objects.filter(pk=turn_id).first()
    if turn is None:
        return 0
    stored = 0
    for side in SIDES:
        found = side_attribution(turn, side)
        if found is not None:
            TurnAttribution.objects.update_or_create(turn=turn, side=side, defaults=found)
            stored += 1
    return stored


def side_attribution(turn: Turn, side: str) -> dict[str, Any] | None:
    """One side's attribution as the stored row's fields, or None when the side has nothing to check
    (not complete, or no sources)."""
    answer = answer_from_dict(turn.answer_of(side))
    if turn.status_of(side) != AnswerStatus.COMPLETE or answer is None or not answer.sources:
        return None
    judge, problem = attribution_judge()
    found = attribute(answer, judge=judge)
    counts = found.counts()
    return {
        "method": f"{found.method}; {problem}" if problem else found.method,
        "pairs": [p.to_dict() for p in found.pairs],
        "judge_calls": found.judge_calls,
        "supported": counts["supported"],
        "irrelevant": counts["irrelevant"],
        "contradicting": counts["contradicting"],
        "unchecked": counts["unchecked"],
        "failed": counts["failed"],
    }


def _missing(side: str) -> Q:
    """Turns whose ``side`` answered completely with sources and has no stored attribution."""
    fields = SIDE_FIELDS[side]
    return Q(**{fields.status: AnswerStatus.COMPLETE, f"{fields.answer}__sources__0__isnull": False}) & ~Q(
        Exists(TurnAttribution.objects.filter(turn=OuterRef("pk"), side=side))
    )


def turns_missing_attribution() -> QuerySet[Turn]:
    """Turns with at least one side to attribute (complete, citing sources, nothing stored yet)."""
    return Turn.objects.filter(_missing("a") | _missing("b"))


#: the advisory lock that lets one backfill run at a time (so no turn is sent to the judge twice)
BACKFILL_LOCK = 0x61726E61  # "arna"


class BackfillRunning(RuntimeError):
    """Another attribution backfill holds the lock."""


def attributions_backfill(
    *, batch_size: int = 100, limit: int | None = None, progress: Callable[[dict[str, int]], None] | None = None
) -> dict[str, int]:
    """Attribute the older turns that lack it, oldest first, ``batch_size`` turns per batch, at most
    ``limit`` turns. Resumable: each batch reads the turns still missing, so an interrupted run goes on
    where it stopped; idempotent: a side with a stored row is never attributed again, and one run at a
    time (a Postgres advisory lock, else ``BackfillRunning``). ``progress`` gets the counts after each batch."""
    if batch_size < 1:
        raise ValueError("batch_size: must be at least 1")
    done = {"batches": 0, "turns": 0, "sides": 0, "remaining": turns_missing_attribution().count()}
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [BACKFILL_LOCK])
        if not cursor.fetchone()[0]:
            raise BackfillRunning("another attribution backfill is running; wait for it to finish")
    try:
        last = 0
        while limit is None or done["turns"] < limit:
            size = batch_size if limit is None else min(batch_size, limit - done["turns"])
            batch = list(turns_missing_attribution().filter(pk__gt=last).order_by("pk")[:size])
            if not batch:
                break
            for turn in batch:
                for side in SIDES:
                    if TurnAttribution.objects.filter(turn=turn, side=side).exists():
                        continue  # stored by the turn's own task since the batch was read
                    found = side_attribution(turn, side)
                    if found is not None:
                        _, created = TurnAttribution.objects.get_or_create(turn=turn, side=side, defaults=found)
                        done["sides"] += int(created)
                last = turn.pk
            done["batches"] += 1
            done["turns"] += len(batch)
            done["remaining"] = turns_missing_attribution().count()
            if progress is not None:
                progress(dict(done))
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s)", [BACKFILL_LOCK])
    return done


def turn_attribute_quietly(turn_id: int) -> None:
    """``turn_attribute`` for the turn task: an answered turn is never failed by its attribution."""
    try:
        turn_attribute(turn_id=turn_id)
    except Exception:  # logged; the battle goes on without labels, and a later batch run can add them
        log.exception("citation attribution of arena turn %s failed", turn_id)


def battle_attribution_features(battle_ids: list[int] | None = None) -> dict[tuple[int, str], dict[str, float]]:
    """(battle id, side) -> the attribution style features: supported and unsupported (irrelevant or
    contradicting) citations per turn of the battle, as the released analysis normalizes its counts.
    Unchecked and failed pairs count in neither (the release counts its "Failed" nowhere). A battle with no stored
    attribution is absent (its features stay 0)."""
    rows = TurnAttribution.objects.all()
    if battle_ids is not None:
        rows = rows.filter(turn__battle_id__in=battle_ids)
    sums: dict[tuple[int, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    turns: dict[int, int] = {}
    for battle_id, side, supported, irrelevant, contradicting in rows.values_list(
        "turn__battle_id", "side", "supported", "irrelevant", "contradicting"
    ):
        sums[(battle_id, side)][0] += supported
        sums[(battle_id, side)][1] += irrelevant + contradicting
        turns[battle_id] = 0
    for battle_id in Turn.objects.filter(battle_id__in=list(turns)).values_list("battle_id", flat=True):
        turns[battle_id] += 1
    return {
        key: {"supported_citations": s / max(1, turns[key[0]]), "unsupported_citations": u / max(1, turns[key[0]])}
        for key, (s, u) in sums.items()
    }
