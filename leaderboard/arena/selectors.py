"""Reads for the Search Arena: what a battle page may show (never the names before the vote), the
latest rating snapshots shaped for the leaderboard page, exclusions for staff, and the released
dataset's rows for export."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterator

from django.db.models import Q, QuerySet
from django.utils.safestring import SafeString, mark_safe
from django.utils.html import escape, linebreaks

from evaluators.llm.types import Answer
from leaderboard.arena.models import UNFINISHED, AnswerStatus, Battle, RatingSnapshot, Turn, Vote, VoteExclusion

STATUS_NOTES: dict[str, str] = {
    AnswerStatus.PENDING: "Waiting for the model…",
    AnswerStatus.STREAMING: "Answering…",
    AnswerStatus.COMPLETE: "",
    AnswerStatus.CUT_OFF: "This answer was cut off before it finished. A vote on this battle will be kept but not counted.",
    AnswerStatus.FAILED: "This model failed to answer. A vote on this battle will be kept but not counted.",
}

#: finish_reason of an answer the periodic pass stopped (services.TIMED_OUT)
TIMED_OUT = "timeout"
TIMED_OUT_NOTE = ("This answer did not finish within the time limit and was stopped. "
                  "A vote on this battle will be kept but not counted.")


#: what a public id can look like (secrets.token_urlsafe): anything else is not looked up at all
_PUBLIC_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


def battle_for_page(*, public_id: str) -> Battle | None:
    if not _PUBLIC_ID.fullmatch(public_id or ""):
        return None  # forged ids (NUL bytes, huge, path tricks) never reach the database
    try:
        return Battle.objects.select_related("model_a", "model_b", "vote").get(public_id=public_id)
    except Battle.DoesNotExist:
        return None


@dataclass(frozen=True)
class Pane:
    """One side of one turn as the page shows it. ``html`` is the answer with [n] links and a source
    list once complete; while streaming it is the escaped text so far."""

    side: str
    status: str
    note: str
    html: SafeString
    done: bool
    error: str = ""  # only filled after the reveal: an error message may name the model


def answer_from_dict(data: dict[str, Any] | None) -> Answer | None:
    """A turn's stored answer (JSON) as an Answer; None while there is none."""
    return Answer.from_dict(data) if data else None


def pane(turn: Turn, side: str, *, revealed: bool) -> Pane:
    status = turn.status_of(side)
    answer = answer_from_dict(turn.answer_of(side))
    if answer is not None and answer.text:
        from evaluators.llm.citations import render_html

        html = mark_safe(render_html(answer))
    else:
        html = mark_safe(linebreaks(escape(turn.text_of(side))))
    note = STATUS_NOTES.get(status, "")
    if status == AnswerStatus.FAILED and answer is not None and answer.finish_reason == TIMED_OUT:
        note = TIMED_OUT_NOTE  # our own reason (names no model), so it is shown before the vote too
    return Pane(side=side, status=status, note=note, html=html,
                done=status not in UNFINISHED, error=(answer.error if answer and revealed else ""))


def battle_turns(battle: Battle) -> list[Turn]:
    return list(battle.turns.order_by("index"))


def battle_complete(turns: list[Turn]) -> bool:
    return bool(turns) and all(t.done for t in turns)


