"""Rank history: each model's rank and headline over time, from the snapshots and the changelog, on its
profile and on the board (a chart that needs no JavaScript, with its table); public models only."""

from __future__ import annotations

import re

import pytest

from leaderboard.catalog.models import Model
from leaderboard.history.selectors import board_rank_history, model_rank_history
from leaderboard.history.services import snapshot_freeze
from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_snapshots(multi_lcb, user):
    """Snapshot 1: Alpha 0.80 [0.75, 0.85] rank 1, Beta 0.50 [0.45, 0.55] rank 2 (Alpha's low 0.75 > 0.55).
    Then Beta's new run 0.95 [0.90, 1.00]; snapshot 2: Beta rank 1, Alpha rank 2 (Beta's low 0.90 > 0.85)."""
    scored_run(multi_lcb, user, "Alpha", 0.80)
    scored_run(multi_lcb, user, "Beta", 0.50)
    first = snapshot_freeze(benchmark=multi_lcb, reason="one")
    scored_run(multi_lcb, user, "Beta", 0.95)
    second = snapshot_freeze(benchmark=multi_lcb, reason="two")
    return first, second


def test_a_models_history_from_snapshots_and_the_changelog(two_snapshots):
    first, second = two_snapshots
    (alpha,) = model_rank_history(model=Model.objects.get(name="Alpha"))
    assert [(p.rank, p.headline_text, p.source) for p in alpha.points] == [
        (None, "80.0%", "Alpha added on dataset mini: 80.0%"),
        (1, "80.0%", f"snapshot #{first.pk}"),
        (2, "80.0%", f"snapshot #{second.pk}"),
    ]
    (beta,) = model_rank_history(model=Model.objects.get(name="Beta"))
    assert [(p.rank, p.headline_text) for p in beta.points] == [
        (None, "50.0%"),
        (2, "50.0%"),
        (None, "95.0%"),
        (1, "95.0%"),
    ]
    assert [bar["height"] for bar in beta.bars] == [50.0, 50.0, 95.0, 95.0]


def test_a_lower_is_better_headline_is_drawn_taller_for_better():
    """An edit distance on 0-100 (OCR's headline): 0 is a full bar, 40 a bar of 60%, 100 none; hand-worked."""
    from types import SimpleNamespace

    from leaderboard.history.selectors import BoardHistory, HistoryPoint, _bars

    benchmark = SimpleNamespace(primary_metric={"key": "ned", "format": "number", "higher_is_better": False})
    points = [
        HistoryPoint(at=None, rank=None, headline=[v, v, v, 22], headline_text=str(v), source="")
        for v in (0.0, 40.0, 100.0)
    ]
    assert [bar["height"] for bar in _bars(BoardHistory(benchmark, points))] == [100.0, 60.0, 0.0]


def test_the_profile_and_the_board_show_the_chart_and_its_table(client, two_snapshots):
    first, _second = two_snapshots
    profile = client.get("/models/beta/").content.decode()
    assert 'id="rank-history"' in profile and 'class="hfill" style="height: 95.0%"' in profile
    rows = re.findall(r"<tr><td>[^<]+</td><td class=\"num\">([^<]+)</td><td class=\"num\">([^<]+)</td>", profile)
    assert rows == [("–", "50.0%"), ("2", "50.0%"), ("–", "95.0%"), ("1", "95.0%")]
    board = client.get("/benchmarks/multi-lcb/").content.decode()
    assert (
        '<svg class="rank-chart"' in board
        and "<script" not in board.split('id="rank-history"')[1].split("</section>")[0]
    )
    history = board_rank_history(benchmark=first.benchmark)
    assert history is not None
    assert [(m["name"], [rank for rank, _ in m["cells"]]) for m in history.models] == [
        ("Beta", [2, 1]),
        ("Alpha", [1, 2]),
    ]
    assert history.models[0]["points"] == "40,44 100,20"  # x: 40 + 60 per snapshot; y: 20 + 24 per rank below the first


def test_a_model_made_private_leaves_the_history(client, two_snapshots):
    first, _ = two_snapshots
    model = Model.objects.get(name="Beta")
    model.is_public = False
    model.save()
    history = board_rank_history(benchmark=first.benchmark)
    assert history is not None and [m["name"] for m in history.models] == ["Alpha"]
    assert model_rank_history(model=model) == []
    board = client.get("/benchmarks/multi-lcb/").content.decode()
    assert '<a href="/models/beta/">Beta</a>' not in board


def test_a_model_whose_submission_alone_was_made_private_leaves_the_rank_history(client, two_snapshots):
    """Beta's later submission (0.95, rank 1 in snapshot 2) made private, the model still public: its row in
    snapshot 2 is withheld, so the board's chart follows Alpha alone (snapshot 2's first shown row) and
    Beta's profile keeps only its public work (its first run: 50.0%, rank 2 in snapshot 1)."""
    first, _second = two_snapshots
    later = Model.objects.get(name="Beta").submissions.order_by("created_at", "pk").last()
    later.is_public = False
    later.save()
    history = board_rank_history(benchmark=first.benchmark)
    assert history is not None
    assert [(m["name"], [rank for rank, _ in m["cells"]]) for m in history.models] == [("Alpha", [1, 2])]
    board = client.get("/benchmarks/multi-lcb/").content.decode()
    chart = board.split('id="rank-history"')[1].split("</section>")[0]
    assert "Beta" not in chart and "Alpha" in chart
    (beta,) = model_rank_history(model=Model.objects.get(name="Beta"))
    assert [(p.rank, p.headline_text) for p in beta.points if p.snapshot is not None] == [(2, "50.0%")]
    assert "95.0%" not in [p.headline_text for p in beta.points]
    profile = client.get("/models/beta/").content.decode()
    assert "95.0%" not in profile.split('id="rank-history"')[1]
