"""Anonymous pre-release testing on the real Postgres: a variant under test is fitted with everyone (its
votes are real battles) for its own withheld row only; its code name, rating and record appear on no public
board, ratings API, matrix, anchor, robustness figure or download, and the public boards are fitted on the
public votes alone (so no shown count includes a battle against it); at its provider's release its final
score (its withheld row) is published in the transparency report, and it lands where the planted strengths
put it. The votes are drawn from a Bradley-Terry model of strengths written here."""

from __future__ import annotations

import json
import math
import random

import pytest

from leaderboard.arena import services

pytestmark = pytest.mark.django_db

CODENAME = "Zephyr-Kestrel-Prerelease"  # unusual, so that any leak is unmistakable
#: planted log-odds strengths: the variant sits between the strong and the middle public model
STRENGTH = {"Public-High": 2.0, CODENAME: 1.0, "Public-Mid": 0.0, "Public-Low": -1.0}
POINTS = 400 / math.log(10)  # rating points per unit of log-odds


def planted_rows(seed: int = 3) -> list[tuple]:
    """200 votes per pair, and 200 more for each of the variant's pairs: it meets everyone most, so the
    auto anchor (the best-connected well-estimated model) would be the variant if it were not withheld."""
    rng = random.Random(seed)
    names = list(STRENGTH)
    pairs = [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]]
    rows = []
    for x, y in pairs:
        for k in range(400 if CODENAME in (x, y) else 200):
            a, b = (x, y) if k % 2 else (y, x)
            p_a = 1 / (1 + math.exp(STRENGTH[b] - STRENGTH[a]))
            rows.append(
                (f"voter-{len(rows) % 37}", a, b, "model_a" if rng.random() < p_a else "model_b", f"prompt {len(rows)}")
            )
    return rows


def _download(client, url: str) -> bytes:
    response = client.get(url)
    assert response.status_code == 200, url
    return b"".join(response.streaming_content)


def public_texts(client) -> dict[str, str]:
    """Everything an anonymous visitor can read about the ratings: pages, API answers and downloads."""
    urls = [
        "/",
        "/arena/",
        "/arena/leaderboard/",
        "/arena/leaderboard/?intent=Guidance",
        "/arena/leaderboard/?language=en",
        "/arena/findings/",
        "/arena/transparency/",
        "/api/arena/ratings/",
        "/api/arena/ratings/?intent=Guidance",
        "/api/arena/ratings/?language=en",
        "/api/arena/transparency/",
    ]
    texts = {}
    for url in urls:
        response = client.get(url)
        assert response.status_code == 200, url
        texts[url] = response.content.decode()
    for url in (
        "/arena/votes.jsonl",
        "/arena/votes.jsonl?intent=Guidance",
        "/arena/votes.jsonl?language=en",
        "/api/arena/ratings/votes/?fmt=jsonl",
    ):
        texts[url] = _download(client, url).decode()
    texts["/arena/votes.parquet"] = _download(client, "/arena/votes.parquet").decode("latin-1")
    return texts


