"""Reads for the Search Arena: what a battle page may show (never the names before the vote, nor any
per-side detail such as latencies), which battles public figures may count (the public cut), the latest
rating snapshots, exclusions for staff, and the released dataset's rows for export. How they look on a
page (panes, bars, shaded cells) is ``presentation``'s."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import Q, QuerySet, Sum
from django.utils import timezone

from evaluators.llm.types import Answer
from leaderboard.arena.models import (
    ArenaModel,
    Battle,
    BattleStatus,
    RatingSnapshot,
    TopicSnapshot,
    Turn,
    TurnAttribution,
    Vote,
    VoteExclusion,
)

#: what a public id can look like (secrets.token_urlsafe): anything else is not looked up at all
_PUBLIC_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


def battle_for_page(*, public_id: str) -> Battle | None:
    if not _PUBLIC_ID.fullmatch(public_id or ""):
        return None  # forged ids (NUL bytes, huge, path tricks) never reach the database
    try:
        return Battle.objects.select_related("model_a", "model_b", "vote").get(public_id=public_id)
    except Battle.DoesNotExist:
        return None


def answer_from_dict(data: dict[str, Any] | None) -> Answer | None:
    """A turn's stored answer (JSON) as an Answer; None while there is none."""
    return Answer.from_dict(data) if data else None


def battle_turns(battle: Battle, *, with_attributions: bool = False) -> list[Turn]:
    """The battle's turns in order; with their citation attributions for a revealed battle's panes."""
    turns = battle.turns.order_by("index")
    return list(turns.prefetch_related("attributions") if with_attributions else turns)


def battle_complete(turns: list[Turn]) -> bool:
    return bool(turns) and all(t.done for t in turns)


def battle_state(*, battle: Battle) -> dict[str, Any]:
    """Everything about a battle that may leave the server: names, and every per-side detail that could
    tell the models apart other than the answer itself and its cited sources (the searches, the error,
    the latency), only once it is voted on (``latency_s`` is null until then)."""
    turns = battle_turns(battle)
    revealed = battle.locked
    state: dict[str, Any] = {
        "id": battle.public_id,
        "status": battle.status,
        "locked": battle.locked,
        "can_vote": not battle.locked and battle.status == "open" and battle_complete(turns),
        "citation_style": {"a": battle.citation_style_a, "b": battle.citation_style_b},
        "setting": battle.setting,
        "turns": [
            {
                "index": t.index,
                "prompt": t.prompt,
                **{
                    f"answer_{s}": {
                        "status": t.status_of(s),
                        "text": t.text_of(s),
                        "sources": (t.answer_of(s) or {}).get("sources", []),
                        "searches": (t.answer_of(s) or {}).get("searches", []) if revealed else [],
                        "latency_s": (t.answer_of(s) or {}).get("latency_s") if revealed else None,
                        "error": (t.answer_of(s) or {}).get("error", "") if revealed else "",
                    }
                    for s in ("a", "b")
                },
            }
            for t in turns
        ],
    }
    if revealed:
        vote = getattr(battle, "vote", None)
        state["reveal"] = {
            s: {
                "name": battle.model_of(s).name,
                "organization": battle.model_of(s).organization,
                "description": battle.model_of(s).description,
            }
            for s in ("a", "b")
        }
        state["vote"] = (
            {"winner": vote.winner, "counted": vote.valid, "exclusion_reasons": vote.exclusion_reasons}
            if vote
            else None
        )
    return state


