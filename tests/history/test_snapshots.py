"""Snapshots: a board frozen with every public row (ranks, values on every slice, what produced each),
downloads whose bytes never change, a citation block, a banner on the live board, and no edits."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re

import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from leaderboard.catalog.models import Benchmark
from leaderboard.chains.datasets import dataset_version_import
from leaderboard.history import selectors
from leaderboard.history.models import ChangeKind, ChangelogEntry, Snapshot, SnapshotImmutable
from leaderboard.history.services import SnapshotRefused, snapshot_freeze, snapshots_freeze_scheduled
from tests.support.factories import scored_run

pytestmark = pytest.mark.django_db

JUDGE = {"name": "qwen-judge", "revision": "rev9", "prompt_version": "v2", "label": "qwen-judge@rev9 (prompt v2)"}


@pytest.fixture
def board(multi_lcb, user, other_user):
    """Alpha 0.80 [0.75, 0.85], Beta 0.50 [0.45, 0.55], Gamma 0.52 [0.47, 0.57], all public; a private
    model 0.90 of another user."""
    runs = {
        "Alpha": scored_run(multi_lcb, user, "Alpha", 0.80, evaluator_version="ev7", judge=JUDGE),
        "Beta": scored_run(multi_lcb, user, "Beta", 0.50),
        "Gamma": scored_run(multi_lcb, user, "Gamma", 0.52),
    }
    scored_run(multi_lcb, other_user, "Hidden-Zeta", 0.90, public=False)
    return runs


def downloads(client, snapshot: Snapshot) -> dict[str, tuple[bytes, str]]:
    found = {}
    for fmt in ("csv", "json", "parquet"):
        response = client.get(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/download.{fmt}")
        assert response.status_code == 200
        found[fmt] = (response.content, response["X-Content-SHA256"])
    return found


def test_a_snapshot_freezes_every_public_row_with_its_ranks_slices_and_provenance(multi_lcb, board, staff_user):
    snapshot = snapshot_freeze(benchmark=multi_lcb, reason="for the paper", user=staff_user)
    dataset = multi_lcb.dataset_versions.get(is_current=True)
    assert [(r["model"], r["rank"]) for r in snapshot.rows] == [
        ("Alpha", 1),
        ("Gamma", 2),
        ("Beta", 2),
    ]  # Gamma's 0.57 < Alpha's 0.75
    alpha = snapshot.rows[0]
    assert alpha["values"]["pass@1"] == pytest.approx([0.80, 0.75, 0.85, 3])
    assert alpha["values"]["pass@1|language=python"] == pytest.approx([0.80, 0.70, 0.90, 3])
    assert (alpha["dataset_version"], alpha["dataset_sha256"]) == ("mini", dataset.content_hash)
    assert (alpha["evaluator_version"], alpha["judge"], alpha["judge_prompt_version"]) == (
        "ev7",
        "qwen-judge@rev9 (prompt v2)",
        "v2",
    )
    assert (alpha["run"], snapshot.rows[2]["evaluator_version"], snapshot.rows[2]["judge"]) == (
        board["Alpha"].pk,
        "ev1",
        "",
    )
    assert snapshot.dataset_version == dataset and snapshot.created_by == staff_user
    stored = Snapshot.objects.get(pk=snapshot.pk)
    assert (
        "Hidden-Zeta" not in bytes(stored.json_bytes).decode() and "Hidden-Zeta" not in bytes(stored.csv_bytes).decode()
    )
    lines = list(csv.reader(io.StringIO(bytes(stored.csv_bytes).decode())))
    assert lines[0][:14] == [
        "rank",
        "model",
        "model_slug",
        "run",
        "dataset_version",
        "dataset_sha256",
        "evaluator_version",
        "judge",
        "judge_prompt_version",
        "unranked_reason",
        "pass@1",
        "pass@1:ci_low",
        "pass@1:ci_high",
        "pass@1:n",
    ]
    assert lines[1][:10] == [
        "1",
        "Alpha",
        "alpha",
        str(board["Alpha"].pk),
        "mini",
        dataset.content_hash,
        "ev7",
        "qwen-judge@rev9 (prompt v2)",
        "v2",
        "",
    ]
    python = lines[0].index("pass@1|language=python")
    assert [float(x) for x in lines[1][python : python + 3]] == pytest.approx([0.80, 0.70, 0.90])
    assert [line[1] for line in lines[1:]] == ["Alpha", "Gamma", "Beta"]
    data = json.loads(bytes(stored.json_bytes))
    assert (data["benchmark"], data["reason"], data["dataset_version"], len(data["rows"])) == (
        "multi-lcb",
        "for the paper",
        "mini",
        3,
    )


def test_download_bytes_and_digests_never_change_after_reruns_and_a_new_dataset_version(
    client, multi_lcb, board, user, mini_release
):
    snapshot = snapshot_freeze(benchmark=multi_lcb, reason="release 1")
    first = downloads(client, snapshot)
    for fmt, (data, digest) in first.items():
        assert digest == hashlib.sha256(data).hexdigest() == getattr(snapshot, f"{fmt}_sha256")
    assert downloads(client, snapshot) == first  # the same bytes on every read
    table = pq.read_table(io.BytesIO(first["parquet"][0]))
    assert table.column("model").to_pylist() == ["Alpha", "Gamma", "Beta"] and table.column(
        "pass@1"
    ).to_pylist() == pytest.approx([0.8, 0.52, 0.5])

    scored_run(multi_lcb, user, "Beta", 0.95)  # a later run replaces Beta's row on the live board
    dataset_version_import(
        benchmark=multi_lcb, release_path=mini_release, tag="mini-2"
    )  # and a new dataset version becomes current
    assert downloads(client, snapshot) == first
    assert (
        f'<code class="digest">{first["json"][1]}</code>'
        in client.get(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/").content.decode()
    )

    later = snapshot_freeze(benchmark=Benchmark.objects.get(slug="multi-lcb"), reason="release 2")
    assert later.rows == [] and later.dataset_version.tag == "mini-2" and later.json_sha256 != snapshot.json_sha256
    assert client.get(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/download.xlsx").status_code == 404


def test_a_snapshot_is_never_edited_and_a_correction_names_the_one_it_corrects(client, multi_lcb, board, policon_board):
    snapshot = snapshot_freeze(benchmark=multi_lcb, reason="release 1")
    snapshot.reason = "rewritten"
    with pytest.raises(SnapshotImmutable):
        snapshot.save()
    assert Snapshot.objects.get(pk=snapshot.pk).reason == "release 1"
    with pytest.raises(SnapshotRefused, match="reason: must not be empty"):
        snapshot_freeze(benchmark=multi_lcb, reason="  ")
    with pytest.raises(SnapshotRefused, match="corrects: snapshot #"):
        snapshot_freeze(benchmark=policon_board, reason="fix", corrects=snapshot)
    fixed = snapshot_freeze(benchmark=multi_lcb, reason="Beta's run used the wrong dataset", corrects=snapshot)
    old_page = client.get(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/").content.decode()
    assert f'Corrected by <a href="/benchmarks/multi-lcb/snapshots/{fixed.pk}/">snapshot #{fixed.pk}</a>' in old_page
    assert "Beta&#x27;s run used the wrong dataset" in old_page
    new_page = client.get(f"/benchmarks/multi-lcb/snapshots/{fixed.pk}/").content.decode()
    assert f'corrects <a href="/benchmarks/multi-lcb/snapshots/{snapshot.pk}/">snapshot #{snapshot.pk}</a>' in new_page
    assert ChangelogEntry.objects.filter(kind=ChangeKind.SNAPSHOT).count() == 2


def test_the_citation_block_names_the_permanent_url_the_dataset_and_the_digest(client, multi_lcb, board, settings):
    settings.SITE_URL = "https://boards.example.org/"
    snapshot = snapshot_freeze(benchmark=multi_lcb, reason="release 1")
    day, year = f"{snapshot.frozen_at:%Y-%m-%d}", f"{snapshot.frozen_at:%Y}"
    month = f"{snapshot.frozen_at:%b}".lower()
    url = f"https://boards.example.org/benchmarks/multi-lcb/snapshots/{snapshot.pk}/"
    citation = selectors.snapshot_citation(snapshot)
    assert citation.bibtex == (
        f"@misc{{multi_lcb_snapshot_{snapshot.pk},\n"
        f"  title = {{{{Multi-LCB leaderboard, snapshot {snapshot.pk} of {day}}}}},\n"
        f"  year = {{{year}}},\n"
        f"  month = {{{month}}},\n"
        f"  howpublished = {{\\url{{{url}}}}},\n"
        f"  note = {{Dataset version mini; 3 rows; JSON sha256 {snapshot.json_sha256}}}\n"
        "}"
    )
    assert citation.text == (
        f"Multi-LCB leaderboard, snapshot {snapshot.pk} of {day} (frozen {snapshot.frozen_at:%Y-%m-%d %H:%M} UTC). "
        f"{url}. Dataset version mini; 3 rows; JSON sha256 {snapshot.json_sha256}."
    )
    page = client.get(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/").content.decode()
    assert (
        f"@misc{{multi_lcb_snapshot_{snapshot.pk}," in page
        and snapshot.csv_sha256 in page
        and snapshot.parquet_sha256 in page
    )
    api = APIClient().get(f"/api/benchmarks/multi-lcb/snapshots/{snapshot.pk}/").json()
    assert api["citation"]["bibtex"] == citation.bibtex and api["json_sha256"] == snapshot.json_sha256
    assert api["downloads"]["csv"] == f"{url}download.csv" and [r["model"] for r in api["rows"]] == [
        "Alpha",
        "Gamma",
        "Beta",
    ]
    listing = APIClient().get("/api/benchmarks/multi-lcb/snapshots/").json()
    assert [(s["id"], s["url"], s["dataset_version"]) for s in listing] == [(snapshot.pk, url, "mini")]
    assert APIClient().get("/api/benchmarks/multi-lcb/snapshots/999999/").status_code == 404


def test_the_live_board_shows_a_banner_linking_to_the_latest_snapshot(client, multi_lcb, board):
    assert 'id="snapshot-banner"' not in client.get("/benchmarks/multi-lcb/").content.decode()  # and now cached
    snapshot_freeze(benchmark=multi_lcb, reason="release 1")
    second = snapshot_freeze(benchmark=multi_lcb, reason="release 2")
    page = client.get("/benchmarks/multi-lcb/").content.decode()
    assert 'id="snapshot-banner"' in page
    assert (
        f'<a href="/benchmarks/multi-lcb/snapshots/{second.pk}/">snapshot #{second.pk} of '
        f"{second.frozen_at:%Y-%m-%d}</a>" in page
    )


def test_the_command_and_the_schedule_freeze_boards(multi_lcb, board, policon_board, capsys):
    call_command("snapshot_board", "multi-lcb", reason="monthly")
    snapshot = Snapshot.objects.get()
    assert f"snapshot #{snapshot.pk} of multi-lcb: 3 rows" in capsys.readouterr().out and snapshot.reason == "monthly"
    with pytest.raises(CommandError, match="slug: no benchmark 'nope'"):
        call_command("snapshot_board", "nope", reason="x")
    frozen = snapshots_freeze_scheduled(slugs=["multi-lcb", "policon"])  # PoliCon has no dataset here: skipped
    assert [s.benchmark.slug for s in frozen] == ["multi-lcb"] and frozen[0].reason.startswith("scheduled snapshot of ")


def test_the_schema_documents_the_history_api(client):
    schema = client.get("/api/schema/").content.decode()
    for path in (
        "/api/benchmarks/{slug}/snapshots/",
        "/api/benchmarks/{slug}/snapshots/{id}/",
        "/api/benchmarks/{slug}/changelog/",
    ):
        assert path in schema


def test_the_beat_freezes_the_boards_an_operator_names(settings):
    from celery import Celery
    from celery.schedules import crontab

    from workers.celery import _schedule

    name = "freeze the scheduled boards' snapshots"
    settings.SNAPSHOT_SCHEDULE_BOARDS = []
    idle = Celery("probe-idle")
    idle.conf.update(beat_schedule={})
    _schedule(idle)
    assert name not in idle.conf.beat_schedule
    settings.SNAPSHOT_SCHEDULE_BOARDS, settings.SNAPSHOT_SCHEDULE_CRONTAB = ["multi-lcb", "policon"], "30 4 * * 1"
    app = Celery("probe")
    app.conf.update(beat_schedule={})
    _schedule(app)
    entry = app.conf.beat_schedule[name]
    assert (entry["task"], entry["args"]) == ("workers.tasks.snapshot_boards", (["multi-lcb", "policon"],))
    assert entry["schedule"] == crontab(minute="30", hour="4", day_of_month="*", month_of_year="*", day_of_week="1")


def test_a_snapshots_page_shows_its_rows_a_page_at_a_time(client, multi_lcb, board, monkeypatch):
    """A board at scale froze a thousand rows: its snapshot's page shows them a page at a time (issue 47 point 4),
    in the frozen order (Alpha, Gamma, Beta); with two a page, the third row is on page 2."""
    from leaderboard.history import views

    monkeypatch.setattr(views, "SNAPSHOT_PAGE", 2)
    snapshot = snapshot_freeze(benchmark=multi_lcb, reason="paged")
    first = client.get(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/").content.decode()
    second = client.get(f"/benchmarks/multi-lcb/snapshots/{snapshot.pk}/?page=2").content.decode()
    shown = [re.findall(r'<th scope="row">(.*?)</th>', page) for page in (first, second)]
    assert shown == [["Alpha", "Gamma"], ["Beta"]]
    assert "3 rows frozen" in first and "rows 1–2 of 3, page 1 of 2" in first and "rows 3–3 of 3" in second
