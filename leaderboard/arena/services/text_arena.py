"""Import of a released Text Arena battles file (``evaluators.arena.text_arena``) into the plain-chat setting,
and the plain-chat setting's battles written back in that schema.

An imported battle is a battle of the ``chat`` setting between two imported (never sampled) models, with
its turns, its vote and the vote's exclusions as the released leaderboard applies them: a vote cast with
the names shown (``anony`` false) and a battle of a high-frequency prompt left out of the sample
(``dedup_tag.sampled`` false) are kept but not counted, each with its reason. Idempotent by the battle's
id; every row is checked first, so a bad row (named) imports nothing.

What our tables do not model (the conversations as given, with their token counts, the language name,
the time stamp, the tags) is kept with the battle, in the order the row had its fields, so that
import -> export gives the row back.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from django.db.models import CharField

from leaderboard.arena.labels import LANGUAGE_NAMES
from leaderboard.arena.models import (
    SIDE_FIELDS,
    SIDES,
    AnswerStatus,
    ArenaModel,
    Battle,
    BattleStatus,
    Setting,
    Turn,
    Vote,
    VoteExclusion,
)
from leaderboard.arena.services.transfer import ImportReport, _imported_model, rows_import
from leaderboard.arena.services.votes import style_features

#: the fields of a row that our tables hold (the rest is kept as given)
_MODELLED = frozenset({"question_id", "id", "model_a", "model_b", "winner", "judge", "judge_hash", "turn", "anony"})
#: the fields of a battle of ours written in the schema, in the released files' order
_OWN_FIELDS = (
    "question_id",
    "model_a",
    "model_b",
    "winner",
    "judge",
    "conversation_a",
    "conversation_b",
    "turn",
    "anony",
    "language",
    "tstamp",
)
_CODES = {name.lower(): code for code, name in LANGUAGE_NAMES.items()}

NOT_ANONYMOUS_DETAIL = (
    "cast with the model names shown (anony false); the released leaderboard counts anonymous votes only"
)
NOT_SAMPLED_DETAIL = (
    "a battle of a high-frequency prompt left out of the sample the released leaderboard keeps "
    "(dedup_tag.sampled false)"
)


def _plain_answer(text: str) -> dict[str, Any]:
    return {
        "text": text,
        "sources": [],
        "searches": [],
        "citation_style": "standardized",
        "finish_reason": "stop",
        "latency_s": 0.0,
        "usage": {},
        "error": "",
    }


def text_arena_import(*, path: Path) -> ImportReport:
    """Import a released Text Arena battles file (.json array, .jsonl or .parquet) into the plain-chat setting.
    A file that cannot be read, a bad row or one our tables cannot hold raises DatasetError naming the file, the
    problem and (for a row) the row and field, before anything is written."""
    from evaluators.arena import text_arena
    from evaluators.core.types import DatasetError

    rows = text_arena.read_rows(path)  # its errors name the file
    try:
        for number, row in enumerate(rows, start=1):
            _check_storable(row, number)
        return rows_import(
            rows, keys=[row.question_id for row in rows], key_field="question_id", import_row=_import_row
        )
    except DatasetError as exc:
        raise DatasetError(f"{path.name} {exc}") from None


def _check_storable(row: Any, number: int) -> None:
    """What the released schema allows but our tables cannot hold: a value longer than its column, a value JSON
    cannot hold (the row is kept as JSON), and the NUL character (which PostgreSQL text and JSON cannot store)."""
    from evaluators.core.types import DatasetError

    columns = {
        "question_id": (row.question_id, Battle, "conv_id"),
        "model_a": (row.model_a, ArenaModel, "name"),
        "model_b": (row.model_b, ArenaModel, "name"),
        "judge": (row.judge, Battle, "voter_hash"),
        "intent": (row.intent, Battle, "primary_intent"),
    }
    for name, (value, table, column) in columns.items():
        field = table._meta.get_field(column)
        longest = field.max_length if isinstance(field, CharField) else None
        if longest is not None and len(value) > longest:
            raise DatasetError(f"row {number}: field '{name}': {len(value)} characters, more than the {longest} kept")
    for name, value in row.row.items():
        try:
            text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:  # kept as JSON: bytes, a date, NaN or an infinity cannot be
            raise DatasetError(f"row {number}: field '{name}': a value JSON cannot hold ({exc})") from None
        if "\\u0000" in text:
            raise DatasetError(f"row {number}: field '{name}': holds a NUL character (\\u0000), which cannot be stored")


def _import_row(row: Any, report: ImportReport) -> None:
    if Battle.objects.filter(conv_id=row.question_id).exists():
        report.skipped += 1
        return
    code = _CODES.get(row.language.lower(), "")
    # a modelled field given as null (a Parquet column the row lacks) is kept too, so that the export gives it back
    kept = {key: value for key, value in row.row.items() if key not in _MODELLED or value is None}
    battle = Battle.objects.create(
        conv_id=row.question_id,
        setting=Setting.CHAT,
        model_a=_imported_model(row.model_a, report),
        model_b=_imported_model(row.model_b, report),
        voter_hash=row.judge,
        status=BattleStatus.VOTED,
        locked=True,
        primary_intent=row.intent,
        languages=[code] if code else [],
        extra={"text_arena": {"fields": list(row.row), "kept": kept}},
    )
    answers = {"a": [a for _, a in row.turns_a], "b": [b for _, b in row.turns_b]}
    turns = []
    for index, (prompt, _) in enumerate(row.turns_a):
        fields: dict[str, Any] = {
            "battle": battle,
            "index": index,
            "prompt": prompt,
            "language": code if index == 0 else "",
            "status_a": AnswerStatus.COMPLETE,
            "status_b": AnswerStatus.COMPLETE,
        }
        for side in SIDES:
            fields[SIDE_FIELDS[side].text] = answers[side][index]
            fields[SIDE_FIELDS[side].answer] = _plain_answer(answers[side][index])
        turns.append(Turn(**fields))
    Turn.objects.bulk_create(turns)
    battle.features_a, battle.features_b = (
        style_features(
            texts=[t.text_of(side) for t in turns], traces=[[] for _ in turns], citation_style="standardized"
        )
        for side in SIDES
    )
    battle.save(update_fields=["features_a", "features_b"])
    reasons = ([(VoteExclusion.Code.NOT_ANONYMOUS, NOT_ANONYMOUS_DETAIL)] if not row.anony else []) + (
        [(VoteExclusion.Code.DUPLICATE_FLOOD, NOT_SAMPLED_DETAIL)] if not row.dedup_sampled else []
    )
    vote = Vote.objects.create(
        battle=battle,
        winner=row.winner,
        turn_count=row.turn,
        voter_hash=row.judge,
        valid=not reasons,
        exclusion_reasons=[c for c, _ in reasons],
    )
    VoteExclusion.objects.bulk_create([VoteExclusion(vote=vote, code=c, detail=d, by="import") for c, d in reasons])
    if row.tstamp is not None:
        stamp = dt.datetime.fromtimestamp(row.tstamp, tz=dt.UTC)
        Battle.objects.filter(pk=battle.pk).update(created_at=stamp)
        Vote.objects.filter(pk=vote.pk).update(created_at=stamp)
    report.created += 1


# --- export --------------------------------------------------------------------------------------


def text_arena_rows() -> Iterator[dict[str, Any]]:
    """The plain-chat setting's battles in the Text Arena schema: every imported one (with its flags), and
    those of ours with a counted vote (the released files hold cleaned battles only)."""
    battles = (
        Battle.objects.filter(setting=Setting.CHAT, vote__isnull=False)
        .select_related("model_a", "model_b", "vote")
        .prefetch_related("turns")
        .order_by("created_at", "id")
    )
    for battle in battles.iterator(chunk_size=500):
        if battle.conv_id or battle.vote.valid:
            yield text_arena_row(battle)


def text_arena_row(battle: Battle) -> dict[str, Any]:
    """One voted plain-chat battle as a Text Arena row (an imported one as it came)."""
    vote: Vote = battle.vote
    imported = (battle.extra or {}).get("text_arena") or {}
    turns = sorted(battle.turns.all(), key=lambda t: t.index)
    code = turns[0].language if turns else ""
    built: dict[str, Any] = {
        "question_id": battle.conv_id or battle.public_id,
        "model_a": battle.model_a.name,
        "model_b": battle.model_b.name,
        "winner": vote.winner,
        "judge": vote.voter_hash,
        "turn": vote.turn_count,
        "anony": VoteExclusion.Code.NOT_ANONYMOUS not in vote.exclusion_reasons,
        "language": LANGUAGE_NAMES.get(code, "unknown"),
        "tstamp": battle.created_at.timestamp(),
        **{
            f"conversation_{side}": [
                m
                for t in turns
                for m in ({"role": "user", "content": t.prompt}, {"role": "assistant", "content": t.text_of(side)})
            ]
            for side in SIDES
        },
    }
    built["id"], built["judge_hash"] = built["question_id"], built["judge"]
    built.update(imported.get("kept") or {})
    return {key: built[key] for key in imported.get("fields") or _OWN_FIELDS}
