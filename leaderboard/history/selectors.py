"""Reads of a board's history: its snapshots, its public changelog, and rank history (each model's rank
and headline over time, from the snapshots and the changelog). Private models never appear: changelog
entries are read only while written public and their model and runs' submissions are still public, and
rank history names only models that are public now. A snapshot's rows whose work is no longer public are
withheld from its page, API, downloads and rank history (``snapshots_withheld``): those with a takedown
record (``SnapshotWithholding``: its date and public reason) and, checked on every read as the board's
rows are, any whose run is gone or whose model or submission is private now. Each selector issues a
fixed number of queries."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import JSONField, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.http import HttpRequest
from django.urls import reverse

from leaderboard.accounts import policy
from leaderboard.catalog.bars import bar_share
from leaderboard.catalog.models import Benchmark, Model
from leaderboard.history import exports
from leaderboard.history.changelog import headline_of, headline_text
from leaderboard.history.models import ChangeKind, ChangelogEntry, Snapshot, SnapshotWithholding
from leaderboard.http import site_address
from leaderboard.runs.models import EvaluationRun

#: how many snapshots rank history reads per board (the latest ones)
HISTORY_SNAPSHOTS = 24
#: how many models the board's rank history follows (the best ranked in its latest snapshot)
HISTORY_MODELS = 6


def snapshots_of(*, benchmark: Benchmark) -> QuerySet[Snapshot]:
    """A board's snapshots, newest first, without their bytes."""
    return Snapshot.objects.filter(benchmark=benchmark).defer("csv_bytes", "json_bytes", "parquet_bytes", "rows")


def snapshot_latest(*, benchmark: Benchmark) -> Snapshot | None:
    return snapshots_of(benchmark=benchmark).defer("columns").first()


def snapshot_get(*, benchmark: Benchmark, snapshot_id: int, files: bool = True) -> Snapshot | None:
    """One snapshot of the board, with its downloads' stored bytes unless ``files`` is false (its page)."""
    found = Snapshot.objects.filter(benchmark=benchmark, pk=snapshot_id).select_related(
        "benchmark", "dataset_version", "corrects"
    )
    return (found if files else found.defer("csv_bytes", "json_bytes", "parquet_bytes")).first()


#: the public reason of a row withheld by the check on read alone (no takedown record: changed outside the services)
REASON_NOT_PUBLIC = "the work behind it is no longer public"


@dataclass(frozen=True)
class WithheldNote:
    """``rows`` rows withheld on ``on`` (None: no record of when) for ``reason``; public."""

    rows: int
    on: dt.date | None
    reason: str

    def __str__(self) -> str:
        when = f" on {self.on:%Y-%m-%d}" if self.on else ""
        return f"{self.rows} row{'s' if self.rows != 1 else ''} withheld{when}: {self.reason}"


