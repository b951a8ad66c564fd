"""Reads for the Search Arena: what a battle page may show (never the names before the vote), the
latest rating snapshots, exclusions for staff, and the released dataset's rows for export. How they
look on a page (panes, bars, shaded cells) is ``presentation``'s."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from django.db.models import Q, QuerySet, Sum

from evaluators.llm.types import Answer
from leaderboard.arena.models import ArenaModel, Battle, RatingSnapshot, Turn, TurnAttribution, Vote, VoteExclusion

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
    """Everything about a battle that may leave the server: names only once it is voted on."""
    turns = battle_turns(battle)
    revealed = battle.locked
    state: dict[str, Any] = {
        "id": battle.public_id, "status": battle.status, "locked": battle.locked, "can_vote": not battle.locked and battle.status == "open" and battle_complete(turns),
        "citation_style": {"a": battle.citation_style_a, "b": battle.citation_style_b}, "setting": battle.setting,
        "turns": [{"index": t.index, "prompt": t.prompt,
                   **{f"answer_{s}": {"status": t.status_of(s), "text": t.text_of(s),
                                      "sources": (t.answer_of(s) or {}).get("sources", []),
                                      "searches": (t.answer_of(s) or {}).get("searches", []) if revealed else [],
                                      "latency_s": (t.answer_of(s) or {}).get("latency_s"),
                                      "error": (t.answer_of(s) or {}).get("error", "") if revealed else ""}
                      for s in ("a", "b")}} for t in turns],
    }
    if revealed:
        vote = getattr(battle, "vote", None)
        state["reveal"] = {s: {"name": battle.model_of(s).name, "organization": battle.model_of(s).organization,
                               "description": battle.model_of(s).description} for s in ("a", "b")}
        state["vote"] = {"winner": vote.winner, "counted": vote.valid, "exclusion_reasons": vote.exclusion_reasons} if vote else None
    return state


# --- ratings -----------------------------------------------------------------------------------

def withheld_variants() -> set[str]:
    """The pre-release variants still under test (not yet released): their votes are fitted, but their
    names and ratings are withheld from every public board, matrix, anchor and download until release.
    Whether the operator allows drawing them now (ARENA_PRERELEASE_TESTING) does not matter: one tested
    before the setting was turned off stays withheld until its provider releases."""
    return set(ArenaModel.objects.filter(prerelease=True, released_at__isnull=True).values_list("name", flat=True))


def withheld_battles_q() -> Q:
    """Battles in which a withheld variant (:func:`withheld_variants`) fought."""
    hidden = Q(prerelease=True, released_at__isnull=True)
    return Q(model_a__in=ArenaModel.objects.filter(hidden)) | Q(model_b__in=ArenaModel.objects.filter(hidden))


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


def latest_fingerprint() -> str:
    """The fingerprint of the votes behind the newest ratings ("" before the first)."""
    return RatingSnapshot.objects.order_by("-computed_at").values_list("fingerprint", flat=True).first() or ""


# --- staff -------------------------------------------------------------------------------------

def exclusions(*, code: str = "") -> QuerySet[VoteExclusion]:
    qs = VoteExclusion.objects.select_related("vote__battle").order_by("-at")
    return qs.filter(code=code) if code else qs


# --- export ------------------------------------------------------------------------------------

def released_rows() -> Iterator[dict[str, Any]]:
    """Every voted or imported battle as a row of the released dataset (voters hashed), with our
    extras: each turn's full answer (searches, latencies, errors) under ``system_*_metadata.answers``
    and propensity, validity and statuses under ``arena``. The battles of pre-release variants under
    test are left out until their provider releases (:func:`withheld_variants`)."""
    battles = (Battle.objects.filter(Q(vote__isnull=False) | Q(conv_id__isnull=False)).exclude(withheld_battles_q())
               .select_related("model_a", "model_b", "vote").prefetch_related("turns").order_by("created_at", "id"))
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
        "model_a": battle.model_a.name, "model_b": battle.model_b.name, "winner": vote.winner if vote else None,
        "judge": vote.voter_hash if vote else (battle.voter_hash or None), "turn": vote.turn_count if vote else len(turns),
        "timestamp": extra.get("timestamp") or battle.created_at.isoformat(), "primary_intent": battle.primary_intent or None,
        "secondary_intent": battle.secondary_intent or None, "languages": list(battle.languages),
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
            "web_search_trace": [[[f"[{s['number']}]", s["url"]] for s in (t.answer_of(side) or {}).get("sources", [])]
                                 for t in turns],
        }
        meta.update(extra.get(f"system_{side}_metadata") or {})
        meta["answers"] = [t.answer_of(side) for t in turns]
        row[f"system_{side}_metadata"] = meta
    row.update(extra.get("row") or {})
    row["arena"] = {"propensity": battle.propensity, "swapped": battle.swapped, "setting": battle.setting, "valid": vote.valid if vote else None,
                    "exclusion_reasons": list(vote.exclusion_reasons) if vote else [],
                    "statuses": [[t.status_a, t.status_b] for t in turns], "turn_languages": [t.language for t in turns]}
    return row


def model_attribution(*, name: str) -> dict[str, Any] | None:
    """A contestant's checked citations: count and share of each label, with Wilson 95% intervals, over
    every stored attribution of its answers (either pane), and the methods that labelled them."""
    from evaluators.arena.attribution import LABELS, wilson

    rows = TurnAttribution.objects.filter(Q(side="a", turn__battle__model_a__name=name) | Q(side="b", turn__battle__model_b__name=name))
    totals = rows.aggregate(**{label: Sum(label) for label in LABELS}, unchecked=Sum("unchecked"))
    checked = sum(int(totals[label] or 0) for label in LABELS)
    if checked == 0:
        return None
    methods = sorted({m.split(";")[0] for m in rows.values_list("method", flat=True).distinct()})
    shares = []
    for label in LABELS:
        k = int(totals[label] or 0)
        low, high = wilson(k, checked)
        shares.append({"label": label, "count": k, "share": k / checked, "ci_low": low, "ci_high": high})
    return {"checked": checked, "unchecked": int(totals["unchecked"] or 0), "answers": rows.count(), "shares": shares,
            "methods": methods}
