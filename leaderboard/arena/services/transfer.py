"""Import of the released dataset (JSONL or Parquet), idempotent by conv_id; a bad row is named and
nothing is imported."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from django.db import transaction
from django.db.models import Q

from leaderboard import pagecache
from leaderboard.arena.models import (
    SIDE_FIELDS,
    SIDES,
    AnswerStatus,
    ArenaModel,
    Battle,
    BattleStatus,
    Setting,
    Side,
    Turn,
    Vote,
    VoteExclusion,
)
from leaderboard.arena.services.ratings import ratings_schedule
from leaderboard.arena.services.votes import side_traces, style_features

Row = TypeVar("Row")

# --- import of the released dataset --------------------------------------------------------------


@dataclass
class ImportReport:
    created: int = 0
    skipped: int = 0  # already imported (same conv_id)
    models_created: list[str] = field(default_factory=list)


def _imported_model(name: str, report: ImportReport) -> ArenaModel:
    model, created = ArenaModel.objects.get_or_create(
        name=name,
        defaults={"imported": True, "enabled": False, "description": "imported from a released arena dataset"},
    )
    if created:
        report.models_created.append(name)
        pagecache.boards_changed()
    return model


def _turn_pairs(messages: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """(prompt, answer) per turn from a role/content list."""
    pairs: list[tuple[str, str]] = []
    for message in messages:
        content = message.get("content")
        text = content if isinstance(content, str) else json.dumps(content)
        if message.get("role") == "user":
            pairs.append((text, ""))
        elif message.get("role") == "assistant" and pairs:
            pairs[-1] = (pairs[-1][0], text)
    return pairs


def _trace_sources(trace: Sequence[Sequence[Any]] | None) -> list[dict[str, Any]]:
    sources = []
    for position, entry in enumerate(trace or [], start=1):
        marker, url = (list(entry) + ["", ""])[:2]
        digits = "".join(ch for ch in str(marker) if ch.isdigit())
        sources.append(
            {"number": int(digits) if digits else position, "url": str(url or ""), "title": "", "snippet": ""}
        )
    return sources


def battle_import_row(row: dict[str, Any], report: ImportReport) -> Battle | None:
    """One released-dataset row (already validated) as a Battle with its Turns and, when it has a
    winner, its Vote. Idempotent by conv_id. What our tables do not model is kept in ``extra`` so an
    export gives the row back unchanged."""
    meta = {side: dict(row.get(f"system_{side}_metadata") or {}) for side in SIDES}
    conv_id = str(meta["a"].get("conv_id") or meta["b"].get("conv_id"))
    if Battle.objects.filter(Q(conv_id=conv_id) | Q(public_id=conv_id, conv_id__isnull=True)).exists():
        report.skipped += 1  # imported before, or one of our own battles exported and imported back here
        return None
    ours = row.get("arena") or {}
    pairs = {side: _turn_pairs(row.get(f"messages_{side}") or []) for side in SIDES}
    n_turns = max(len(pairs["a"]), len(pairs["b"]))
    answers = {side: list(meta[side].pop("answers", None) or []) for side in SIDES}
    with transaction.atomic():
        battle = Battle.objects.create(
            conv_id=conv_id,
            model_a=_imported_model(row["model_a"], report),
            model_b=_imported_model(row["model_b"], report),
            swapped=bool(ours.get("swapped", False)),
            propensity=ours.get("propensity"),
            setting=ours.get("setting") or Setting.SEARCH,
            citation_style_a="standardized" if meta["a"].get("citation_format_standardized", True) else "original",
            citation_style_b="standardized" if meta["b"].get("citation_format_standardized", True) else "original",
            voter_hash=str(row.get("judge") or ""),
            status=BattleStatus.VOTED if row.get("winner") else BattleStatus.ABANDONED,
            locked=True,
            primary_intent=row.get("primary_intent") or "",
            secondary_intent=row.get("secondary_intent") or "",
            languages=list(row.get("languages") or []),
            extra={
                "system_a_metadata": meta["a"],
                "system_b_metadata": meta["b"],
                "row": {k: v for k, v in row.items() if k not in RELEASED_FIELDS},
                "timestamp": row.get("timestamp"),
                "messages_a": row.get("messages_a"),
                "messages_b": row.get("messages_b"),
            },
        )
        turns = _imported_turns(battle, pairs, meta, answers, ours)
        Turn.objects.bulk_create(turns)
        battle.features_a, battle.features_b = (
            style_features(
                texts=[t.text_of(side) for t in turns],
                traces=side_traces(turns, side),
                citation_style=battle.citation_style_of(side),
            )
            for side in SIDES
        )
        battle.save(update_fields=["features_a", "features_b"])
        if row.get("winner"):
            _imported_vote(battle, row, ours, n_turns)
        if row.get("timestamp"):
            stamp = _parse_timestamp(row["timestamp"])
            if stamp:
                Battle.objects.filter(pk=battle.pk).update(created_at=stamp)
                Vote.objects.filter(battle=battle).update(created_at=stamp)
    report.created += 1
    return battle


def _imported_turns(
    battle: Battle,
    pairs: Mapping[Side, list[tuple[str, str]]],
    meta: Mapping[Side, dict[str, Any]],
    answers: Mapping[Side, list[Any]],
    ours: dict[str, Any],
) -> list[Turn]:
    """The battle's turns (not saved): each side's prompt and text, its stored answer or one made from
    the released search trace, and its status and language where the row is one of our own exports."""
    statuses = ours.get("statuses") or []
    turn_languages = ours.get("turn_languages") or []
    n_turns = max(len(pairs["a"]), len(pairs["b"]))
    turns = []
    for index in range(n_turns):
        fields: dict[str, Any] = {
            "battle": battle,
            "index": index,
            "language": turn_languages[index] if index < len(turn_languages) else "",
        }
        for side_no, side in enumerate(SIDES):
            prompt, text = pairs[side][index] if index < len(pairs[side]) else ("", "")
            fields.setdefault("prompt", prompt)
            trace = meta[side].get("web_search_trace") or []
            answer = (
                answers[side][index]
                if index < len(answers[side]) and answers[side][index]
                else {
                    "text": text,
                    "sources": _trace_sources(trace[index] if index < len(trace) else []),
                    "searches": [],
                    "citation_style": battle.citation_style_of(side),
                    "finish_reason": "stop",
                    "latency_s": 0.0,
                    "usage": {},
                    "error": "",
                }
            )
            fields.update(
                {
                    SIDE_FIELDS[side].text: text,
                    SIDE_FIELDS[side].answer: answer,
                    SIDE_FIELDS[side].status: statuses[index][side_no]
                    if index < len(statuses)
                    else AnswerStatus.COMPLETE,
                }
            )
        turns.append(Turn(**fields))
    return turns


def _imported_vote(battle: Battle, row: dict[str, Any], ours: dict[str, Any], n_turns: int) -> Vote:
    """The row's vote, with the exclusions it records (valid unless it records one or says otherwise)."""
    reasons = list(ours.get("exclusion_reasons") or [])
    vote = Vote.objects.create(
        battle=battle,
        winner=row["winner"],
        turn_count=int(row.get("turn") or n_turns),
        voter_hash=battle.voter_hash,
        valid=not reasons if ours.get("valid") is None else bool(ours["valid"]),
        exclusion_reasons=reasons,
    )
    VoteExclusion.objects.bulk_create(
        [VoteExclusion(vote=vote, code=code, detail="recorded in the imported row", by="import") for code in reasons]
    )
    return vote