@dataclass(frozen=True)
class Withheld:
    """The rows of one snapshot that are not shown (by run id) and the public notes saying why."""

    run_ids: frozenset[int] = frozenset()
    notes: tuple[WithheldNote, ...] = ()

    def shown(self, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [row for row in rows if row["run"] not in self.run_ids]


def snapshots_withheld(snapshots: Sequence[Snapshot]) -> dict[int, Withheld]:
    """Each snapshot's withheld rows (its rows must be loaded): its takedown records, and any row whose
    run is gone or whose model or submission is not public now. Two queries whatever the number."""
    run_ids = {row["run"] for snapshot in snapshots for row in snapshot.rows}
    public = set(
        EvaluationRun.objects.filter(
            pk__in=run_ids, submission__is_public=True, submission__model__is_public=True
        ).values_list("pk", flat=True)
    )
    records: dict[int, dict[int, SnapshotWithholding]] = {}
    for record in SnapshotWithholding.objects.filter(snapshot__in=[s.pk for s in snapshots]):
        records.setdefault(record.snapshot_id, {})[record.run_id] = record
    found = {}
    for snapshot in snapshots:
        recorded = records.get(snapshot.pk, {})
        withheld = [row["run"] for row in snapshot.rows if row["run"] in recorded or row["run"] not in public]
        if not withheld:
            found[snapshot.pk] = Withheld()
            continue
        notes = Counter(
            (recorded[run].at.astimezone(dt.UTC).date(), recorded[run].reason)
            if run in recorded
            else (None, REASON_NOT_PUBLIC)
            for run in withheld
        )
        found[snapshot.pk] = Withheld(
            frozenset(withheld),
            tuple(
                WithheldNote(count, on, reason)
                for (on, reason), count in sorted(notes.items(), key=lambda kv: (kv[0][0] or dt.date.min, kv[0][1]))
            ),
        )
    return found


def _rows_withheld(rows: list[tuple[int, int]]) -> set[tuple[int, int]]:
    """Of some frozen rows, (snapshot id, run id), those withheld by ``snapshots_withheld``'s rule (a takedown
    record, or the run gone or no longer public), without reading the snapshots' other rows. Two queries."""
    runs = {run for _, run in rows}
    public = set(
        EvaluationRun.objects.filter(
            pk__in=runs, submission__is_public=True, submission__model__is_public=True
        ).values_list("pk", flat=True)
    )
    recorded = set(
        SnapshotWithholding.objects.filter(snapshot__in={pk for pk, _ in rows}, run_id__in=runs).values_list(
            "snapshot_id", "run_id"
        )
    )
    return {(pk, run) for pk, run in rows if (pk, run) in recorded or run not in public}


#: a snapshot's rows of one model (by slug, frozen in each row), in the rows' order: (SQLite, PostgreSQL)
_ROWS_OF_MODEL = (
    "(SELECT json_group_array(json(value)) FROM json_each(history_snapshot.rows)"
    " WHERE json_extract(value, '$.model_slug') = %s)",
    "(SELECT jsonb_agg(r ORDER BY n) FROM jsonb_array_elements(history_snapshot.rows) WITH ORDINALITY AS t(r, n)"
    " WHERE r->>'model_slug' = %s)",
)


def snapshot_withheld(snapshot: Snapshot) -> Withheld:
    return snapshots_withheld([snapshot])[snapshot.pk]


@dataclass(frozen=True)
class Download:
    """A download as served: the stored bytes, or with rows withheld a redacted rendering (``redacted``);
    ``sha256`` is of the bytes served, ``stored_sha256`` of the bytes frozen (the snapshot's digest)."""

    data: bytes
    sha256: str
    stored_sha256: str
    withheld: Withheld

    @property
    def redacted(self) -> bool:
        return bool(self.withheld.run_ids)


def snapshot_download(*, snapshot: Snapshot, fmt: str) -> Download | None:
    """A download as it may be served now (None: no such format for this snapshot)."""
    stored = {
        "csv": (snapshot.csv_bytes, snapshot.csv_sha256),
        "json": (snapshot.json_bytes, snapshot.json_sha256),
        "parquet": (snapshot.parquet_bytes, snapshot.parquet_sha256),
    }
    found = stored.get(fmt)
    if found is None or found[0] is None:
        return None
    withheld = snapshot_withheld(snapshot)
    if not withheld.run_ids:
        return Download(bytes(found[0]), found[1], found[1], withheld)
    files = exports.redacted(
        bytes(snapshot.json_bytes),
        withheld.run_ids,
        [str(note) for note in withheld.notes],
        {name: digest for name, (data, digest) in stored.items() if data is not None},
    )
    if fmt not in files:  # a Parquet file needs pyarrow, no longer installed
        return None
    return Download(files[fmt], exports.sha256(files[fmt]), found[1], withheld)


def snapshot_url(snapshot: Snapshot, request: HttpRequest | None = None) -> str:
    """The snapshot's permanent address on this site."""
    return site_address(reverse("snapshot", args=[snapshot.benchmark.slug, snapshot.pk]), request)


@dataclass(frozen=True)
class Citation:
    key: str
    bibtex: str
    text: str


def snapshot_citation(snapshot: Snapshot, request: HttpRequest | None = None) -> Citation:
    """How to cite a snapshot: a BibTeX entry and the same in plain text, each with its permanent URL
    (``snapshot_url``), the dataset version behind it and the sha256 of its JSON download as frozen."""
    benchmark = snapshot.benchmark
    when = snapshot.frozen_at.astimezone(dt.UTC)
    key = f"{benchmark.slug.replace('-', '_')}_snapshot_{snapshot.pk}"
    url = snapshot_url(snapshot, request)
    dataset = snapshot.dataset_version.tag if snapshot.dataset_version else "none"
    title = f"{benchmark.name} leaderboard, snapshot {snapshot.pk} of {when:%Y-%m-%d}"
    bibtex = "\n".join(
        [
            f"@misc{{{key},",
            f"  title = {{{{{title}}}}},",
            f"  year = {{{when:%Y}}},",
            f"  month = {{{when:%b}}}".lower() + ",",
            f"  howpublished = {{\\url{{{url}}}}},",
            f"  note = {{Dataset version {dataset}; {len(snapshot.rows)} rows; JSON sha256 {snapshot.json_sha256}}}",
            "}",
        ]
    )
    text = (
        f"{title} (frozen {when:%Y-%m-%d %H:%M} UTC). {url}. Dataset version {dataset}; {len(snapshot.rows)} rows; "
        f"JSON sha256 {snapshot.json_sha256}."
    )
    return Citation(key, bibtex, text)


def _public_entries_q(user: Any) -> Q:
    """Entries written public about work that is still public (the model, and the submissions of the runs
    it names, checked on every read as the board's rows are); staff read every entry."""
    if policy.is_staff(user):
        return Q()
    return (
        Q(is_public=True)
        & (Q(model__isnull=True) | Q(model__is_public=True))
        & (Q(run__isnull=True) | Q(run__submission__is_public=True))
        & (Q(previous_run__isnull=True) | Q(previous_run__submission__is_public=True))
    )


def changelog_of(*, benchmark: Benchmark, user: Any = None, limit: int = 50) -> list[ChangelogEntry]:
    """A board's changelog, newest first, as ``user`` may read it."""
    return list(
        ChangelogEntry.objects.filter(_public_entries_q(user), benchmark=benchmark).select_related(
            "model", "dataset_version"
        )[:limit]
    )


@dataclass
class HistoryPoint:
    at: dt.datetime
    rank: int | None
    headline: list[float | int | None] | None
    headline_text: str
    source: str  # "snapshot #3" or the changelog's words
    snapshot: Snapshot | None = None


@dataclass
class BoardHistory:
    """One model's history on one board, oldest first, with its chart's bars (heights in %)."""

    benchmark: Benchmark
    points: list[HistoryPoint]
    bars: list[dict[str, Any]] = field(default_factory=list)


def model_rank_history(*, model: Model, user: Any = None) -> list[BoardHistory]:
    """A public model's rank and headline on each board over time: every snapshot it is in (rank and
    headline) and every public changelog entry with a new headline (rank unknown between snapshots)."""
    if not model.is_public:
        return []
    by_board: dict[int, BoardHistory] = {}
    # boards the model has been on (a row now, or a changelog entry); JSON containment is not portable to SQLite
    seen_on = set(model.entries.values_list("benchmark_id", flat=True)) | set(
        ChangelogEntry.objects.filter(model=model).values_list("benchmark_id", flat=True)
    )
    # of each snapshot only the model's rows, picked out by the database (a snapshot holds every row of its
    # board: a thousand on a board at scale, over every snapshot the boards ever froze)
    snapshots = list(
        Snapshot.objects.filter(benchmark_id__in=seen_on)
        .select_related("benchmark")
        .defer("csv_bytes", "json_bytes", "parquet_bytes", "rows")
        .annotate(own_rows=RawSQL(_ROWS_OF_MODEL[connection.vendor == "postgresql"], [model.slug], JSONField()))
        .order_by("frozen_at", "pk")
    )
    withheld = _rows_withheld([(snapshot.pk, row["run"]) for snapshot in snapshots for row in snapshot.own_rows or []])
    for snapshot in snapshots:
        row = next((r for r in snapshot.own_rows or [] if (snapshot.pk, r["run"]) not in withheld), None)
        if row is None:
            continue
        headline = headline_of(snapshot.benchmark, row["values"])
        by_board.setdefault(snapshot.benchmark_id, BoardHistory(snapshot.benchmark, [])).points.append(
            HistoryPoint(
                snapshot.frozen_at,
                row["rank"],
                headline,
                headline_text(snapshot.benchmark, headline),
                f"snapshot #{snapshot.pk}",
                snapshot,
            )
        )
    entries = (
        ChangelogEntry.objects.filter(
            _public_entries_q(user),
            model=model,
            headline__isnull=False,
            kind__in=[ChangeKind.MODEL_ADDED, ChangeKind.RUN_REPLACED, ChangeKind.MODEL_RETURNED],
        )
        .select_related("benchmark")
        .order_by("at", "pk")
    )
    for entry in entries:
        by_board.setdefault(entry.benchmark_id, BoardHistory(entry.benchmark, [])).points.append(
            HistoryPoint(entry.at, None, entry.headline, headline_text(entry.benchmark, entry.headline), entry.text)
        )
    boards = sorted(by_board.values(), key=lambda b: (b.benchmark.position, b.benchmark.name))
    for board in boards:
        board.points.sort(key=lambda p: p.at)
        board.bars = _bars(board)
    return boards


def _bars(board: BoardHistory) -> list[dict[str, Any]]:
    """One bar per point, taller for better (``bar_share``, as on the profile): a share against 100%, a
    number against the largest shown, a lower-is-better headline as the rest of its 0-100 scale."""
    metric = board.benchmark.primary_metric or {}
    values = [float(p.headline[0]) for p in board.points if p.headline and p.headline[0] is not None]
    largest = max([abs(v) for v in values] + [1e-9])
    return [
        {
            "height": round(100 * bar_share(metric, float(p.headline[0]), largest=largest), 1)
            if p.headline and p.headline[0] is not None
            else 0,
            "label": p.headline_text,
            "rank": p.rank,
            "at": p.at,
        }
        for p in board.points
    ]


@dataclass
class BoardRankHistory:
    """The board's best models' ranks across its latest snapshots (oldest first): a table and an SVG."""

    snapshots: list[Snapshot]
    models: list[dict[str, Any]]  # {name, slug, ranks: [rank | None per snapshot], texts: [...], points: "x,y ..."}
    width: int = 0
    height: int = 0
    max_rank: int = 1


def board_rank_history(*, benchmark: Benchmark) -> BoardRankHistory | None:
    """Rank over the board's latest snapshots of the models best ranked in the latest one, public models
    only, each snapshot's withheld rows left out (None: fewer than one snapshot). Four queries."""
    snapshots = list(
        Snapshot.objects.filter(benchmark=benchmark)
        .defer("csv_bytes", "json_bytes", "parquet_bytes")
        .order_by("-frozen_at", "-pk")[:HISTORY_SNAPSHOTS]
    )[::-1]
    if not snapshots:
        return None
    withheld = snapshots_withheld(snapshots)
    shown = {snapshot.pk: withheld[snapshot.pk].shown(snapshot.rows) for snapshot in snapshots}
    latest = [r for r in shown[snapshots[-1].pk] if r["rank"] is not None]
    latest.sort(key=lambda r: (r["rank"], r["model"]))
    slugs = [r["model_slug"] for r in latest]
    public = set(Model.objects.filter(slug__in=slugs, is_public=True).values_list("slug", flat=True))
    chosen = [r for r in latest if r["model_slug"] in public][:HISTORY_MODELS]
    step, top = 60, 20
    max_rank = max([r["rank"] for rows in shown.values() for r in rows if r["rank"] is not None] + [1])
    height = top * 2 + 24 * max(max_rank - 1, 1)
    models = []
    for row in chosen:
        ranks: list[int | None] = []
        texts: list[str] = []
        for snapshot in snapshots:
            found = next((r for r in shown[snapshot.pk] if r["model_slug"] == row["model_slug"]), None)
            ranks.append(found["rank"] if found else None)
            texts.append(headline_text(benchmark, headline_of(benchmark, found["values"])) if found else "")
        points = " ".join(
            f"{40 + i * step},{top + 24 * (rank - 1)}" for i, rank in enumerate(ranks) if rank is not None
        )
        models.append(
            {
                "name": row["model"],
                "slug": row["model_slug"],
                "cells": list(zip(ranks, texts)),
                "points": points,
                "dots": [
                    {"x": 40 + i * step, "y": top + 24 * (rank - 1), "rank": rank}
                    for i, rank in enumerate(ranks)
                    if rank is not None
                ],
            }
        )
    return BoardRankHistory(snapshots, models, 80 + step * max(len(snapshots) - 1, 1), height, max_rank)
