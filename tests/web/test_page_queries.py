"""The pages that read every board (the home page, the models index and its API, a model's page and its profile
in the API, two models compared) ask the database the same number of times however many boards, rows and models
there are (issue 47 point 4: before, each board cost its own three or four queries, a profile three more per board
it ranks on, and a comparison two per board both models are on). Each count is taken signed in (the page cache
bypassed)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from leaderboard import pagecache
from leaderboard.catalog.models import Benchmark
from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db

PAGES = [
    "/",
    "/models/",
    "/models/?sort=multi-lcb",
    "/api/models/index/",
    "/models/alpha/",
    "/api/models/alpha/profile/",
    "/compare/?a=alpha&b=beta",
    "/api/models/compare/?a=alpha&b=beta",
]


def _counts(client) -> dict[str, int]:
    found = {}
    for path in PAGES:
        pagecache.new_generation()
        with CaptureQueriesContext(connection) as queries:
            assert client.get(path).status_code == 200, path
        found[path] = len(queries.captured_queries)
    return found


def _another_board(board: Benchmark, n: int) -> Benchmark:
    """A scored board like ``board`` (its evaluator, columns and current dataset version, copied)."""
    copy = Benchmark.objects.create(
        slug=f"{board.slug}-{n}",
        name=f"{board.name} {n}",
        summary=board.summary,
        evaluator_key=board.evaluator_key,
        metric_columns=board.metric_columns,
        slice_dimensions=board.slice_dimensions,
        position=board.position + n,
    )
    version = board.dataset_versions.get(is_current=True)
    version.pk, version.benchmark = None, copy
    version.save()
    return copy


def test_pages_over_every_board_ask_as_often_with_more_boards_rows_and_models(client, multi_lcb, user):
    client.force_login(user)
    for name, value in [("alpha", 0.6), ("beta", 0.4)]:
        scored_run(multi_lcb, user, name, value)
    few = _counts(client)
    for n in range(1, 4):
        board = _another_board(multi_lcb, n)
        for k, name in enumerate(["alpha", "beta", "gamma", "delta", f"only-{n}"]):
            scored_run(board, user, name, 0.2 + 0.1 * k)
    many = _counts(client)
    assert many == few