# --- the public cut ----------------------------------------------------------------------------
#
# The rule: a public arena figure (the boards and their win, loss and vote counts, the intent and language
# boards, the transparency report, a model's citation statistics, the findings, the vote downloads) counts
# a battle only once it is closed (voted on; or ended without a vote: abandoned or failed) and its closing
# time is before the cut. The cut is the last multiple of ARENA_PUBLIC_DELAY_SECONDS since the epoch (UTC)
# minus one delay: a battle enters every public figure between one and two delays after it closed, at a
# boundary, together with every other battle closed in the same window. Starting a battle, its answers,
# their attributions and the vote itself change no public figure at that moment, so reading the figures
# before and after one's own battle tells nothing about who is in it. A voted battle closes at its vote;
# one that ended without a vote is counted from its start plus ``ENDED_UNVOTED_AFTER`` (the periodic pass
# abandons an open battle a day after it started). Imported battles (the released datasets) are public
# as they came. A delay of 0 makes the cut the present moment (closed battles count at once).
#
# Pre-release variants under test (``withheld_variants``): their battles are left out of every public
# count, rating and download until their provider releases (``public_votes``); the ratings fit them
# apart, only to freeze the variant's own score at release (``services.ratings.ratings_compute``). The
# transparency report says how many battle seats they took, per provider, under the same cut.

#: how long after its start a battle that ended without a vote is taken to have closed
ENDED_UNVOTED_AFTER = dt.timedelta(days=1)


def clock() -> dt.datetime:
    """The present, as the public cut reads it (one place for tests to move it)."""
    return timezone.now()


def public_cut(now: dt.datetime | None = None) -> dt.datetime:
    """The moment before which a battle must have closed to count in public figures at ``now`` (the
    rule above; default: :func:`clock`): the last multiple of ARENA_PUBLIC_DELAY_SECONDS since the epoch,
    minus one delay."""
    now = now or clock()
    delay = int(settings.ARENA_PUBLIC_DELAY_SECONDS)
    if delay <= 0:
        return now
    seconds = int(now.timestamp())
    return dt.datetime.fromtimestamp(seconds - seconds % delay - delay, tz=dt.UTC)


