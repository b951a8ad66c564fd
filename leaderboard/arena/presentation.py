"""How the arena's reads look on a page: a pane per side of a turn (the answer as HTML with its
citation links, the status note), and the rating snapshot's rows placed on shared scales for the
CSS bars and shaded matrices. Views call these; selectors return data only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.html import escape, linebreaks
from django.utils.safestring import SafeString, mark_safe

from leaderboard.arena import standing
from leaderboard.arena.labels import feature_label, filter_label, language_name
from leaderboard.arena.models import (
    TIMED_OUT,
    UNFINISHED,
    AnswerStatus,
    RatingSnapshot,
    TopicSnapshot,
    Turn,
)
from leaderboard.arena.selectors import answer_from_dict

STATUS_NOTES: dict[str, str] = {
    AnswerStatus.PENDING: "Waiting for the model…",
    AnswerStatus.STREAMING: "Answering…",
    AnswerStatus.COMPLETE: "",
    AnswerStatus.CUT_OFF: "This answer was cut off before it finished. A vote on this battle will be kept but not "
    "counted.",
    AnswerStatus.FAILED: "This model failed to answer. A vote on this battle will be kept but not counted.",
}

TIMED_OUT_NOTE = (
    "This answer did not finish within the time limit and was stopped. "
    "A vote on this battle will be kept but not counted."
)


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
    #: after the reveal only (labels shown before the vote would tell voters what the paper finds they
    #: do not check): each (claim, cited source) pair with its label, and the method behind them
    attribution: tuple[dict[str, Any], ...] = ()
    attribution_method: str = ""


def pane(turn: Turn, side: str, *, revealed: bool) -> Pane:
    status = turn.status_of(side)
    answer = answer_from_dict(turn.answer_of(side))
    if answer is not None and answer.text:
        from evaluators.arena.citations import render_html

        html = mark_safe(render_html(answer))
    else:
        html = mark_safe(linebreaks(escape(turn.text_of(side))))
    note = STATUS_NOTES.get(status, "")
    if status == AnswerStatus.FAILED and answer is not None and answer.finish_reason == TIMED_OUT:
        note = TIMED_OUT_NOTE  # our own reason (names no model), so it is shown before the vote too
    found = next((a for a in turn.attributions.all() if a.side == side), None) if revealed else None
    pairs = tuple({**p, "word": ATTRIBUTION_WORDS.get(p["label"], p["label"])} for p in (found.pairs if found else []))
    return Pane(
        side=side,
        status=status,
        note=note,
        html=html,
        done=status not in UNFINISHED,
        error=(answer.error if answer and revealed else ""),
        attribution=pairs,
        attribution_method=found.method if found else "",
    )


#: a pair's label as the reveal and the profile say it
ATTRIBUTION_WORDS: dict[str, str] = {
    "supported": "supported",
    "irrelevant": "irrelevant",
    "contradicting": "contradicting",
    "unchecked": "not checked (no text of the page stored)",
    "failed": "failed (the judge's answer was unusable; counted in no share)",
}


def rating_rows(snapshot: RatingSnapshot | None) -> list[dict[str, Any]]:
    """The ranked rows (``standing``), best first, with the interval's position on a shared scale
    (percent) for the CSS bars. Provisional rows are not here (``standing.standings(...).provisional``):
    they have no rating to draw, and their wide intervals would squash the scale."""
    ranked = standing.standings(snapshot).ranked
    lo = min((m["ci_low"] for m in ranked), default=0.0)
    hi = max((m["ci_high"] for m in ranked), default=1.0)
    span = (hi - lo) or 1.0
    return [
        {
            **m,
            "bar_left": 100 * (m["ci_low"] - lo) / span,
            "bar_width": max(100 * (m["ci_high"] - m["ci_low"]) / span, 0.5),
            "dot": 100 * (m["rating"] - lo) / span,
        }
        for m in ranked
    ]


#: the models of the matrices a page shows (the best rated): a 200-model board's 40,000 cells are neither read
#: nor rendered in time; the API's ratings hold every pair
MATRIX_MODELS = 20


def matrix_rows(
    snapshot: RatingSnapshot | None, key: str, limit: int = MATRIX_MODELS
) -> tuple[list[str], list[dict[str, Any]]]:
    """A square matrix from the snapshot (``win_rate`` or ``battle_count``) as rows of shaded cells, over its
    first ``limit`` models (the matrices list the models best rated first)."""
    if snapshot is None:
        return [], []
    names = list(snapshot.result.get("matrix_models") or [])[:limit]
    values = [row[:limit] for row in (snapshot.result.get(key) or [])[:limit]]
    top = max((v for row in values for v in row if v is not None), default=1) or 1
    rows = []
    for name, row in zip(names, values):
        shades = [(v / top if key == "battle_count" else v) if v is not None else None for v in row]
        # text on a cell shaded past half of the blue is white, so it stays readable (WCAG contrast)
        cells = [
            {"value": v, "shade": shade, "on_dark": shade is not None and shade > 0.5} for v, shade in zip(row, shades)
        ]
        rows.append({"name": name, "cells": cells})
    return names, rows


def language_options(codes: list[str]) -> list[tuple[str, str]]:
    """The language filter's choices: (code, "German (de)"), in the order of the names."""
    return sorted(((code, language_name(code)) for code in codes), key=lambda option: option[1])


