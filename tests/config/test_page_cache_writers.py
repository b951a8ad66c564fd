"""Every writer of something a board shows tells the page cache (``leaderboard.pagecache``): each service
that writes such a row, and the admin of each such model (a staff edit calls no service). They used to
be told by post_save/post_delete signals; now each says it itself, so each is checked here: a writer that
forgot would leave visitors a page from before its change for up to PAGE_SECONDS."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from leaderboard import pagecache
from leaderboard.catalog.models import Benchmark, Model
from leaderboard.runs.models import RunStatus, Submission
from tests.support.factories import run_make, scored_run

pytestmark = pytest.mark.django_db


def generation() -> Any:
    return cache.get(pagecache.GENERATION_KEY)


def changes_the_boards(write: Callable[[], Any]) -> bool:
    pagecache.new_generation()
    before = generation()
    write()
    return generation() != before


def _model_new(user: Any, multi_lcb: Benchmark) -> None:
    from leaderboard.catalog.services import model_get_or_create

    model_get_or_create(owner=user, name="fresh")


def _model_register(user: Any, multi_lcb: Benchmark) -> None:
    from leaderboard.modelhost.services import ModelSource, model_register

    model_register(owner=user, name="registered", spec=ModelSource(source=Model.SOURCE_PREDICTIONS))


def _submission_for_model(user: Any, multi_lcb: Benchmark) -> None:
    from leaderboard.runs import services

    model = Model.objects.create(
        owner=user, name="m", slug="m", source=Model.SOURCE_HF, hf_repo="o/m", hf_revision="a" * 40
    )
    Model.objects.filter(pk=model.pk).update(preflight_status=Model.PREFLIGHT_PASSED)
    model.refresh_from_db()
    before = generation()
    services.submission_create_for_model(owner=user, model=model, benchmarks=[multi_lcb], generation_settings={})
    assert generation() != before


def _benchmarks_sync(user: Any, multi_lcb: Benchmark) -> None:
    from leaderboard.catalog.services import benchmarks_sync

    benchmarks_sync()


def _board_row_filed(user: Any, multi_lcb: Benchmark) -> None:
    scored_run(multi_lcb, user, "alpha", 0.4)


def _entries_resync(user: Any, multi_lcb: Benchmark) -> None:
    from leaderboard.chains.board_rows import leaderboard_entries_resync

    leaderboard_entries_resync(model_id=Model.objects.get(name="seen").pk)


def _snapshot_freeze(user: Any, multi_lcb: Benchmark) -> None:
    from leaderboard.history.services import snapshot_freeze

    snapshot_freeze(benchmark=multi_lcb, reason="release 1")


def _row_withhold(user: Any, multi_lcb: Benchmark) -> None:
    from leaderboard.history.services import snapshot_freeze, snapshot_row_withhold

    snapshot = snapshot_freeze(benchmark=multi_lcb, reason="release 1")
    pagecache.new_generation()
    before = generation()
    run_id = snapshot.rows[0]["run"]
    snapshot_row_withhold(snapshot=snapshot, run_id=run_id, reason="withheld by the test", user=user)
    assert generation() != before


def _arena_seed(user: Any, multi_lcb: Benchmark) -> None:
    from leaderboard.arena.services.contestants import arena_models_seed

    arena_models_seed()


def _arena_retire(user: Any, multi_lcb: Benchmark) -> None:
    from leaderboard.arena.models import ArenaModel
    from leaderboard.arena.services.lifecycle import model_retire

    ArenaModel.objects.create(name="old-contestant", responder={"kind": "extractive"})
    pagecache.new_generation()
    before = generation()
    model_retire(name="old-contestant", reason="replaced")
    assert generation() != before


WRITERS = {
    "catalog model_get_or_create (new model)": _model_new,
    "modelhost model_register": _model_register,
    "runs submission_create_for_model (submission and runs)": _submission_for_model,
    "catalog benchmarks_sync": _benchmarks_sync,
    "chains leaderboard_entry_refresh (a run filed)": _board_row_filed,
    "chains leaderboard_entries_resync": _entries_resync,
    "history snapshot_freeze": _snapshot_freeze,
    "history snapshot_row_withhold": _row_withhold,
    "arena arena_models_seed": _arena_seed,
    "arena model_retire": _arena_retire,
}


@pytest.mark.parametrize("writer", list(WRITERS), ids=list(WRITERS))
def test_a_service_that_writes_what_a_board_shows_changes_the_generation(writer, multi_lcb, user):
    scored_run(multi_lcb, user, "seen", 0.3)
    assert changes_the_boards(lambda: WRITERS[writer](user, multi_lcb))


@pytest.fixture
def staff(django_user_model) -> Client:
    client = Client()
    client.force_login(django_user_model.objects.create_user("boss", password="pw", is_staff=True, is_superuser=True))
    return client


def test_a_staff_edit_in_the_admin_shows_at_once(multi_lcb, user, staff):
    scored_run(multi_lcb, user, "beta", 0.8)
    assert "beta" in Client().get("/benchmarks/multi-lcb/").content.decode()
    beta = Model.objects.get(name="beta")
    form = {
        field: getattr(beta, field) or ""
        for field in ("name", "slug", "organization", "source", "modality", "preflight_status", "hf_repo")
    }
    form.update(owner=user.pk, is_public="on", name="beta-renamed", generation_defaults="{}", preflight_report="{}")
    answer = staff.post(f"/admin/catalog/model/{beta.pk}/change/", form)
    assert answer.status_code == 302, answer.content.decode()[:2000]
    assert Model.objects.get(pk=beta.pk).name == "beta-renamed"
    assert "beta-renamed" in Client().get("/benchmarks/multi-lcb/").content.decode()


def test_a_staff_delete_in_the_admin_changes_the_generation(multi_lcb, user, staff):
    """(A row on a board cannot be deleted in the admin: its changelog entries and frozen rows are kept, and
    their admins refuse deletes, so this is a submission still queued.)"""
    run = run_make(multi_lcb, user, "gamma", status=RunStatus.QUEUED)
    assert changes_the_boards(
        lambda: staff.post(f"/admin/submissions/submission/{run.submission_id}/delete/", {"post": "yes"})
    )
    assert not Submission.objects.filter(pk=run.submission_id).exists()


def test_a_staff_delete_of_a_selection_changes_the_generation(user, staff):
    model = Model.objects.create(owner=user, name="delta", slug="delta")
    assert changes_the_boards(
        lambda: staff.post(
            "/admin/catalog/model/", {"action": "delete_selected", "_selected_action": [model.pk], "post": "yes"}
        )
    )
    assert not Model.objects.filter(pk=model.pk).exists()