#: top-level fields of a released row that our tables model (anything else is kept verbatim)
RELEASED_FIELDS = frozenset(
    {
        "model_a",
        "model_b",
        "winner",
        "judge",
        "turn",
        "timestamp",
        "messages_a",
        "messages_b",
        "system_a_metadata",
        "system_b_metadata",
        "primary_intent",
        "secondary_intent",
        "languages",
        "arena",
    }
)


def _parse_timestamp(value: Any) -> dt.datetime | None:
    try:
        if isinstance(value, (int, float)):
            return dt.datetime.fromtimestamp(float(value), tz=dt.UTC)
        stamp = dt.datetime.fromisoformat(str(value))
    except (ValueError, OSError, OverflowError):
        return None
    return stamp if stamp.tzinfo else stamp.replace(tzinfo=dt.UTC)


def battles_import(*, path: Path) -> ImportReport:
    """Import a released-dataset file (JSONL or Parquet). Every row is validated first, so a bad row
    (named with its number and field) imports nothing."""
    from evaluators.arena import dataset

    rows = [_row_dict(r) for r in dataset.read_rows(path)]
    keys = [_check_import_row(row, number) for number, row in enumerate(rows, start=1)]
    return rows_import(rows, keys=keys, key_field="system_a_metadata.conv_id", import_row=battle_import_row)