def coefficient_rows(snapshot: RatingSnapshot | None) -> list[dict[str, Any]]:
    """Style coefficients with intervals, placed on a symmetric scale around zero (percent)."""
    if snapshot is None:
        return []
    coefs = [{**c, "name": feature_label(c["feature"])} for c in snapshot.result.get("coefficients") or []]
    reach = _reach(coefs)
    return [{**c, **_centred_bar(c, reach)} for c in coefs]


def _reach(coefs: Any) -> float:
    """The half-width of a shared scale centred on zero that holds every coefficient and interval."""
    return max((abs(c.get(k) or 0) for c in coefs for k in ("value", "ci_low", "ci_high")), default=1) or 1


def _centred_bar(c: dict[str, Any], reach: float) -> dict[str, float]:
    """A coefficient's interval bar and point on that scale, in percent of its width."""
    low, high = c.get("ci_low", c["value"]), c.get("ci_high", c["value"])
    return {
        "left": 50 + 50 * low / reach,
        "width": max(50 * (high - low) / reach, 0.5),
        "dot": 50 + 50 * c["value"] / reach,
    }


def robustness(snapshot: RatingSnapshot | None) -> dict[str, Any] | None:
    """The snapshot's top-rank robustness with the share of votes as a readable percentage
    (three significant figures: the interesting shares are tiny)."""
    found = (snapshot.result.get("robustness") if snapshot is not None else None) or None
    if found is None:
        return None
    share = found.get("share_to_flip_top")
    return {**found, "share_percent": f"{100 * share:.3g}%" if share is not None else ""}


#: the findings page's groups of style features, with what each group measures
FINDING_GROUPS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "Citations",
        ("citation_count", "citation_style_standardized"),
        "How many sources an answer cites, and whether its citations were shown in the standardized format.",
    ),
    (
        "Kinds of sources",
        tuple(
            f"cites_{c}"
            for c in (
                "academic_journal",
                "gov_edu",
                "wiki",
                "us_news",
                "foreign_news",
                "community_blog",
                "social_media",
                "tech_coding",
                "youtube",
                "retail",
                "other",
            )
        ),
        "The share of an answer's citations in each category of source (the domain table below), whether or not the "
        "cited text supports the claim.",
    ),
    (
        "Citation attribution",
        ("supported_citations", "unsupported_citations"),
        "How many of an answer's citations the cited text supports, and how many it does not (irrelevant or "
        "contradicting), per turn, from the citation attribution (a judge, or the crude word-overlap rule).",
    ),
    (
        "Length and formatting",
        ("length", "markdown_headers", "markdown_lists", "markdown_bold"),
        "The answer's length and its markdown: headers, lists, bold text.",
    ),
    (
        "Length and citations, as the paper defines them",
        ("paper_response_length", "paper_citation_count"),
        "The mean number of words per answer, and the number of search results per turn (repeats counted), as the "
        "Search Arena paper computes them; both whole numbers, cut toward zero, as the paper holds them.",
    ),
    (
        "Kinds of sources, by the paper's rules",
        tuple(
            f"paper_cites_{c}"
            for c in (
                "academic_journal",
                "gov_edu",
                "wiki",
                "us_news",
                "foreign_news",
                "community_blog",
                "social_media",
                "tech_coding",
                "youtube",
                "retail",
                "other",
            )
        ),
        "Whether any search result's site falls in each category by the paper's own rules: a part of the site's name "
        '("blog" anywhere, ".gov", a list of news sites), checked in the paper\'s order.',
    ),
)


def _unmeasured(coefficient: dict[str, Any]) -> bool:
    """A style feature that never differed between the two answers of any vote in the fit: its
    coefficient and interval are exactly zero, which reads as no measurement, not as a measured zero."""
    return bool(coefficient["ci_low"] == coefficient["ci_high"] == coefficient["value"] == 0)


