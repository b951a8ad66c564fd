"""A model's profile: each benchmark's headline with its interval and rank on the current board, its
arena rating, provenance and runs, the per-benchmark pictures; the same in the API; and the page in
Debian's Chromium at a phone's and a desktop's size (screenshots kept in VAR_DIR/artifacts)."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from leaderboard.runs.models import EvaluationRun
from tests.conftest import wait_for
from tests.modelhost.conftest import api_for

pytestmark = pytest.mark.django_db(transaction=True)


def scored(user) -> None:
    """Two models on Video NIAH (single hop) and IndicVisionBench OCR, scored by the real worker:
    frame-reader answers everything right, guesser only the shortest haystacks and no page."""
    from evaluators.core import evaluator_for
    from leaderboard.catalog.models import Benchmark
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import

    benchmarks_sync()
    runs = []
    for slug in ("video-niah-single", "indic-vision-ocr"):
        evaluator = evaluator_for(slug)
        dataset_version_import(
            benchmark=Benchmark.objects.get(slug=slug),
            release_path=evaluator.presentation().sample_dataset(),
            tag="sample",
        )
        items = list(evaluator.import_release(evaluator.presentation().sample_dataset()))
        for name, answer in (
            ("frame-reader", lambda i: str(i.payload.get("answer", i.payload.get("text")))),
            ("guesser", lambda i: str(i.payload["answer"]) if i.slices.get("frames") == "4" else "no idea"),
        ):
            data = "".join(json.dumps({"item_id": i.id, "output": answer(i)}) + "\n" for i in items).encode()
            response = api_for(user).post(
                "/api/submissions/",
                {"benchmark": slug, "model_name": name, "predictions": SimpleUploadedFile("p.jsonl", data)},
                format="multipart",
            )
            assert response.status_code == 201, response.content
            runs.append(EvaluationRun.objects.get(submission_id=response.json()["id"]).pk)
    wait_for(lambda: all(EvaluationRun.objects.get(pk=r).is_finished for r in runs), timeout=180, what="the four runs")


def arena_snapshot() -> None:
    """Two contestants' ratings; frame-reader's contestant is linked to the catalog model (one identity),
    the other contestant to none."""
    from leaderboard.arena.models import ArenaModel, RatingSnapshot
    from leaderboard.catalog.models import Model

    ArenaModel.objects.create(name="frame-reader", catalog_model=Model.objects.get(name="frame-reader"))
    ArenaModel.objects.create(name="other")

    RatingSnapshot.objects.create(
        kind="raw",
        result={
            "models": [
                {
                    "name": "frame-reader",
                    "rating": 1043.0,
                    "ci_low": 1001.0,
                    "ci_high": 1088.0,
                    "rank_ub": 1,
                    "votes": 210,
                    "wins": 120,
                    "losses": 80,
                    "ties": 10,
                    "provisional": False,
                    "rankable": True,
                    "note": "",
                    "bounded": True,
                },
                {
                    "name": "other",
                    "rating": 1000.0,
                    "ci_low": 1000.0,
                    "ci_high": 1000.0,
                    "rank_ub": 1,
                    "votes": 210,
                    "wins": 80,
                    "losses": 120,
                    "ties": 10,
                    "provisional": False,
                    "rankable": True,
                    "note": "",
                    "bounded": True,
                },
            ]
        },
        n_votes=210,
        fingerprint="f",
    )


def test_the_profile_gathers_scores_ranks_and_the_arena_on_the_page_and_in_the_api(user, celery_worker, client):
    scored(user)
    arena_snapshot()
    profile = client.get("/api/models/frame-reader/profile/").json()
    by_benchmark = {b["benchmark"]: b for b in profile["benchmarks"]}
    niah = by_benchmark["video-niah-single"]
    assert niah["value"] == 1.0 and niah["rank"] == 1 and niah["ranked_of"] == 2 and niah["ci_low"] is not None
    ocr = by_benchmark["indic-vision-ocr"]
    assert ocr["value"] == 0.0 and not ocr["higher_is_better"] and ocr["rank"] == 1  # an edit distance: lower is better
    assert profile["arena"]["rating"] == 1043.0 and profile["arena"]["of"] == 2
    assert profile["model"]["submitted_by"] == [user.username] and len(profile["runs"]) == 2
    guesser = {b["benchmark"]: b for b in client.get("/api/models/guesser/profile/").json()["benchmarks"]}
    assert guesser["video-niah-single"]["rank"] == 2 and guesser["indic-vision-ocr"]["rank"] == 2
    assert client.get("/api/models/guesser/profile/").json()["arena"] is None

    page = client.get("/models/frame-reader/").content.decode()
    assert "At a glance" in page and "1 of 2" in page and "Search Arena" in page and "1043" in page
    assert '<details class="heatmap">' in page  # the NIAH run's depth x N picture
    assert "Char. edit distance (0-100) ↓" in page and "registered by" in page


@pytest.mark.browser
def test_the_profile_page_on_a_phone_and_a_desktop(user, celery_worker, live_server, page, artifacts):
    scored(user)
    arena_snapshot()
    for width, height, name in ((390, 844, "phone"), (1280, 900, "desktop")):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + "/models/frame-reader/")
        table = page.locator("table.profile-table")
        assert table.is_visible() and "1 of 2" in table.inner_text() and "Search Arena" in table.inner_text()
        assert page.locator("table.profile-table .bar").count() == 2
        # longer is better on every row: the perfect NIAH accuracy (100%) and the perfect OCR edit distance
        # (0) both fill their track
        fills = page.evaluate("""[...document.querySelectorAll('table.profile-table .ci-track')].map(t =>
            t.querySelector('.bar').getBoundingClientRect().width / t.getBoundingClientRect().width)""")
        assert len(fills) == 2 and all(f > 0.98 for f in fills), fills
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        page.screenshot(path=str(artifacts / f"profile-{name}.png"), full_page=True)
    assert (artifacts / "profile-phone.png").stat().st_size > 10_000


def test_two_models_compared_side_by_side_with_significant_differences_items_and_the_arena(user, celery_worker, client):
    scored(user)
    arena_snapshot()
    result = client.get("/api/models/compare/", {"a": "frame-reader", "b": "guesser"}).json()
    niah = next(b for b in result["benchmarks"] if b["benchmark"] == "video-niah-single")
    headline = niah["rows"][0]
    assert headline["slice"] == "all" and headline["a"]["value"] == 1.0 and headline["better"] == "a"
    assert (
        niah["items"]["comparable"] and niah["items"]["a_only"] == 27 and niah["items"]["b_only"] == 0
    )  # 36 items, 9 at 4 frames
    assert all(row["better"] == "a" for row in niah["items"]["rows"])
    ocr = next(b for b in result["benchmarks"] if b["benchmark"] == "indic-vision-ocr")
    assert ocr["rows"][0]["better"] == "a" and not ocr["higher_is_better"]  # lower edit distance is better
    assert result["arena"] is None  # guesser is no arena contestant
    assert client.get("/api/models/compare/", {"a": "frame-reader"}).status_code == 400

    page = client.get("/compare/", {"a": "frame-reader", "b": "guesser"}).content.decode()
    assert (
        "<strong>frame-reader better</strong>" in page and "Items where they differ: frame-reader better on 27" in page
    )
    # each figure says how many items it counts (OCR's sample: 22 items, 2 in each language)
    assert (
        '<td class="num better">0.00 <span class="ci">[0.00, 0.00]</span> <span class="n" '
        'title="items">n=22</span></td>' in page
    )
    assert page.count('title="items">n=2</span>') >= 2 * 11
    assert 'href="/compare/?a=frame-reader"' in client.get("/models/frame-reader/").content.decode()
    assert '<select name="a">' in client.get("/compare/").content.decode()  # the form, before anything is chosen

    from leaderboard.arena.models import ArenaModel
    from leaderboard.catalog.models import Model

    # the arena's other contestant, once staff link it to its catalog record (a name alone is reserved)
    other = Model.objects.create(owner=user, name="other", slug="other")
    ArenaModel.objects.filter(name="other").update(catalog_model=other)
    arena = client.get("/api/models/compare/", {"a": "frame-reader", "b": "other"}).json()["arena"]
    assert arena["record"] == {"a": 0, "b": 0, "ties": 0}
    assert arena["predicted"] == pytest.approx(1 / (1 + 10 ** (-43 / 400)))  # 1043 against 1000
    assert arena["predicted_low"] < arena["predicted"] < arena["predicted_high"]


@pytest.mark.browser
def test_the_comparison_on_a_phone_and_a_desktop(user, celery_worker, live_server, page, artifacts):
    scored(user)
    for width, height, name in ((390, 844, "phone"), (1280, 900, "desktop")):
        page.set_viewport_size({"width": width, "height": height})
        page.goto(live_server.url + "/compare/")
        page.select_option("select[name=a]", "frame-reader")
        page.select_option("select[name=b]", "guesser")
        page.get_by_role("button", name="Compare").click()
        page.wait_for_url("**/compare/?a=frame-reader&b=guesser")
        assert page.locator("td.better").count() >= 2 and page.get_by_text("frame-reader better").first.is_visible()
        page.get_by_text("Items where they differ").first.click()
        assert page.locator("details.items table").first.is_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")
        page.screenshot(path=str(artifacts / f"compare-{name}.png"), full_page=True)
