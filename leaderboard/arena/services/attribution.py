"""Citation attribution of the arena's answers: run after a turn is answered (in the arena worker, after
the intent), stored per turn and side with the raw judge calls, and counted per battle for the
style-controlled ratings. The method is ``evaluators.arena.attribution``'s; the judge is the one
configured under the role ``arena-attribution`` in LEADERBOARD_JUDGES, else the documented heuristic."""
from __future__ import annotations

import json
import logging
from collections import defaultdict
from typing import Any

from evaluators.arena.attribution import JUDGE_ROLE, attribute
from evaluators.llm.judges import Judge
from leaderboard.arena.models import SIDES, AnswerStatus, Turn, TurnAttribution
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
        answer = answer_from_dict(turn.answer_of(side))
        if turn.status_of(side) != AnswerStatus.COMPLETE or answer is None or not answer.sources:
            continue
        judge, problem = attribution_judge()
        found = attribute(answer, judge=judge)
        counts = found.counts()
        TurnAttribution.objects.update_or_create(turn=turn, side=side, defaults={
            "method": f"{found.method}; {problem}" if problem else found.method,
            "pairs": [p.to_dict() for p in found.pairs], "judge_calls": found.judge_calls,
            "supported": counts["supported"], "irrelevant": counts["irrelevant"],
            "contradicting": counts["contradicting"], "unchecked": counts["unchecked"]})
        stored += 1
    return stored


def turn_attribute_quietly(turn_id: int) -> None:
    """``turn_attribute`` for the turn task: an answered turn is never failed by its attribution."""
    try:
        turn_attribute(turn_id=turn_id)
    except Exception:  # logged; the battle goes on without labels, and a later batch run can add them
        log.exception("citation attribution of arena turn %s failed", turn_id)


def battle_attribution_features(battle_ids: list[int] | None = None) -> dict[tuple[int, str], dict[str, float]]:
    """(battle id, side) -> the attribution style features: supported and unsupported (irrelevant or
    contradicting) citations per turn of the battle, as the released analysis normalizes its counts.
    Unchecked pairs count in neither. A battle with no stored attribution is absent (its features stay 0)."""
    rows = TurnAttribution.objects.all()
    if battle_ids is not None:
        rows = rows.filter(turn__battle_id__in=battle_ids)
    sums: dict[tuple[int, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    turns: dict[int, int] = {}
    for battle_id, side, supported, irrelevant, contradicting in rows.values_list(
            "turn__battle_id", "side", "supported", "irrelevant", "contradicting"):
        sums[(battle_id, side)][0] += supported
        sums[(battle_id, side)][1] += irrelevant + contradicting
        turns[battle_id] = 0
    for battle_id, n in Turn.objects.filter(battle_id__in=list(turns)).values_list("battle_id", "index"):
        turns[battle_id] += 1
    return {key: {"supported_citations": s / max(1, turns[key[0]]), "unsupported_citations": u / max(1, turns[key[0]])}
            for key, (s, u) in sums.items()}