def findings(snapshots: list[RatingSnapshot]) -> dict[str, Any]:
    """The arena's findings from one set of snapshots (one fingerprint): each style feature's effect in
    rating points per standard deviation with its interval, for all votes and for each intent and
    language; and how the ranking moves between the raw and the style-controlled fit."""
    style = {(s.filter_key, s.filter_value): s for s in snapshots if s.kind == "style"}
    raw = {(s.filter_key, s.filter_value): s for s in snapshots if s.kind == "raw"}
    whole = style.get(("", ""))
    if whole is None:
        return {}
    filters = sorted(k for k in style if k != ("", ""))

    def effects(snapshot: RatingSnapshot) -> dict[str, dict[str, Any]]:
        return {c["feature"]: c for c in snapshot.result.get("coefficients") or []}

    by_filter = {key: effects(snap) for key, snap in style.items()}
    reach = _reach(by_filter[("", "")].values())
    groups = []
    for title, features, about in FINDING_GROUPS:
        rows = []
        for feature in features:
            c = by_filter[("", "")].get(feature)
            if c is None:
                continue
            clear = c["ci_low"] > 0 or c["ci_high"] < 0
            unmeasured = _unmeasured(c)
            direction = (
                ("helps" if c["value"] > 0 else "hurts")
                if clear
                else "not measured: never different between the two answers"
                if unmeasured
                else "no clear effect"
            )
            # an unmeasured effect is shown as none ("–"), never as an exact 0.0 [0.0, 0.0]
            rows.append(
                {
                    **c,
                    **_centred_bar(c, reach),
                    "label": feature_label(feature),
                    "clear": clear,
                    "direction": direction,
                    "unmeasured": unmeasured,
                    "by_filter": [
                        e if e is not None and not _unmeasured(e) else None
                        for e in (by_filter[key].get(feature) for key in filters)
                    ],
                }
            )
        if rows:  # a group of the other style definition's features is not in this fit
            groups.append({"title": title, "about": about, "rows": rows})
    moves = []
    raw_rows = {m["name"]: m for m in (raw[("", "")].result.get("models", []) if ("", "") in raw else [])}
    for m in whole.result.get("models", []):
        before = raw_rows.get(m["name"])
        if before is None or not m.get("bounded", True) or not before.get("bounded", True):
            continue
        moves.append(
            {
                "name": m["name"],
                "raw_rating": before["rating"],
                "raw_rank": before["rank_ub"],
                "style_rating": m["rating"],
                "style_rank": m["rank_ub"],
                "change": m["rating"] - before["rating"],
                "rank_change": before["rank_ub"] - m["rank_ub"],
            }
        )
    moves.sort(key=lambda r: -r["style_rating"])
    return {
        "groups": groups,
        "filters": [{"key": k, "value": v, "label": filter_label(k, v)} for k, v in filters],
        "moves": moves,
        "attribution": attribution_question(by_filter[("", "")]),
        "n_votes": whole.n_votes,
        "method": whole.result.get("method", ""),
        "computed_at": whole.computed_at,
    }


def attribution_question(effects: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """The paper's question on these votes: does an unsupported citation raise the win rate as much as a
    supported one? Both coefficients with their intervals, and a reading that claims no more than the
    intervals allow: a difference only when they do not overlap, equality never (only "not told apart")."""
    supported, unsupported = effects.get("supported_citations"), effects.get("unsupported_citations")
    if supported is None or unsupported is None:
        return None
    rows = [{**c, "label": feature_label(c["feature"])} for c in (supported, unsupported)]
    if all(_unmeasured(c) for c in rows):
        reading = "Not measured yet: no counted vote has attributed citations that differ between the two answers."
    elif unsupported["ci_low"] > supported["ci_high"]:
        reading = "Voters reward an unsupported citation more than a supported one: the intervals do not overlap."
    elif supported["ci_low"] > unsupported["ci_high"]:
        reading = "Voters reward a supported citation more than an unsupported one: the intervals do not overlap."
    else:
        positive = [c["label"].lower() for c in rows if c["ci_low"] > 0]
        also = (
            " Both raise the win rate (each interval lies above zero)."
            if len(positive) == 2
            else f" Only one interval lies above zero ({positive[0]})."
            if positive
            else " Neither interval lies clearly above zero."
        )
        reading = (
            "These votes cannot tell the two apart: the intervals overlap, so an unsupported citation may raise the "
            "win rate as much as a supported one, or more, or less." + also
        )
    return {"rows": rows, "reading": reading, "difference": unsupported["value"] - supported["value"]}


def topic_rows(snapshot: TopicSnapshot | None) -> list[dict[str, Any]]:
    """The topics page's topics: each stored topic with its label joined, its share as a percentage, its
    ranked and unranked models apart, and its leader's robustness in words."""
    if snapshot is None:
        return []
    out = []
    for topic in snapshot.result.get("topics", []):
        ratings = topic.get("ratings") or {"models": []}
        out.append(
            {
                **topic,
                "label_text": ", ".join(topic.get("label") or []) or "(no words)",
                "share_percent": f"{100 * topic['share']:.1f}%",
                "ranked": [m for m in ratings["models"] if m["ranked"]],
                "unranked": [m for m in ratings["models"] if not m["ranked"]],
                "subtopics": [
                    {
                        **sub,
                        "label_text": ", ".join(sub.get("label") or []) or "(no words)",
                        "share_percent": f"{100 * sub['share']:.0f}%",
                        "leader": next(
                            (m["name"] for m in (sub.get("ratings") or {"models": []})["models"] if m["ranked"]), None
                        ),
                    }
                    for sub in topic.get("subtopics", [])
                ],
            }
        )
    return out