def rows_import(
    rows: Sequence[Row], *, keys: Sequence[str], key_field: str, import_row: Callable[[Row, ImportReport], object]
) -> ImportReport:
    """Import checked rows of a released file in one transaction, once no key repeats (a repeat is named
    with its row numbers and ``key_field``, and imports nothing); the ratings are scheduled when a battle
    was created."""
    from evaluators.core.types import DatasetError

    seen: dict[str, int] = {}
    for number, key in enumerate(keys, start=1):
        if key in seen:
            raise DatasetError(f"row {number}: field '{key_field}': {key!r} repeats row {seen[key]}")
        seen[key] = number
    report = ImportReport()
    with transaction.atomic():
        for row in rows:
            import_row(row, report)
    if report.created:
        ratings_schedule()
    return report


_ANSWER_STATUSES = frozenset(AnswerStatus.values)


def _check_import_row(row: dict[str, Any], number: int) -> str:
    """What the dataset's own validation leaves to us, checked before anything is written: a
    conversation id (both sides agreeing), two different models, and our ``arena`` extras well
    formed. Returns the conv_id; raises DatasetError naming the row (counted from 1, blank lines not
    counted) and the field."""
    from evaluators.arena.dataset import DatasetError

    def fail(path: str, problem: str) -> DatasetError:
        return DatasetError(f"row {number}: field '{path}': {problem}")

    ids = [str((row.get(f"system_{side}_metadata") or {}).get("conv_id") or "") for side in SIDES]
    if not any(ids):
        raise fail(
            "system_a_metadata.conv_id", "missing; every conversation needs its id (imports are idempotent by it)"
        )
    if all(ids) and ids[0] != ids[1]:
        raise fail("system_b_metadata.conv_id", f"{ids[1]!r} differs from side A's {ids[0]!r}")
    if row["model_a"] == row["model_b"]:
        raise fail("model_b", f"the same model as model_a ({row['model_a']!r}); a battle needs two")
    if row.get("timestamp") is not None and _parse_timestamp(row["timestamp"]) is None:
        raise fail("timestamp", f"{row['timestamp']!r:.40} is not an ISO 8601 time or epoch seconds")
    ours = row.get("arena")
    if ours is None:
        return ids[0] or ids[1]
    if not isinstance(ours, dict):
        raise fail("arena", f"expected an object or null, got {type(ours).__name__}")
    propensity = ours.get("propensity")
    if propensity is not None and (
        isinstance(propensity, bool) or not isinstance(propensity, (int, float)) or not 0 < propensity <= 1
    ):
        raise fail("arena.propensity", f"expected a probability in (0, 1] or null, got {propensity!r:.40}")
    if ours.get("setting") is not None and ours["setting"] not in Setting.values:
        raise fail("arena.setting", f"expected one of {', '.join(Setting.values)} or null, got {ours['setting']!r:.40}")
    for key in ("swapped", "valid"):
        if ours.get(key) is not None and not isinstance(ours[key], bool):
            raise fail(f"arena.{key}", f"expected true, false or null, got {ours[key]!r:.40}")
    reasons = ours.get("exclusion_reasons") or []
    if (
        not isinstance(reasons, list)
        or not all(r in VoteExclusion.Code.values for r in reasons)
        or len(set(reasons)) != len(reasons)
    ):
        raise fail(
            "arena.exclusion_reasons",
            f"expected a list of distinct codes from {', '.join(VoteExclusion.Code.values)}, got {reasons!r:.80}",
        )
    if ours.get("valid") and reasons:
        raise fail("arena.valid", "true, but the vote has exclusion reasons")
    statuses = ours.get("statuses") or []
    if not isinstance(statuses, list) or not all(
        isinstance(p, list) and len(p) == 2 and set(p) <= _ANSWER_STATUSES for p in statuses
    ):
        raise fail(
            "arena.statuses",
            f"expected a [status A, status B] pair per turn from {', '.join(sorted(_ANSWER_STATUSES))}, got "
            f"{statuses!r:.80}",
        )
    languages = ours.get("turn_languages") or []
    if not isinstance(languages, list) or not all(isinstance(x, str) for x in languages):
        raise fail("arena.turn_languages", f"expected a list of language codes, got {languages!r:.80}")
    return ids[0] or ids[1]


def _row_dict(row: Any) -> dict[str, Any]:
    return row.to_dict() if hasattr(row, "to_dict") else dict(row)