def battle_state(*, battle: Battle) -> dict[str, Any]:
    """Everything about a battle that may leave the server: names only once it is voted on."""
    turns = battle_turns(battle)
    revealed = battle.locked
    state: dict[str, Any] = {
        "id": battle.public_id, "status": battle.status, "locked": battle.locked, "can_vote": not battle.locked and battle.status == "open" and battle_complete(turns),
        "citation_style": {"a": battle.citation_style_a, "b": battle.citation_style_b},
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


def latest_fingerprint() -> str:
    """The fingerprint of the votes behind the newest ratings ("" before the first)."""
    return RatingSnapshot.objects.order_by("-computed_at").values_list("fingerprint", flat=True).first() or ""


def rating_rows(snapshot: RatingSnapshot | None) -> list[dict[str, Any]]:
    """Rows with the interval's position on a shared scale (percent) for the CSS bars."""
    if snapshot is None:
        return []
    models = sorted(snapshot.result.get("models", []), key=lambda m: (m.get("rank_ub", 0), -m.get("rating", 0)))
    # A model with a note (no votes, no chain of battles to the reference, or only wins or only
    # losses) has no finite maximum-likelihood rating: it is shown without a number or a bar and
    # kept off the shared scale, which it would otherwise squash.
    estimable = [m for m in models if not m.get("note")]
    lows = [m["ci_low"] for m in estimable if m.get("ci_low") is not None]
    highs = [m["ci_high"] for m in estimable if m.get("ci_high") is not None]
    lo, hi = (min(lows), max(highs)) if lows and highs else (0.0, 1.0)
    span = (hi - lo) or 1.0
    rows = []
    for m in models:
        if m.get("note"):
            rows.append({**m, "estimable": False})
            continue
        low, high = m.get("ci_low", m["rating"]), m.get("ci_high", m["rating"])
        rows.append({**m, "estimable": True, "bar_left": 100 * (low - lo) / span, "bar_width": max(100 * (high - low) / span, 0.5),
                     "dot": 100 * (m["rating"] - lo) / span})
    return rows


def matrix_rows(snapshot: RatingSnapshot | None, key: str) -> tuple[list[str], list[dict[str, Any]]]:
    """A square matrix from the snapshot (``win_rate`` or ``battle_count``) as rows of shaded cells."""
    if snapshot is None:
        return [], []
    names = list(snapshot.result.get("matrix_models") or [])
    values = snapshot.result.get(key) or []
    top = max((v for row in values for v in row if v is not None), default=1) or 1
    rows = []
    for name, row in zip(names, values):
        cells = [{"value": v, "shade": (v / top if key == "battle_count" else v) if v is not None else None} for v in row]
        rows.append({"name": name, "cells": cells})
    return names, rows


def coefficient_rows(snapshot: RatingSnapshot | None) -> list[dict[str, Any]]:
    """Style coefficients with intervals, placed on a symmetric scale around zero (percent)."""
    if snapshot is None:
        return []
    coefs = [{**c, "name": c["feature"]} for c in snapshot.result.get("coefficients") or []]
    reach = max((abs(c.get(k) or 0) for c in coefs for k in ("value", "ci_low", "ci_high")), default=1) or 1
    return [{**c, "left": 50 + 50 * (c.get("ci_low", c["value"]) / reach), "width": max(50 * (c.get("ci_high", c["value"]) - c.get("ci_low", c["value"])) / reach, 0.5),
             "dot": 50 + 50 * c["value"] / reach} for c in coefs]


def robustness(snapshot: RatingSnapshot | None) -> dict[str, Any] | None:
    """The snapshot's top-rank robustness with the share of votes as a readable percentage
    (three significant figures: the interesting shares are tiny)."""
    found = (snapshot.result.get("robustness") if snapshot is not None else None) or None
    if found is None:
        return None
    share = found.get("share_to_flip_top")
    return {**found, "share_percent": f"{100 * share:.3g}%" if share is not None else ""}


# --- staff -------------------------------------------------------------------------------------

def exclusions(*, code: str = "") -> QuerySet[VoteExclusion]:
    qs = VoteExclusion.objects.select_related("vote__battle").order_by("-at")
    return qs.filter(code=code) if code else qs


# --- export ------------------------------------------------------------------------------------

def released_rows() -> Iterator[dict[str, Any]]:
    """Every voted or imported battle as a row of the released dataset (voters hashed), with our
    extras: each turn's full answer (searches, latencies, errors) under ``system_*_metadata.answers``
    and propensity, validity and statuses under ``arena``."""
    battles = (Battle.objects.filter(Q(vote__isnull=False) | Q(conv_id__isnull=False)).select_related("model_a", "model_b", "vote")
               .prefetch_related("turns").order_by("created_at", "id"))
    for battle in battles.iterator(chunk_size=500):
        yield battle_row(battle)


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
    row["arena"] = {"propensity": battle.propensity, "swapped": battle.swapped, "valid": vote.valid if vote else None,
                    "exclusion_reasons": list(vote.exclusion_reasons) if vote else [],
                    "statuses": [[t.status_a, t.status_b] for t in turns], "turn_languages": [t.language for t in turns]}
    return row
