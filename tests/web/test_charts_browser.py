"""The pictures in Debian's Chromium at a phone's size: Video NIAH's depth x N heatmap and its
accuracy-against-N lines open from a model's leaderboard row, render (shaded cells, drawn lines), and
have a readable table behind them with every figure as text, for those who cannot see the colours."""

from __future__ import annotations

import json

import pytest

from tests.conftest import wait_for

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.browser]


def predictions(items, answer) -> bytes:
    return "".join(json.dumps({"item_id": item.id, "output": answer(item)}) + "\n" for item in items).encode()


def test_the_heatmap_and_the_lines_render_with_a_table_behind_them(user, live_server, celery_worker, page):
    from evaluators.core import evaluator_for
    from leaderboard.catalog.models import Benchmark
    from leaderboard.catalog.services import benchmarks_sync
    from leaderboard.chains.datasets import dataset_version_import
    from leaderboard.runs.models import EvaluationRun
    from leaderboard.runs.services import submission_create_from_predictions

    benchmarks_sync()
    runs = []
    for slug in ("video-niah-single", "video-niah-multi"):
        benchmark = Benchmark.objects.get(slug=slug)
        evaluator = evaluator_for(slug)
        dataset_version_import(
            benchmark=benchmark, release_path=evaluator.presentation().sample_dataset(), tag="sample"
        )
        items = list(evaluator.import_release(evaluator.presentation().sample_dataset()))
        # right on the shorter haystacks, wrong on the longer ones: a picture with both colours
        shortest = 16 if slug == "video-niah-single" else 32
        data = predictions(
            items,
            lambda item, shortest=shortest: (
                str(item.payload["answer"]) if int(item.slices["frames"]) < shortest else "D"
            ),
        )
        runs.append(
            submission_create_from_predictions(owner=user, benchmark=benchmark, model_name="frame-reader", data=data)
        )
    wait_for(
        lambda: all(EvaluationRun.objects.get(submission=s).is_finished for s in runs), timeout=120, what="the two runs"
    )

    page.goto(live_server.url + "/benchmarks/video-niah-single/")
    page.get_by_text("Accuracy (over the limit = miss): depth (%) × frames (n)").click()
    heat = page.locator("table.heat").first
    assert heat.is_visible()
    text = heat.inner_text()
    assert "100%" in text and "0%" in text  # every cell's figure is written, not only coloured
    shaded = page.locator("table.heat td[style*='background']")
    assert shaded.count() == 12
    strong = shaded.first.evaluate("cell => getComputedStyle(cell).backgroundColor")
    assert strong.startswith(("rgba(37, 99, 235", "rgb(37, 99, 235"))
    assert page.evaluate(
        "document.documentElement.scrollWidth <= window.innerWidth + 1"
    )  # no sideways scroll on a phone

    page.goto(live_server.url + "/benchmarks/video-niah-multi/")
    page.get_by_text("against frames (n)").first.click()
    chart = page.locator("svg.lines-chart").first
    box = chart.bounding_box()
    assert box and box["width"] > 100 and box["height"] > 50
    assert page.locator("svg.lines-chart polyline").count() == 2  # (Q1 + Q2) / 2 and both correct
    assert page.locator("svg.lines-chart circle").count() == 6  # three frame counts each
    label = chart.get_attribute("aria-label")
    assert label and "the table below gives the figures" in label
    table = page.locator("details.lines table.heat").inner_text()
    assert "16" in table and "64" in table and "100%" in table and "0%" in table
