"""``manage.py seed_scale`` at a tiny scale: exactly the rows asked for, runs spread over the boards as
documented (run k: model k mod models), the latest run of each model on the board, item results spread
evenly with the dataset's own slices, and a second seeding refused."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F

from leaderboard import pagecache
from leaderboard.arena.models import ArenaModel, Battle, Vote
from leaderboard.catalog.models import Model
from leaderboard.runs.models import EvaluationRun, ItemResult, LeaderboardEntry, RunStatus, Score, Submission

pytestmark = pytest.mark.django_db

TINY = ["--votes", "40", "--arena-models", "4", "--linked", "2", "--models", "3", "--runs", "7", "--items", "10"]


def test_seed_scale_writes_exactly_the_rows_asked_for(multi_lcb):
    out = io.StringIO()
    call_command("seed_scale", *TINY, stdout=out)
    assert "votes 40 / 40" in out.getvalue() and "item results 10 / 10" in out.getvalue()
    seeded = Model.objects.filter(owner__username="scale-seed")
    assert seeded.count() == 3
    arena = ArenaModel.objects.filter(name__startswith="scale-arena-")
    assert arena.count() == 4 and arena.filter(catalog_model__isnull=False).count() == 2
    assert Battle.objects.count() == 40 and Vote.objects.count() == 40
    assert not Battle.objects.filter(model_a=F("model_b")).exists()  # never a model against itself
    assert set(Battle.objects.values_list("setting", flat=True)) <= {"search", "chat"}
    assert Submission.objects.filter(owner__username="scale-seed").count() == 7
    runs = EvaluationRun.objects.filter(submission__owner__username="scale-seed").order_by("pk")
    assert runs.count() == 7 and set(runs.values_list("status", flat=True)) == {RunStatus.SUCCEEDED}
    # only Multi-LCB has a current dataset here: every run is on it, run k of model k mod 3
    names = [run.submission.model.name for run in runs.select_related("submission__model")]
    assert names == [f"scale-model-{k % 3:05d}" for k in range(7)]
    # one score per headline metric (pass@1, pass@5...) and one per language (the board's first dimension)
    per_run = len(multi_lcb.metric_columns) + len(multi_lcb.slice_dimensions[0]["values"])
    assert Score.objects.filter(run__in=runs).count() == 7 * per_run
    # 10 results over 7 runs: the first three runs take two
    counts = [ItemResult.objects.filter(run=run).count() for run in runs]
    assert counts == [2, 2, 2, 1, 1, 1, 1]
    assert not ItemResult.objects.filter(
        slices={}
    ).exists()  # each result carries its item's slices (the date window's input)
    # the board: one public row per model, its latest run (runs 6, 4 and 5)
    entries = LeaderboardEntry.objects.filter(benchmark=multi_lcb, is_public=True).order_by("model__name")
    assert [entry.run_id for entry in entries] == [runs[6].pk, runs[4].pk, runs[5].pk]


def test_seed_scale_refuses_a_seeded_database(multi_lcb):
    call_command(
        "seed_scale",
        "--votes",
        "0",
        "--arena-models",
        "0",
        "--models",
        "1",
        "--runs",
        "1",
        "--items",
        "0",
        stdout=io.StringIO(),
    )
    with pytest.raises(CommandError, match="seeded already"):
        call_command("seed_scale", "--votes", "0", "--models", "1", "--runs", "0", "--items", "0", stdout=io.StringIO())


def test_the_models_index_shows_a_page_of_models_and_its_queries_do_not_grow(client, multi_lcb):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    call_command(
        "seed_scale",
        "--votes",
        "0",
        "--arena-models",
        "0",
        "--models",
        "105",
        "--runs",
        "210",
        "--items",
        "0",
        stdout=io.StringIO(),
    )
    first = client.get("/models/").content.decode()
    assert (
        first.count('href="/models/scale-model-') == 100
        and "page 1 of 2" in first
        and "105 models, 100 on this page" in first
    )
    second = client.get("/models/?page=2").content.decode()
    assert second.count('href="/models/scale-model-') == 5 and "scale-model-00104" in second
    with CaptureQueriesContext(connection) as small:
        client.get("/models/?sort=multi-lcb&page=2")
    owner = Model.objects.get(name="scale-model-00000").owner
    Model.objects.bulk_create([Model(name=f"more-{n:04d}", slug=f"more-{n:04d}", owner=owner) for n in range(400)])
    pagecache.new_generation()  # bulk_create sends no signal: the cached page is out of date
    with CaptureQueriesContext(connection) as large:
        page = client.get("/models/?sort=multi-lcb&page=2").content.decode()
    assert "505 models, 100 on this page" in page
    assert len(large.captured_queries) == len(small.captured_queries)
