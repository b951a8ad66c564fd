"""The arena's findings page: on seeded votes with a planted effect of citation count (and none of the
other features), the page recovers the effect within its interval and calls it clear, calls the others
no clear effect, breaks it down by intent, shows how ranks move with style control, and lists the domain
table behind the source categories; with no votes it says so."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from leaderboard.arena import services
from leaderboard.arena.models import Battle, RatingSnapshot

TRUE = {"Alpha": 0.3, "Beta": 0.0, "Gamma": -0.2}  # log-odds
EFFECT = 0.8  # log-odds per standard deviation of the citation-count covariate
POINTS = EFFECT * 400 / math.log(10)  # 139 rating points


def text_of(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


@pytest.mark.django_db
def test_findings_recover_a_planted_citation_effect_within_its_interval(client, seed_votes, settings):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 10, 50
    settings.ARENA_STYLE_DEFINITION = "ours"  # the citation and attribution features are this site's own set
    rng = np.random.default_rng(7)
    names = list(TRUE)
    n = 3000
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(1, 3, n)) % 3
    cites_a, cites_b = rng.integers(0, 9, n), rng.integers(0, 9, n)
    x = (cites_a - cites_b) / (cites_a + cites_b + 1.0)  # the covariate as the rating code builds it
    z = (x - x.mean()) / x.std()
    logit = np.array([TRUE[names[i]] for i in a]) - np.array([TRUE[names[j]] for j in b]) + EFFECT * z
    a_wins = rng.random(n) < 1 / (1 + np.exp(-logit))
    rows = [
        (f"v{k % 40}", names[i], names[j], "model_a" if win else "model_b", f"prompt {k}")
        for k, (i, j, win) in enumerate(zip(a, b, a_wins))
    ]
    seed_votes(rows[:1500], intent="Guidance")
    seed_votes(rows[1500:], intent="Factual")
    battles = list(Battle.objects.order_by("pk"))
    for battle, ca, cb in zip(battles, cites_a, cites_b):
        battle.features_a, battle.features_b = {"citation_count": float(ca)}, {"citation_count": float(cb)}
    Battle.objects.bulk_update(battles, ["features_a", "features_b"])
    services.ratings_compute(force=True)

    style = RatingSnapshot.objects.get(kind="style", filter_key="")
    effect = next(c for c in style.result["coefficients"] if c["feature"] == "citation_count")
    assert effect["ci_low"] <= POINTS <= effect["ci_high"] and effect["ci_low"] > 0, (effect, POINTS)

    page = client.get("/arena/findings/").content.decode()
    text = text_of(page)
    row = next(r for r in re.findall(r"<tr>(.*?)</tr>", page, re.S) if "<td>Number of citations</td>" in r)
    assert "<strong>helps</strong>" in row and f"{effect['value']:.1f}" in row
    bold = next(r for r in re.findall(r"<tr>(.*?)</tr>", page, re.S) if "<td>Bold text</td>" in r)
    assert "not measured: never different between the two answers" in bold  # equal on both sides of every battle
    # and shown as no figure (a dash) in every column, never as a measured 0.0 [0.0, 0.0]
    assert "[0.0, 0.0]" not in bold and bold.count(">–</td>") >= 4 and not re.search(r'class="num">[^<]*\d', bold), bold
    assert "Intent: Factual" in text and "Intent: Guidance" in text  # the breakdown's columns
    # people read words; the code names stay in the API and the downloads (the snapshot above)
    assert "Cites academic journals" in text and "Headers" in text
    assert not re.search(r"cites_|markdown_|citation_count", text)
    assert "How the ranking moves with style control" in text and "Alpha" in text
    assert "How a cited source gets its category" in text and "wikipedia.org" in page and "shown as unknown" in text
    assert 'href="/arena/findings/"' in client.get("/arena/leaderboard/").content.decode()


@pytest.mark.django_db
def test_findings_without_votes_say_so(client):
    text = text_of(client.get("/arena/findings/").content.decode())
    assert "No findings yet" in text and "How a cited source gets its category" in text
    # the intervals' coverage (bench/results/intervals.md) is stated with or without votes
    assert "How often the 95% intervals hold the true rating" in text
    assert "2,000 a model (20 models) 30% bootstrap 94.7% 98.2%" in text


@pytest.mark.django_db(transaction=True)
@pytest.mark.browser
def test_the_findings_page_reads_on_a_phone_and_a_desktop(live_server, page, seed_votes, settings, artifacts):
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 5, 10
    rows = [(f"v{k % 7}", "Alpha", "Beta", "model_a" if k % 3 else "model_b", f"p {k}") for k in range(60)]
    rows += [(f"w{k % 7}", "Beta", "Gamma", "model_a" if k % 4 else "model_b", f"q {k}") for k in range(60)]
    seed_votes(rows)
    services.ratings_compute(force=True)
    for width, height, name in ((390, 844, "phone"), (1280, 900, "desktop")):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + "/arena/findings/")
        assert page.get_by_role("heading", name="Citations").is_visible()
        assert page.locator("table.findings-table").first.is_visible() and page.locator(".coef-row").count() >= 10
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        page.screenshot(path=str(artifacts / f"findings-{name}.png"), full_page=True)


def test_language_codes_and_matrix_cells_read_as_words_and_stay_legible():
    from leaderboard.arena.models import RatingSnapshot
    from leaderboard.arena.presentation import language_options, matrix_rows

    # ISO 639-1 names, written out here
    assert language_options(["de", "und", "hi", "xx"]) == [
        ("de", "German (de)"),
        ("hi", "Hindi (hi)"),
        ("und", "Undetermined (und)"),
        ("xx", "xx"),
    ]
    snapshot = RatingSnapshot(result={"matrix_models": ["A", "B"], "win_rate": [[None, 0.8], [0.2, None]]})
    _, rows = matrix_rows(snapshot, "win_rate")
    assert [[c["on_dark"] for c in r["cells"]] for r in rows] == [
        [False, True],
        [False, False],
    ]  # white text past half the blue
