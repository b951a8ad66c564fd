"""The Search Arena paper's head-to-head test (a side with search against a side without, per setting and
intent): its p-values against exact binomial tails written out here with math.comb and a textbook value;
the per-intent counts from battles built by hand, read through the service and the API; the findings
page's table."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest

from evaluators.arena.head_to_head import (
    ALL_INTENTS,
    MixedBattle,
    binomial_tail,
    holm,
    paper_p_value,
    search_side,
    tally,
    two_sided_p_value,
)
from leaderboard.arena import services
from leaderboard.arena.models import ArenaModel, Battle, Vote

Z = 1.959964


def tail(k: int, n: int) -> float:
    """P(X >= k), X ~ Binomial(n, 1/2), summed exactly."""
    return float(Fraction(sum(math.comb(n, i) for i in range(k, n + 1)), 2**n))


def wilson_by_hand(k: int, n: int) -> tuple[float, float]:
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / (1 + Z * Z / n)
    return centre - half, centre + half


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def test_p_values_are_exact_binomial_tails_one_sided_toward_the_larger_count():
    # 8 wins of 10: (C(10,8) + C(10,9) + C(10,10)) / 2^10 = (45 + 10 + 1) / 1024
    assert paper_p_value(8, 2) == pytest.approx(56 / 1024, rel=1e-12) == pytest.approx(tail(8, 10), rel=1e-12)
    assert paper_p_value(2, 8) == pytest.approx(
        56 / 1024, rel=1e-12
    )  # the losing side's tail, as the paper's else branch
    assert two_sided_p_value(8, 2) == pytest.approx(112 / 1024, rel=1e-12)
    # a draw: the paper tests the side without search, P(X >= 5 of 10) = (252 + 210 + 120 + 45 + 10 + 1) / 1024
    assert paper_p_value(5, 5) == pytest.approx(638 / 1024, rel=1e-12) and two_sided_p_value(5, 5) == 1.0
    # the textbook coin: 60 heads in 100 tosses, one-sided p = 0.0284 (two-sided 0.0569)
    assert paper_p_value(60, 40) == pytest.approx(0.0284, abs=5e-5) and two_sided_p_value(60, 40) == pytest.approx(
        0.0569, abs=5e-5
    )
    for k, n in ((60, 100), (13, 14), (14, 14), (700, 1200), (0, 3)):
        assert binomial_tail(k, n) == pytest.approx(tail(k, n), rel=1e-9), (k, n)
    assert paper_p_value(0, 0) is None and two_sided_p_value(0, 0) is None
    with pytest.raises(ValueError, match="successes"):
        binomial_tail(5, 3)
    # Holm by hand: sorted 0.01, 0.03, 0.04 -> 3 x 0.01, max(that, 2 x 0.03), max(that, 1 x 0.04)
    assert holm([0.04, 0.01, 0.03]) == pytest.approx([0.06, 0.03, 0.06])
    assert holm([0.6, 0.9]) == pytest.approx([1.0, 1.0])


def test_which_side_searched_and_the_tally_by_intent():
    plain, searching, imported_citing, imported_plain = (
        ("chat", True),
        ("search_tool", False),
        (None, True),
        (None, False),
    )
    assert search_side("search", searching, plain) == "a" and search_side("search", plain, searching) == "b"
    assert search_side("search", searching, ("hosted", True)) is None  # both search
    assert search_side("chat", searching, plain) is None  # nobody of ours searches in plain chat
    assert (
        search_side("chat", imported_plain, imported_citing) == "b"
        and search_side("search", imported_citing, imported_citing) is None
    )
    found = tally(
        [
            MixedBattle("search", "Analysis", "a", "model_a"),
            MixedBattle("search", "Analysis", "b", "model_a"),
            MixedBattle("search", "Analysis", "b", "tie (bothbad)"),
            MixedBattle("search", "", "a", "model_a"),
        ]
    )
    rows = {r.intent: r for r in found["search"].rows}
    assert list(rows) == ["Analysis", "not classified"] and found["chat"].rows == [] and found["chat"].battles == 0
    assert (rows["Analysis"].wins, rows["Analysis"].losses, rows["Analysis"].ties, rows["Analysis"].n) == (1, 1, 1, 2)
    assert (
        found["search"].overall.intent == ALL_INTENTS
        and found["search"].overall.n == 3
        and found["search"].battles == 4
    )
    with pytest.raises(ValueError, match="winner"):
        MixedBattle("search", "", "a", "model_c")


@pytest.fixture
def hand_built(db, seed_votes):
    """Battles whose head-to-head counts are worked out by hand in the test below."""
    cites = {"citation_count": 2.0}
    quiet = {"citation_count": 0.0}

    def seed(
        pairs: list[tuple[str, str, str]],
        intent: str,
        setting: str = "search",
        features: tuple[dict, dict] | None = None,
    ) -> list[Vote]:
        votes = seed_votes(
            [(f"v{k}", a, b, winner, f"prompt {intent} {k}") for k, (a, b, winner) in enumerate(pairs)], intent=intent
        )
        update: dict = {"setting": setting}
        if features:
            update.update(features_a=features[0], features_b=features[1])
        Battle.objects.filter(vote__in=votes).update(**update)
        return votes

    fact = (
        [("Searcher", "Plain", "model_a")] * 4
        + [("Plain", "Searcher", "model_b")] * 3
        + [
            ("Searcher", "Plain", "model_b"),
            ("Plain", "Searcher", "model_a"),
            ("Searcher", "Plain", "tie"),
            ("Plain", "Searcher", "tie (bothbad)"),
        ]
    )
    seed(fact, "Factual Lookup")  # Searcher: 7 wins, 2 losses, 2 ties
    seed(
        [
            ("Searcher", "Plain", "model_a"),
            ("Searcher", "Plain", "model_b"),
            ("Plain", "Searcher", "model_a"),
            ("Plain", "Searcher", "model_a"),
        ],
        "Creative Generation",
    )  # 1 win, 3 losses
    seed([("Searcher", "Hosted", "model_a")] * 3, "Factual Lookup")  # both search: not counted
    excluded = seed([("Searcher", "Plain", "model_b")] * 2, "Factual Lookup")  # not counted votes
    Vote.objects.filter(pk__in=[v.pk for v in excluded]).update(valid=False)
    seed(
        [("Searcher", "Plain", "model_a")] * 2, "Factual Lookup", setting="chat"
    )  # in plain chat nobody of ours searches
    # imported (no configuration): judged by whether the side cites in the battle
    seed(
        [("Grounded-Imp", "Plain-Imp", "model_a")] * 3 + [("Grounded-Imp", "Plain-Imp", "model_b")],
        "",
        setting="chat",
        features=(cites, quiet),
    )  # chat, not classified: 3 wins, 1 loss
    seed([("Grounded-Imp", "Plain-Imp", "model_a")] * 2, "", setting="chat", features=(cites, cites))  # both cite
    seed([("Plain-Imp", "Grounded-Imp", "model_b")], "Factual Lookup", features=(quiet, cites))  # search: 1 win
    ArenaModel.objects.filter(name="Searcher").update(responder={"kind": "search_tool"})
    ArenaModel.objects.filter(name="Hosted").update(responder={"kind": "hosted"})
    ArenaModel.objects.filter(name="Plain").update(responder={"kind": "chat"})


def test_the_head_to_head_by_setting_and_intent_from_hand_built_battles(hand_built, client):
    found = services.head_to_head()
    search = {r.intent: r for r in found["search"].rows}
    assert list(search) == ["Creative Generation", "Factual Lookup"]  # the paper's order of intents
    fact, creative = search["Factual Lookup"], search["Creative Generation"]
    assert (fact.wins, fact.losses, fact.ties, fact.n) == (8, 2, 2, 10)  # 7 + the imported pair's 1
    assert fact.share == 0.8 and (fact.share_low, fact.share_high) == pytest.approx(wilson_by_hand(8, 10))
    assert fact.p_value == pytest.approx(tail(8, 10)) and fact.leaning == "search"
    assert (creative.wins, creative.losses, creative.ties) == (1, 3, 0) and creative.leaning == "no search"
    assert creative.p_value == pytest.approx(5 / 16) and creative.p_two_sided == pytest.approx(10 / 16)
    # Holm over the two intents' two-sided p-values: 112/1024 x 2 = 0.21875, then max(0.21875, 0.625)
    assert fact.p_holm == pytest.approx(0.21875) and creative.p_holm == pytest.approx(0.625)
    overall = found["search"].overall
    assert (overall.wins, overall.losses, overall.ties) == (9, 5, 2) and overall.p_value == pytest.approx(tail(9, 14))
    assert overall.p_holm is None and found["search"].battles == 16
    chat = found["chat"]
    assert [(r.intent, r.wins, r.losses, r.ties) for r in chat.rows] == [("not classified", 3, 1, 0)]
    assert chat.rows[0].p_value == pytest.approx(5 / 16)

    api = client.get("/api/arena/ratings/head-to-head/").json()
    assert [s["setting"] for s in api["settings"]] == ["search", "chat"] and api["battles"] == 20
    rows = {r["intent"]: r for r in api["settings"][0]["rows"]}
    assert rows["Factual Lookup"]["p_value"] == pytest.approx(56 / 1024) and rows["Factual Lookup"]["n"] == 10
    assert api["settings"][0]["overall"]["p_holm"] is None and "one-sided" in api["method"]
    schema = client.get("/api/schema/").content.decode()
    assert "/api/arena/ratings/head-to-head/" in schema and "p_holm" in schema


def test_the_findings_page_shows_the_head_to_head_table(hand_built, client):
    page = client.get("/arena/findings/").content.decode()
    assert 'id="cross-setting"' in page and "Head to head: a side with search against a side without" in text_of(page)
    assert "No rating comparison yet" in page  # no plain-chat ratings computed: the table stands on its own
    table = page[page.index('data-setting="search"') :]
    table = table[: table.index("</table>")]
    rows = {text_of(r).split(" ")[0]: text_of(r) for r in re.findall(r"<tr>(.*?)</tr>", table, re.S)}
    low, high = wilson_by_hand(8, 10)
    assert (
        rows["Factual"]
        == f"Factual Lookup 8 2 2 10 80.0% [{100 * low:.1f}, {100 * high:.1f}] 0.055 toward search 0.219"
    )
    assert rows["Creative"] == "Creative Generation 1 3 0 4 25.0% [4.6, 69.9] 0.312 toward no search 0.625"
    assert rows["All"].startswith("All intents 9 5 2 14 ") and rows["All"].endswith("not adjusted")
    chat = page[page.index('data-setting="chat"') :]
    assert "not classified 3 1 0 4 75.0%" in text_of(chat[: chat.index("</table>")])
    text = text_of(page)
    assert "How this differs from the paper" in text and "Holm" in text and "ties and both-bad left out" in text
