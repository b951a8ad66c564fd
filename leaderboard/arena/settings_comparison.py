"""The cross-arena comparison as the findings page and the API show it: from the latest rating snapshots
of each setting (``filter_key="setting"``), each model's rating with web search and in plain chat with
their intervals, the difference, the bars of the chart on one shared scale; the paper's head-to-head test
per setting and intent; and what our protocol does differently from the Search Arena paper's."""

from __future__ import annotations

from typing import Any

from leaderboard.arena.models import RatingSnapshot, Setting

#: what the paper did (Search Arena, Miroyan et al., ICLR 2026, Section 3.3 and its cross_setting_analysis)
#: and where we differ; the findings page prints it under the comparison
PAPER_PROTOCOL = (
    "The Search Arena paper deployed one search-augmented model (Gemini 2.5 Pro with grounding) in the general "
    "Text Arena and the same model without search in the Search Arena, and compared them head to head: how often "
    "voters preferred the search side's answer over wins and losses (ties and both-bad left out), with an exact "
    "binomial test against one half, one-sided in the direction the counts lean, overall and by intent, "
    "with no correction for testing nine intents."
)
OUR_DIFFERENCES: tuple[str, ...] = (
    "In our plain-chat setting every contestant answers without search: a search model's chat rating is that model "
    "with its search switched off, whereas the paper's search model kept searching in the Text Arena.",
    "We compare every model voted on in both settings by its Bradley-Terry rating against one reference model rated "
    "in both, not one pair of models head to head; a difference says how a model moves relative to the reference.",
    "Both settings run on this site with the same flow and the same pool of voters, who pick the setting; the "
    "paper's two arenas had their own users and interfaces. Battles imported from a released Text Arena file "
    "count in the plain-chat setting, and a model is the same model in both settings when it has the same name.",
    "The head-to-head table pools every counted battle between a side with search and a side without, whichever "
    "models fought it; the paper took one model per arena (in the Search Arena only against search models other "
    "than GPT's).",
    "A side counts as searching by its configuration: in the search setting every contestant but a plain chat one, "
    "in the plain-chat setting none of ours; an imported model (no configuration) when its answers in that battle "
    "cite. So the plain-chat table holds only imported battles; the paper named its two models by hand.",
    "Besides the paper's one-sided p-value (its direction read off the counts, which halves the two-sided value) "
    "we show the two-sided p-value adjusted across a setting's intents by Holm's method, and the search side's "
    "win share with a Wilson 95% interval. Intents are our classifier's (the paper's nine classes).",
)

#: what each setting's head-to-head holds
HEAD_TO_HEAD_SETTINGS: dict[str, str] = {
    Setting.SEARCH: (
        "With web search: a contestant that searches against a plain chat contestant, as the paper's model "
        "without search in the Search Arena."
    ),
    Setting.CHAT: (
        "Plain chat: imported battles in which one side's answers cite sources, as the paper's search model "
        "in the Text Arena (no contestant of ours searches in this setting)."
    ),
}
HEAD_TO_HEAD_METHOD = (
    "Counted votes of battles in which exactly one side searched, by the battle's primary intent; wins and losses "
    "are the search side's, ties (both-bad included) are left out of n; share = wins / n with its Wilson 95% "
    "interval; p = the exact binomial test against 1/2, one-sided toward the side with more wins (the paper's); "
    "Holm = the two-sided p-value adjusted across the setting's intents"
)


def _p_text(p: float | None) -> str:
    """A p-value for the page: three decimals, or two significant digits below 0.001."""
    if p is None:
        return "–"
    return f"{p:.3f}" if p >= 0.001 else f"{p:.1e}"


def head_to_head() -> dict[str, Any]:
    """The paper's head-to-head per setting and intent (``services.head_to_head``) as the findings page
    and the API show it, with the method and the paper's protocol and ours."""
    from leaderboard.arena.services import head_to_head as counted

    found = counted()
    settings = [
        {**found[s].to_dict(), "title": Setting(s).label, "holds": HEAD_TO_HEAD_SETTINGS[s]}
        for s in (Setting.SEARCH, Setting.CHAT)
    ]
    for setting in settings:
        for row in [*setting["rows"], setting["overall"]]:
            row["shown"] = {
                **{key: _p_text(row[key]) for key in ("p_value", "p_two_sided", "p_holm")},
                "share": "–" if row["share"] is None else f"{100 * row['share']:.1f}%",
                "interval": ""
                if row["share"] is None
                else f"[{100 * row['share_low']:.1f}, {100 * row['share_high']:.1f}]",
            }
    return {
        "settings": settings,
        "battles": sum(s["battles"] for s in settings),
        "method": HEAD_TO_HEAD_METHOD,
        "paper_protocol": PAPER_PROTOCOL,
        "differences": list(OUR_DIFFERENCES),
    }


def setting_snapshots(snapshots: list[RatingSnapshot]) -> dict[str, RatingSnapshot]:
    """The raw per-setting snapshots of one computation, by setting."""
    return {s.filter_value: s for s in snapshots if s.kind == "raw" and s.filter_key == "setting"}


def comparison(snapshots: list[RatingSnapshot]) -> dict[str, Any] | None:
    """The comparison from one set of snapshots (one fingerprint), with the chart's bars; None before
    the plain-chat setting has counted votes."""
    from evaluators.arena.cross_setting import compare

    by_setting = setting_snapshots(snapshots)
    search, chat = by_setting.get(Setting.SEARCH), by_setting.get(Setting.CHAT)
    if chat is None:
        return None
    found = compare(search.result if search else {"models": []}, chat.result)
    data = found.to_dict()
    ends = [v for r in data["rows"] for v in (r["search_low"], r["search_high"], r["chat_low"], r["chat_high"])]
    lo, hi = (min(ends), max(ends)) if ends else (0.0, 1.0)
    span = (hi - lo) or 1.0
    reach = max((abs(r[k]) for r in data["rows"] for k in ("difference_low", "difference_high")), default=1.0) or 1.0

    def bar(low: float, high: float, point: float) -> dict[str, float]:
        return {
            "left": 100 * (low - lo) / span,
            "width": max(100 * (high - low) / span, 0.5),
            "dot": 100 * (point - lo) / span,
        }

    for row in data["rows"]:
        row["search_bar"] = bar(row["search_low"], row["search_high"], row["search_rating"])
        row["chat_bar"] = bar(row["chat_low"], row["chat_high"], row["chat_rating"])
        row["difference_bar"] = {
            "left": 50 + 50 * row["difference_low"] / reach,
            "width": max(50 * (row["difference_high"] - row["difference_low"]) / reach, 0.5),
            "dot": 50 + 50 * row["difference"] / reach,
        }
        row["reading"] = (
            "the reference: 0 by construction"
            if row["reference"]
            else ("better in plain chat" if row["difference"] > 0 else "better with search")
            if row["clear"]
            else "no clear difference"
        )
    return {
        **data,
        "scale_low": lo,
        "scale_high": hi,
        "votes": {"search": search.n_votes if search else 0, "chat": chat.n_votes},
        "computed_at": chat.computed_at,
        "paper_protocol": PAPER_PROTOCOL,
        "differences": list(OUR_DIFFERENCES),
    }
