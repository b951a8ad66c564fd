"""The cross-arena comparison as the findings page and the API show it: from the latest rating snapshots
of each setting (``filter_key="setting"``), each model's rating with web search and in plain chat with
their intervals, the difference, the bars of the chart on one shared scale, and what our protocol does
differently from the Search Arena paper's."""
from __future__ import annotations

from typing import Any

from leaderboard.arena.models import RatingSnapshot, Setting

#: what the paper did (Search Arena, Miroyan et al., ICLR 2026, Section 3.3 and its cross_setting_analysis)
#: and where we differ; the findings page prints it under the comparison
PAPER_PROTOCOL = (
    "The Search Arena paper deployed one search-augmented model (Gemini 2.5 Pro with grounding) in the general "
    "Text Arena and the same model without search in the Search Arena, and compared them head to head: how often "
    "voters preferred the search model's answer to the other's (ties split), with a binomial test, overall and by intent.")
OUR_DIFFERENCES: tuple[str, ...] = (
    "In our plain-chat setting every contestant answers without search: a search model's chat rating is that model "
    "with its search switched off, whereas the paper's search model kept searching in the Text Arena.",
    "We compare every model voted on in both settings by its Bradley-Terry rating against one reference model rated "
    "in both, not one pair of models head to head; a difference says how a model moves relative to the reference.",
    "Both settings run on this site with the same flow and the same pool of voters, who pick the setting; the "
    "paper's two arenas had their own users and interfaces. Battles imported from a released Text Arena file "
    "count in the plain-chat setting, and a model is the same model in both settings when it has the same name.",
)


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
        return {"left": 100 * (low - lo) / span, "width": max(100 * (high - low) / span, 0.5), "dot": 100 * (point - lo) / span}

    for row in data["rows"]:
        row["search_bar"] = bar(row["search_low"], row["search_high"], row["search_rating"])
        row["chat_bar"] = bar(row["chat_low"], row["chat_high"], row["chat_rating"])
        row["difference_bar"] = {"left": 50 + 50 * row["difference_low"] / reach,
                                 "width": max(50 * (row["difference_high"] - row["difference_low"]) / reach, 0.5),
                                 "dot": 50 + 50 * row["difference"] / reach}
        row["reading"] = ("the reference: 0 by construction" if row["reference"] else
                          ("better in plain chat" if row["difference"] > 0 else "better with search") if row["clear"] else
                          "no clear difference")
    return {**data, "scale_low": lo, "scale_high": hi, "votes": {"search": search.n_votes if search else 0, "chat": chat.n_votes},
            "computed_at": chat.computed_at, "paper_protocol": PAPER_PROTOCOL, "differences": list(OUR_DIFFERENCES)}