def test_a_variant_under_test_is_fitted_but_withheld_and_its_final_score_is_published_at_release(
    seed_votes, settings, client
):
    from evaluators.arena.ratings import RatingConfig, rate
    from leaderboard.arena.models import ArenaModel, RatingSnapshot
    from leaderboard.arena.services.battles import sampler_models
    from leaderboard.arena.services.lifecycle import prerelease_release

    settings.ARENA_PRERELEASE_TESTING = True
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS, settings.ARENA_REFERENCE_MODEL = 50, 20, ""
    ArenaModel.objects.create(name=CODENAME, organization="Acme", prerelease=True)
    rows = planted_rows()
    seed_votes(rows)
    assert services.ratings_compute() > 0

    # the public board counts only the battles among public models: 3 pairs of 200, each public model in
    # 2 of them (400 votes); its battles against the variant are in no shown count. The variant's own row,
    # fitted with everyone, is kept apart with its 3 * 400 votes.
    raw = RatingSnapshot.objects.get(kind="raw", filter_key="")
    assert len(rows) == 3 * 400 + 3 * 200 and raw.n_votes == 3 * 200
    public = {m["name"]: m for m in raw.result["models"]}
    assert set(public) == {"Public-High", "Public-Mid", "Public-Low"}
    for name in public:
        assert public[name]["votes"] == 400
    withheld = {m["name"]: m for m in raw.withheld}
    assert set(withheld) == {CODENAME} and withheld[CODENAME]["votes"] == 3 * 400
    # withholding changed the anchor: anchored with the variant shown, the best-connected model is the variant
    shown = rate(
        services.vote_table().battles,
        RatingConfig(auto_reference=True, min_votes=50, interval="sandwich", robustness=False),
    )
    assert shown.anchor["model"] == CODENAME
    assert raw.result["anchor"]["model"] in public and CODENAME not in raw.result["method"]
    assert raw.result["matrix_models"] == [m["name"] for m in raw.result["models"]]  # the matrix: shown models only
    assert sorted(m["rank_ub"] for m in raw.result["models"]) == [1, 2, 3]  # ranks among the three shown

    texts = public_texts(client)
    hidden_rating = repr(withheld[CODENAME]["rating"])
    for url, text in texts.items():
        assert CODENAME.lower() not in text.lower() and "zephyr" not in text.lower(), url
        assert hidden_rating not in text, url
    ratings_api = json.loads(texts["/api/arena/ratings/"])
    assert {m["name"] for s in ratings_api for m in s["result"]["models"]} == set(public)
    assert all("withheld" not in s and "withheld" not in s["result"] for s in ratings_api)
    downloaded = [json.loads(line) for line in texts["/arena/votes.jsonl"].splitlines() if line]
    assert len(downloaded) == 3 * 200  # the battles among public models only, until the release
    # the sampler still draws the variant (the operator allows it) and sees its interval
    assert {m.name: m.ci_width for m in sampler_models()}[CODENAME] == pytest.approx(
        withheld[CODENAME]["ci_high"] - withheld[CODENAME]["ci_low"]
    )

    prerelease_release(name=CODENAME)
    report = client.get("/api/arena/transparency/").json()
    acme = next(p for p in report["prerelease"]["providers"] if p["provider"] == "Acme")
    final = next(r for r in acme["released"] if r["name"] == CODENAME)["final_rating"]["raw"]
    # where the planted strengths put it, on the scale of the board shown then: between Public-High and
    # Public-Mid, (1.0 - 0.0) * 400 / ln 10 = 174 points above Public-Mid. The standard error of that
    # difference is about 40 points (400 head-to-head votes at p = 0.73 give 1 / sqrt(400 * 0.73 * 0.27)
    # = 0.11 log-odds = 49 points, the other pairs' votes narrow it), so +-100 is 2.5 of them.
    assert public["Public-High"]["rating"] > final["rating"] > public["Public-Mid"]["rating"]
    assert final["rating"] - public["Public-Mid"]["rating"] == pytest.approx((1.0 - 0.0) * POINTS, abs=100)
    assert final["ci_low"] < final["rating"] < final["ci_high"] and final["votes"] == 3 * 400
    page = client.get("/arena/transparency/").content.decode()
    assert CODENAME in page and f"{final['rating']:.0f}" in page

    # released: the ratings are recomputed (what is shown changed) and the variant is on the board, where
    # the planted strengths put it (the same +-100 as above), with every vote in the public fit now
    assert services.ratings_compute() > 0
    latest = RatingSnapshot.objects.filter(kind="raw", filter_key="").order_by("-computed_at").first()
    after = {m["name"]: m for m in latest.result["models"]}
    assert set(after) == set(STRENGTH) and latest.n_votes == len(rows) and after[CODENAME]["votes"] == 3 * 400
    assert after[CODENAME]["rating"] - after["Public-Mid"]["rating"] == pytest.approx((1.0 - 0.0) * POINTS, abs=100)
    assert after["Public-High"]["rating"] > after[CODENAME]["rating"] > after["Public-Mid"]["rating"]
    assert len([line for line in _download(client, "/arena/votes.jsonl").decode().splitlines() if line]) == len(rows)


def test_the_variant_stays_withheld_when_the_operator_stops_testing(seed_votes, settings, client):
    """Turning the setting off stops drawing variants; one tested before is still withheld until released."""
    from leaderboard.arena.models import ArenaModel

    settings.ARENA_PRERELEASE_TESTING = False
    settings.ARENA_MIN_VOTES, settings.ARENA_BOOTSTRAP_ROUNDS = 50, 10
    ArenaModel.objects.create(name=CODENAME, organization="Acme", prerelease=True)
    seed_votes(planted_rows())
    services.ratings_compute()
    assert CODENAME not in client.get("/arena/leaderboard/").content.decode()
    assert CODENAME not in client.get("/api/arena/ratings/").content.decode()
