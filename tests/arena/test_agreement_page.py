"""Each board against people on the page and in the API: six linked models scored on Multi-LCB and rated in
the arena with one neighbouring pair swapped; the figures worked out by hand in the comments. A
provisional arena model and an unlinked contestant never count, and a board without shared models says
so instead of showing a figure."""

from __future__ import annotations

import re

import pytest

from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db

NAMES = ["m0", "m1", "m2", "m3", "m4", "m5"]


def _setup(multi_lcb, user) -> None:
    from leaderboard.arena.models import ArenaModel, RatingSnapshot

    # board: m0 0.90 ... m5 0.15, 0.15 apart, intervals +-0.05: every pair separated, in name order
    runs = {name: scored_run(multi_lcb, user, name, 0.90 - 0.15 * i) for i, name in enumerate(NAMES)}
    runs["late"] = scored_run(multi_lcb, user, "late", 0.05)  # linked, but provisional in the arena
    for name, run in runs.items():
        ArenaModel.objects.create(name=f"arena-{name}", catalog_model=run.submission.model)
    ArenaModel.objects.create(name="m3")  # an unlinked contestant named like a catalog model: never matched by name
    # arena: m0 1200, m2 1150, m1 1100, m3 1050, m4 1000, m5 950 (m1 and m2 swapped),
    # intervals +-20: every pair separated
    order = ["m0", "m2", "m1", "m3", "m4", "m5"]
    rows = [
        {
            "name": f"arena-{n}",
            "rating": 1200.0 - 50 * i,
            "ci_low": 1180.0 - 50 * i,
            "ci_high": 1220.0 - 50 * i,
            "votes": 400,
            "provisional": False,
            "note": "",
            "rank_ub": i + 1,
            "bounded": True,
            "rankable": True,
        }
        for i, n in enumerate(order)
    ]
    rows.append(
        {
            "name": "arena-late",
            "rating": 1500.0,
            "ci_low": 1000.0,
            "ci_high": 2000.0,
            "votes": 3,
            "provisional": True,
            "note": "",
            "rank_ub": 1,
            "bounded": True,
            "rankable": True,
        }
    )
    rows.append(
        {
            "name": "m3",
            "rating": 900.0,
            "ci_low": 880.0,
            "ci_high": 920.0,
            "votes": 400,
            "provisional": False,
            "note": "",
            "rank_ub": 7,
            "bounded": True,
            "rankable": True,
        }
    )
    RatingSnapshot.objects.create(
        kind="raw", result={"models": rows}, n_votes=1200, fingerprint="agreement", config={"min_votes": 30}
    )


def test_the_api_gives_each_board_against_the_arena(client, multi_lcb, user):
    _setup(multi_lcb, user)
    report = client.get("/api/arena/agreement/").json()
    assert report["linked_models"] == 7 and report["arena"]["ranked_models"] == 7 and report["min_shared"] == 5
    lcb = next(b for b in report["boards"] if b["benchmark"] == "multi-lcb")
    assert sorted(lcb["shared"]) == [f"arena-{n}" for n in NAMES]  # not "late" (provisional), not the unlinked "m3"
    # ranks: board m0..m5 = 1..6; arena m1 = 3, m2 = 2: d^2 = 1 + 1 = 2; rho = 1 - 6*2 / (6*35) = 1 - 12/210
    assert lcb["spearman"] == pytest.approx(1 - 12 / 210)
    # 15 pairs, one discordant (m1, m2): tau = (14 - 1) / 15
    assert lcb["kendall"] == pytest.approx(13 / 15)
    # all 15 pairs separated on both; the arena's 15 score +1 each but m1-m2 (-1): (14 - 1) / 15
    assert lcb["separability_board"] == 1.0 and lcb["separability_arena"] == 1.0
    assert lcb["agreement"] == pytest.approx(13 / 15) and lcb["arena_separated_pairs"] == 15
    low, high = lcb["spearman_ci"]
    assert low <= lcb["spearman"] <= high and high <= 1.0
    policon = next(b for b in report["boards"] if b["benchmark"] == "policon")
    assert policon["shared"] == [] and policon["spearman"] is None and "0 models ranked on both" in policon["reading"]


def test_the_page_shows_the_figures_the_method_and_a_reading(client, multi_lcb, user):
    _setup(multi_lcb, user)
    html = client.get("/arena/agreement/").content.decode()
    row = re.search(r'<tr id="agreement-multi-lcb">(.*?)</tr>', html, re.S)
    assert row is not None
    cells = [
        re.sub(r"\s+", " ", re.sub(r"<.*?>", "", c)).strip()
        for c in re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)
    ]
    assert cells[1] == "6" and cells[2].startswith("0.94 [") and cells[3].startswith("0.87 [")
    assert cells[4] == "1.00, 1.00" and cells[5] == "0.87 (15)"
    assert "strongly agrees with people" in html and "Arena-Hard" in html
    assert "at least 5 are needed" in html  # the boards without shared models say why there is no figure
    assert 'href="/arena/agreement/"' in client.get("/arena/leaderboard/").content.decode()


def test_the_schema_describes_the_agreement_endpoint(client):
    schema = client.get("/api/schema/?format=json").json()
    assert "/api/arena/agreement/" in schema["paths"]