def public_from(closed: dt.datetime) -> dt.datetime:
    """When a battle closed at ``closed`` enters the public figures (the rule above): the first moment whose
    cut is after it, the second multiple of ARENA_PUBLIC_DELAY_SECONDS after ``closed`` (``closed`` itself
    with no delay). What the voter is told after the vote."""
    delay = int(settings.ARENA_PUBLIC_DELAY_SECONDS)
    if delay <= 0:
        return closed
    return dt.datetime.fromtimestamp((int(closed.timestamp()) // delay + 2) * delay, tz=dt.UTC)


def closed_battles_q(cut: dt.datetime, prefix: str = "") -> Q:
    """Battles (``prefix``: the path to a battle from another model, such as "turn__battle__") that
    count in public figures under ``cut``: imported, voted before the cut, or ended without a vote and
    taken as closed before it."""
    ended = {
        f"{prefix}status__in": [BattleStatus.ABANDONED, BattleStatus.FAILED],
        f"{prefix}vote__isnull": True,
        f"{prefix}created_at__lt": cut - ENDED_UNVOTED_AFTER,
    }
    return Q(**{f"{prefix}conv_id__isnull": False}) | Q(**{f"{prefix}vote__created_at__lt": cut}) | Q(**ended)


def closed_votes_q(cut: dt.datetime) -> Q:
    """Votes whose battle counts in public figures under ``cut`` (imported, or cast before the cut)."""
    return Q(battle__conv_id__isnull=False) | Q(created_at__lt=cut)


def public_votes(cut: dt.datetime | None = None) -> QuerySet[Vote]:
    """The votes public figures count: cast before the cut (now's, by default), on battles without a
    pre-release variant under test. Counted or not: filter ``valid`` for the counted ones."""
    return Vote.objects.filter(closed_votes_q(public_cut() if cut is None else cut)).exclude(
        withheld_battles_q("battle__")
    )


# --- ratings -----------------------------------------------------------------------------------


def withheld_variants() -> set[str]:
    """The pre-release variants still under test (not yet released): their votes are fitted, but their
    names and ratings are withheld from every public board, matrix, anchor and download until release.
    Whether the operator allows drawing them now (ARENA_PRERELEASE_TESTING) does not matter: one tested
    before the setting was turned off stays withheld until its provider releases."""
    return set(ArenaModel.objects.filter(prerelease=True, released_at__isnull=True).values_list("name", flat=True))


def withheld_battles_q(prefix: str = "") -> Q:
    """Battles (``prefix``: the path to a battle from another model) in which a withheld variant
    (:func:`withheld_variants`) fought."""
    hidden = Q(prerelease=True, released_at__isnull=True)
    return Q(**{f"{prefix}model_a__in": ArenaModel.objects.filter(hidden)}) | Q(
        **{f"{prefix}model_b__in": ArenaModel.objects.filter(hidden)}
    )


@dataclass
class Board:
    raw: RatingSnapshot | None
    style: RatingSnapshot | None
    filter_key: str = ""
    filter_value: str = ""
    intents: list[str] = field(default_factory=list)
    languages: list[str] = field(default_factory=list)


def latest_snapshots(*, filter_key: str = "", filter_value: str = "") -> Board:
    """The newest raw and style snapshots for one filter, and the filter values that have snapshots."""
    latest = RatingSnapshot.objects.order_by("-computed_at").first()
    board = Board(raw=None, style=None, filter_key=filter_key, filter_value=filter_value)
    if latest is None:
        return board
    batch = RatingSnapshot.objects.filter(fingerprint=latest.fingerprint)
    for snap in batch.filter(filter_key=filter_key, filter_value=filter_value):
        setattr(board, snap.kind, snap)
    board.intents = sorted(set(batch.filter(filter_key="intent").values_list("filter_value", flat=True)))
    board.languages = sorted(set(batch.filter(filter_key="language").values_list("filter_value", flat=True)))
    return board


def latest_snapshot_set() -> list[RatingSnapshot]:
    """Every snapshot of the latest computation (raw and style, all votes and each intent and language)."""
    latest = RatingSnapshot.objects.order_by("-computed_at").first()
    return [] if latest is None else list(RatingSnapshot.objects.filter(fingerprint=latest.fingerprint))


def snapshot_cut(snapshot: RatingSnapshot) -> dt.datetime:
    """The public cut a snapshot was computed under (its config's ``public_cut``; one written before the
    cut was recorded: now's)."""
    stamp = (snapshot.config or {}).get("public_cut")
    return dt.datetime.fromisoformat(stamp) if isinstance(stamp, str) else public_cut()


def latest_fingerprint() -> str:
    """The fingerprint of the votes behind the newest ratings ("" before the first)."""
    return RatingSnapshot.objects.order_by("-computed_at").values_list("fingerprint", flat=True).first() or ""


def latest_topics() -> TopicSnapshot | None:
    """The topic explorer's newest snapshot (``services.topics``), or None before the first."""
    return TopicSnapshot.objects.order_by("-computed_at").first()


# --- staff -------------------------------------------------------------------------------------


def exclusions(*, code: str = "") -> QuerySet[VoteExclusion]:
    qs = VoteExclusion.objects.select_related("vote__battle").order_by("-at")
    return qs.filter(code=code) if code else qs


# --- export ------------------------------------------------------------------------------------


def released_rows(*, cut: dt.datetime | None = None) -> Iterator[dict[str, Any]]:
    """Every voted or imported battle as a row of the released dataset (voters hashed), with our
    extras: each turn's full answer (searches, latencies, errors) under ``system_*_metadata.answers``
    and propensity, validity and statuses under ``arena``. The battles of pre-release variants under
    test are left out until their provider releases (:func:`withheld_variants`); with ``cut`` (the
    public downloads), so are the battles voted on after it (:func:`public_cut`)."""
    battles = Battle.objects.filter(Q(vote__isnull=False) | Q(conv_id__isnull=False)).exclude(withheld_battles_q())
    if cut is not None:
        battles = battles.filter(closed_battles_q(cut))
    battles = (
        battles.select_related("model_a", "model_b", "vote").prefetch_related("turns").order_by("created_at", "id")
    )
    for battle in battles.iterator(chunk_size=500):
        row = battle_row(battle)
        # the battle, its prefetched turns and its vote point at one another: cut the links, so that a
        # chunk is freed when it is done rather than left, chunk after chunk, to the cyclic collector
        for turn in battle.turns.all():  # the prefetched turns, each holding its battle
            turn._state.fields_cache.clear()
        battle._state.fields_cache.clear()  # and its vote
        battle._prefetched_objects_cache = {}  # type: ignore[attr-defined]  # its turns' queryset holds it too
        yield row


def battle_row(battle: Battle) -> dict[str, Any]:
    """One battle as a released row. An imported battle keeps what it came with (its messages and
    metadata as they were), so export -> import -> export gives the same rows."""
    turns = sorted(battle.turns.all(), key=lambda t: t.index)
    vote: Vote | None = getattr(battle, "vote", None)
    extra = battle.extra or {}
    row: dict[str, Any] = {
        "model_a": battle.model_a.name,
        "model_b": battle.model_b.name,
        "winner": vote.winner if vote else None,
        "judge": vote.voter_hash if vote else (battle.voter_hash or None),
        "turn": vote.turn_count if vote else len(turns),
        "timestamp": extra.get("timestamp") or battle.created_at.isoformat(),
        "primary_intent": battle.primary_intent or None,
        "secondary_intent": battle.secondary_intent or None,
        "languages": list(battle.languages),
    }
    for side in ("a", "b"):
        messages = extra.get(f"messages_{side}")
        if messages is None:
            messages = []
            for t in turns:
                messages += [{"role": "user", "content": t.prompt}, {"role": "assistant", "content": t.text_of(side)}]
        row[f"messages_{side}"] = messages
        meta = {
            "citation_format_standardized": battle.citation_style_of(side) == "standardized",
            "client_country": None,
            "conv_id": battle.conv_id or battle.public_id,
            "formatted_messages": messages,
            "llm_config": {"name": battle.model_of(side).name, "params": {}},
            "web_search_trace": [
                [[f"[{s['number']}]", s["url"]] for s in (t.answer_of(side) or {}).get("sources", [])] for t in turns
            ],
        }
        meta.update(extra.get(f"system_{side}_metadata") or {})
        meta["answers"] = [t.answer_of(side) for t in turns]
        row[f"system_{side}_metadata"] = meta
    row.update(extra.get("row") or {})
    row["arena"] = {
        "propensity": battle.propensity,
        "swapped": battle.swapped,
        "setting": battle.setting,
        "valid": vote.valid if vote else None,
        "exclusion_reasons": list(vote.exclusion_reasons) if vote else [],
        "statuses": [[t.status_a, t.status_b] for t in turns],
        "turn_languages": [t.language for t in turns],
    }
    return row


def model_attribution(*, name: str, now: dt.datetime | None = None) -> dict[str, Any] | None:
    """A contestant's checked citations: count and share of each label, with Wilson 95% intervals, over
    the stored attributions of its answers (either pane) in the battles public figures count at ``now``
    (:func:`public_cut`: closed, past the delay, no pre-release variant under test), and the methods that
    labelled them. An open battle's attributions never count: they would tell which pane is whose."""
    from evaluators.arena.attribution import LABELS, wilson

    rows = (
        TurnAttribution.objects.filter(
            Q(side="a", turn__battle__model_a__name=name) | Q(side="b", turn__battle__model_b__name=name)
        )
        .filter(closed_battles_q(public_cut(now), "turn__battle__"))
        .exclude(withheld_battles_q("turn__battle__"))
    )
    totals = rows.aggregate(**{label: Sum(label) for label in LABELS}, unchecked=Sum("unchecked"), failed=Sum("failed"))
    checked = sum(int(totals[label] or 0) for label in LABELS)
    if checked == 0:
        return None
    methods = sorted({m.split(";")[0] for m in rows.values_list("method", flat=True).distinct()})
    shares = []
    for label in LABELS:
        k = int(totals[label] or 0)
        low, high = wilson(k, checked)
        shares.append({"label": label, "count": k, "share": k / checked, "ci_low": low, "ci_high": high})
    return {
        "checked": checked,
        "unchecked": int(totals["unchecked"] or 0),
        "failed": int(totals["failed"] or 0),
        "answers": rows.count(),
        "shares": shares,
        "methods": methods,
    }
