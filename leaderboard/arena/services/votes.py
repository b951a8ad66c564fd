"""Votes: one read and one write each, the integrity checks behind a vote that is kept but not counted, and
the periodic anomaly and flood flags."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from leaderboard.arena.identity import Voter
from leaderboard.arena.models import (
    SIDES,
    AnswerStatus,
    ArenaModel,
    Battle,
    BattleStatus,
    Setting,
    Turn,
    Vote,
    VoteExclusion,
    Winner,
)
from leaderboard.arena.selectors import _PUBLIC_ID
from leaderboard.arena.services.battles import owned_open_battle
from leaderboard.arena.services.common import (
    AlreadyVoted,
    ArenaRefused,
    BattleMissing,
    NotReady,
    rate_refuse,
)
from leaderboard.arena.services.ratings import ratings_schedule

# --- votes -------------------------------------------------------------------------------------


def side_traces(turns: Sequence[Turn], side: str) -> list[list[str]]:
    """The URLs one side cited, a list per turn (its search trace, repeats kept)."""
    return _traces((turn.answer_of(side) or {}).get("sources") for turn in turns)


def _traces(source_lists: Iterable[Sequence[dict[str, Any]] | None]) -> list[list[str]]:
    return [[source["url"] for source in sources or [] if source.get("url")] for sources in source_lists]


def style_features(*, texts: Sequence[str], traces: Sequence[Sequence[str]], citation_style: str) -> dict[str, float]:
    """One side's style features, ours (``STYLE_FEATURES``: all turns' text joined, distinct URLs) and
    the Search Arena paper's (``PAPER_STYLE_FEATURES``: per assistant message and per turn), from its
    turns' texts and each turn's cited URLs."""
    from evaluators.arena.style import features, paper_features

    urls = list(dict.fromkeys(url for turn in traces for url in turn))
    return {**features("\n\n".join(texts), urls, citation_style), **paper_features(texts, traces)}


def _exclusions_at_vote(
    battle: Battle, turns: Sequence[Turn], earlier: int, earlier_ip: int = 0
) -> list[tuple[str, str]]:
    """Why a vote would not count: a failed or cut-off answer, a model naming itself, or the voter's
    (or their address's) daily cap; ``earlier``/``earlier_ip``: their votes in the last 24 hours."""
    from evaluators.arena.integrity import self_identification

    reasons: list[tuple[str, str]] = []
    for side in SIDES:
        model: ArenaModel = battle.model_of(side)
        names = [n for n in (model.name, model.organization) if n]
        for turn in turns:
            status = turn.status_of(side)
            if status != AnswerStatus.COMPLETE:
                reasons.append(
                    (
                        VoteExclusion.Code.RESPONSE_ERROR,
                        f"turn {turn.index + 1}, side {side.upper()}: answer {status.replace('_', ' ')}",
                    )
                )
                break
        for turn in turns:
            why = self_identification(turn.text_of(side), names)
            if why:
                reasons.append(
                    (VoteExclusion.Code.SELF_IDENTIFICATION, f"turn {turn.index + 1}, side {side.upper()}: {why}")
                )
                break
    caps = []  # one daily_cap reason (a vote has each reason once), naming whichever caps it is over
    if earlier >= settings.ARENA_VOTES_PER_DAY:
        caps.append(f"vote {earlier + 1} in 24 h; the cap is {settings.ARENA_VOTES_PER_DAY}")
    if earlier_ip >= settings.ARENA_VOTES_PER_DAY_PER_IP:
        caps.append(
            f"vote {earlier_ip + 1} in 24 h from this network address; the address cap is "
            f"{settings.ARENA_VOTES_PER_DAY_PER_IP}"
        )
    if caps:
        reasons.append((VoteExclusion.Code.DAILY_CAP, "; ".join(caps)))
    return reasons


#: Everything a vote checks, in one query and without the ORM's per-query compilation (about 1.4 ms
#: of CPU per vote, most of a vote's cost): the battle with both models, its turns (status, text and
#: cited sources, not the whole answers), the voter's votes in the last day and minute and their client
#: address's votes in the last day (an address never matches imported votes, whose ip_hash is ""). A battle
#: without turns gives one row of NULL turn fields. Portable SQL (PostgreSQL and SQLite >= 3.38).
_VOTE_READ_SQL = f"""
SELECT b.id, b.voter_hash, b.locked, b.status, b.citation_style_a, b.citation_style_b,
       ma.name, ma.organization, mb.name, mb.organization,
       (SELECT COUNT(*) FROM {Vote._meta.db_table} v WHERE v.voter_hash = %(voter)s AND v.created_at >= %(day)s),
       (SELECT COUNT(*) FROM {Vote._meta.db_table} v WHERE v.voter_hash = %(voter)s AND v.created_at >= %(minute)s),
       (SELECT COUNT(*) FROM {Vote._meta.db_table} v
        WHERE v.ip_hash = %(ip)s AND v.ip_hash <> '' AND v.created_at >= %(day)s),
       t.id, t."index", t.status_a, t.status_b, t.text_a, t.text_b, t.answer_a -> 'sources', t.answer_b -> 'sources'
FROM {Battle._meta.db_table} b
JOIN {ArenaModel._meta.db_table} ma ON ma.id = b.model_a_id
JOIN {ArenaModel._meta.db_table} mb ON mb.id = b.model_b_id
LEFT JOIN {Turn._meta.db_table} t ON t.battle_id = b.id
WHERE b.{{key}} = %(battle)s
ORDER BY t."index\""""


def _vote_sql(sql: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Run one of the vote's statements through Django (errors translated as from any cursor) and
    return its rows. On PostgreSQL the cursor binds parameters on the server, so psycopg prepares the
    statement after a few executions on the (persistent) connection and PostgreSQL stops planning
    it on every vote; Django's own cursors bind on the client and are never prepared (settings.py:
    the threshold). Where queries are logged (DEBUG, tests counting them), Django's cursor runs the
    same SQL, because psycopg does not report the text of a prepared execution."""
    if connection.vendor != "postgresql" or connection.queries_logged:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall() if cursor.description else []
    import psycopg

    connection.close_if_health_check_failed()
    connection.ensure_connection()
    # Django's wrapper around the raw cursor (its errors become Django's); the stubs type it as taking a wrapper
    raw: Any = psycopg.Cursor(connection.connection)
    with connection.make_cursor(raw) as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def _vote_read(battle: Battle | str, voter: Voter) -> tuple[Battle, list[Turn], list[dict[str, Any]], int, int]:
    """The battle (with both models' names) and its turns as a vote needs them, refusing one that is
    missing, not the voter's, locked or no longer open, voted on too fast, or not complete. Returns
    the battle, its turns (each with ``sources_a``/``sources_b``) and the voter's and their
    address's votes in the last 24 hours."""

    if isinstance(battle, str) and not _PUBLIC_ID.fullmatch(battle):
        raise BattleMissing("no such battle")  # forged ids (NUL bytes, huge, path tricks) never reach the database
    now = timezone.now()
    adapt = connection.ops.adapt_datetimefield_value
    params = {
        "voter": voter.hash,
        "ip": voter.ip_hash,
        "day": adapt(now - dt.timedelta(days=1)),
        "minute": adapt(now - dt.timedelta(minutes=1)),
        "battle": battle if isinstance(battle, str) else battle.pk,
    }
    rows = _vote_sql(_VOTE_READ_SQL.format(key="public_id" if isinstance(battle, str) else "id"), params)
    if not rows:
        raise BattleMissing("no such battle")
    (pk, voter_hash, locked, state, style_a, style_b, name_a, org_a, name_b, org_b, day, minute, day_ip), first_turn = (
        rows[0][:13],
        rows[0][13],
    )
    loaded = Battle(
        pk=pk,
        voter_hash=voter_hash,
        locked=bool(locked),
        status=state,
        citation_style_a=style_a,
        citation_style_b=style_b,
        model_a=ArenaModel(name=name_a, organization=org_a),
        model_b=ArenaModel(name=name_b, organization=org_b),
    )
    owned_open_battle(loaded, voter)
    rate_refuse(minute, "vote")
    turns: list[Turn] = []
    sources: list[dict[str, Any]] = []  # per turn, each side's cited sources
    for row in rows if first_turn is not None else ():
        turn = Turn(
            pk=row[13], battle_id=pk, index=row[14], status_a=row[15], status_b=row[16], text_a=row[17], text_b=row[18]
        )
        turns.append(turn)
        sources.append(dict(zip(SIDES, (json.loads(s) if isinstance(s, str) else s for s in row[19:21]))))
    if not turns or not all(t.done for t in turns):
        raise NotReady("both answers must be complete before you vote")
    return loaded, turns, sources, day, day_ip


def vote_cast(*, battle: Battle | str, winner: str, voter: Voter) -> Vote:
    """Record the vote (one per battle, by the database), lock the battle and reveal the names.
    A vote that fails an integrity check is stored with its reasons and does not count. ``battle``
    is a Battle or its public id (the vote page passes the id: the vote reads what it needs itself,
    in one query, and writes in one statement on PostgreSQL)."""
    if winner not in Winner.values:
        raise ArenaRefused(f"winner: {winner!r} is not one of {', '.join(Winner.values)}", field="winner")
    loaded, turns, sources, earlier, earlier_ip = _vote_read(battle, voter)
    reasons = _exclusions_at_vote(loaded, turns, earlier, earlier_ip)
    features: dict[str, dict[str, float]] = {
        side: style_features(
            texts=[t.text_of(side) for t in turns],
            citation_style=loaded.citation_style_of(side),
            traces=_traces(turn_sources[side] for turn_sources in sources),
        )
        for side in SIDES
    }
    vote = Vote(
        battle_id=loaded.pk,
        winner=winner,
        turn_count=len(turns),
        voter_hash=voter.hash,
        ip_hash=voter.ip_hash,
        valid=not reasons,
        exclusion_reasons=[code for code, _ in reasons],
        created_at=timezone.now(),
    )
    try:
        if connection.vendor == "postgresql":
            _vote_write_one_statement(vote, reasons, features)
        else:
            _vote_write_orm(vote, reasons, features)
    except IntegrityError:
        raise AlreadyVoted("this battle already has a vote; nothing was changed") from None
    if isinstance(battle, Battle):
        battle.locked, battle.status = True, BattleStatus.VOTED
    ratings_schedule()
    return vote


def _vote_write_orm(vote: Vote, reasons: Sequence[tuple[str, str]], features: dict[str, dict[str, float]]) -> None:
    """Lock the battle, insert the vote and its exclusions, in one transaction (any database)."""
    with transaction.atomic():
        if not Battle.objects.filter(pk=vote.battle_id, locked=False, status=BattleStatus.OPEN).update(
            locked=True, status=BattleStatus.VOTED, features_a=features["a"], features_b=features["b"]
        ):
            raise AlreadyVoted("this battle already has a vote; nothing was changed")
        vote.save(force_insert=True)
        if reasons:
            VoteExclusion.objects.bulk_create(
                [VoteExclusion(vote=vote, code=code, detail=detail) for code, detail in reasons]
            )


#: _vote_write_orm as one statement (one round trip, its own transaction): PostgreSQL runs every part
#: of a data-modifying WITH; the vote is inserted only when the UPDATE locked the battle just now.
_VOTE_SQL = f"""
WITH locked AS (
    UPDATE {Battle._meta.db_table} SET locked = true, status = %(status)s, features_a = %(features_a)s::jsonb,
        features_b = %(features_b)s::jsonb
    WHERE id = %(battle)s AND NOT locked AND status = %(open)s RETURNING id),
vote AS (
    INSERT INTO {Vote._meta.db_table}
        (battle_id, winner, turn_count, valid, exclusion_reasons, voter_hash, ip_hash, created_at)
    SELECT id, %(winner)s, %(turn_count)s, %(valid)s, %(reasons)s::jsonb, %(voter)s, %(ip)s, %(at)s
    FROM locked RETURNING id),
excluded AS (
    INSERT INTO {VoteExclusion._meta.db_table} (vote_id, code, detail, "by", "at")
    SELECT vote.id, why.code, why.detail, 'system', %(at)s
    FROM vote, unnest(%(codes)s::text[], %(details)s::text[]) AS why(code, detail))
SELECT id FROM vote"""


def _vote_write_one_statement(
    vote: Vote, reasons: Sequence[tuple[str, str]], features: dict[str, dict[str, float]]
) -> None:
    params = {
        "status": BattleStatus.VOTED.value,
        "open": BattleStatus.OPEN.value,
        "features_a": json.dumps(features["a"]),
        "features_b": json.dumps(features["b"]),
        "battle": vote.battle_id,
        "winner": vote.winner,
        "turn_count": vote.turn_count,
        "valid": vote.valid,
        "reasons": json.dumps(vote.exclusion_reasons),
        "voter": vote.voter_hash,
        "ip": vote.ip_hash,
        "at": vote.created_at,
        "codes": [code for code, _ in reasons],
        "details": [detail for _, detail in reasons],
    }
    # Inside a caller's transaction, a savepoint keeps a refused vote from breaking it.
    with transaction.atomic() if connection.in_atomic_block else contextlib.nullcontext():
        rows = _vote_sql(_VOTE_SQL, params)
    if not rows:
        raise AlreadyVoted("this battle already has a vote; nothing was changed")
    vote.pk = rows[0][0]
    vote._state.adding, vote._state.db = False, connection.alias


def vote_exclude(*, vote: Vote, code: str, detail: str, by: str = "system") -> bool:
    """Exclude a vote with a reason (kept once per reason); False when it already had that reason."""
    with transaction.atomic():
        _, created = VoteExclusion.objects.get_or_create(vote=vote, code=code, defaults={"detail": detail, "by": by})
        if created:
            locked = Vote.objects.select_for_update().get(pk=vote.pk)
            locked.exclusion_reasons = [*locked.exclusion_reasons, code]
            locked.valid = False
            locked.save(update_fields=["exclusion_reasons", "valid"])
    return created


def voters_flag_anomalous() -> int:
    """Exclude the votes of voters whose votes are unlikely under the current pair win rates, judged
    per arena setting: each setting's votes are fitted on their own and a voter's votes there are
    scored against that fit only (with search a model may beat the one it loses to in plain chat, so a
    chat voter judged against a pooled fit would be judged against the wrong baseline). A voter flagged
    in one setting loses the votes of that setting only; the reason names it."""
    from evaluators.arena.integrity import anomalous_voters

    changed = 0
    for setting, label in Setting.choices:
        votes = list(
            Vote.objects.filter(battle__setting=setting)
            .select_related("battle__model_a", "battle__model_b")
            .order_by("id")
        )
        # every vote informs the fitted ratings; an imported vote without a judge has no voter to flag
        records = [(v.voter_hash or ("", v.pk), v.battle.model_a.name, v.battle.model_b.name, v.winner) for v in votes]
        flagged = anomalous_voters(records)
        for vote in votes:
            if vote.voter_hash and vote.voter_hash in flagged:
                changed += vote_exclude(
                    vote=vote, code=VoteExclusion.Code.ANOMALOUS_VOTER, detail=f"{label}: {flagged[vote.voter_hash]}"
                )
    return changed


def prompts_flag_floods(*, window: dt.timedelta = dt.timedelta(days=7)) -> int:
    """Exclude votes on battles whose first prompt is one of ARENA_FLOOD_MIN_GROUP or more
    near-duplicates within the window; the earliest of each group still counts."""
    from evaluators.arena.integrity import near_duplicate_groups

    first_turns = Turn.objects.filter(
        index=0,
        battle__vote__isnull=False,
        battle__conv_id__isnull=True,
        battle__created_at__gte=timezone.now() - window,
    )
    prompts = list(first_turns.order_by("battle_id").values_list("battle_id", "prompt"))
    changed = 0
    for group in near_duplicate_groups(prompts):
        if len(group) < settings.ARENA_FLOOD_MIN_GROUP:
            continue
        for vote in Vote.objects.filter(battle_id__in=sorted(group)[1:]):
            changed += vote_exclude(
                vote=vote,
                code=VoteExclusion.Code.DUPLICATE_FLOOD,
                detail=f"one of {len(group)} near-duplicate prompts within {window.days} days",
            )
    return changed
