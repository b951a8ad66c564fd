"""Freezing a board: ``snapshot_freeze`` reads the live board through the leaderboard selector (as a
visitor sees it: public rows only, ranked by the board's rule), records every row with its values on
every slice and what produced it (dataset version tag and content hash, evaluator version, judge and
its prompt version), and stores the bytes of its downloads (CSV, JSON, Parquet) with their sha256, so
what a citation points at never moves."""
from __future__ import annotations

import hashlib
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.utils import timezone

from leaderboard.catalog.models import Benchmark
from leaderboard.history import exports
from leaderboard.history.changelog import changelog_snapshot
from leaderboard.history.models import Snapshot
from leaderboard.submissions import selectors
from leaderboard.submissions.models import LeaderboardEntry

#: every row on one page: a snapshot is the whole board
_ALL_ROWS = 1_000_000


class SnapshotRefused(ValueError):
    """A snapshot that cannot be frozen; ``field`` names the input at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def _frozen_rows(board: selectors.Leaderboard) -> list[dict[str, Any]]:
    """The board's rows as plain data, each with the values of every column and slice its run has."""
    dataset = board.dataset
    values = dict(LeaderboardEntry.objects.filter(benchmark=board.benchmark, dataset_version=dataset, is_public=True,
                                                  run_id__in=[row.run.pk for row in board.rows]).values_list("run_id", "values"))
    rows = []
    for row in board.rows:
        judge = (row.run.environment or {}).get("judge")
        judge = judge if isinstance(judge, dict) else {}
        rows.append({
            "rank": row.rank, "unranked_reason": row.unranked_reason, "is_reference": row.is_reference,
            "model": row.model.name, "model_slug": row.model.slug, "run": row.run.pk, "submission": row.run.submission_id,
            "values": values.get(row.run.pk, {}),
            "dataset_version": dataset.tag if dataset else "", "dataset_sha256": dataset.content_hash if dataset else "",
            "evaluator_version": row.run.evaluator_version, "judge": str(judge.get("label", "")),
            "judge_prompt_version": str(judge.get("prompt_version", "")), "flags": list(row.flags),
        })
    return rows


def snapshot_freeze(*, benchmark: Benchmark, reason: str, user: User | None = None, corrects: Snapshot | None = None) -> Snapshot:
    """Freeze the board now. ``corrects`` names an earlier snapshot of the same board this one corrects
    (its reason says what was wrong). Raises SnapshotRefused naming the field."""
    reason = reason.strip()
    if not reason:
        raise SnapshotRefused("reason", "must not be empty; say why the board is frozen (a release, a paper, a correction)")
    if len(reason) > 2000:
        raise SnapshotRefused("reason", f"{len(reason):,} characters is over the limit of 2,000")
    if not benchmark.evaluator_key:
        raise SnapshotRefused("benchmark", f"'{benchmark.slug}' has no scored leaderboard to freeze")
    if corrects is not None and corrects.benchmark_id != benchmark.pk:
        raise SnapshotRefused("corrects", f"snapshot #{corrects.pk} is of another board ({corrects.benchmark.slug})")
    with transaction.atomic():
        board = selectors.leaderboard(benchmark=benchmark, user=AnonymousUser(), page_size=_ALL_ROWS)
        columns = [{"id": c["id"], "label": c["label"], "higher_is_better": bool(c["higher_is_better"]),
                    "format": c.get("format", "percent"), "per_slice": bool(c.get("per_slice"))} for c in board.columns]
        rows = _frozen_rows(board)
        frozen_at = timezone.now()
        header = {"benchmark": benchmark.slug, "benchmark_name": benchmark.name, "frozen_at": frozen_at.isoformat(),
                  "reason": reason, "corrects": corrects.pk if corrects else None,
                  "dataset_version": board.dataset.tag if board.dataset else None,
                  "dataset_sha256": board.dataset.content_hash if board.dataset else None}
        files = exports.render(header, columns, rows)
        snapshot = Snapshot.objects.create(
            benchmark=benchmark, dataset_version=board.dataset, frozen_at=frozen_at, created_by=user, reason=reason,
            corrects=corrects, columns=columns, rows=rows,
            csv_bytes=files["csv"], csv_sha256=_sha256(files["csv"]), json_bytes=files["json"], json_sha256=_sha256(files["json"]),
            parquet_bytes=files.get("parquet"), parquet_sha256=_sha256(files["parquet"]) if "parquet" in files else "")
        changelog_snapshot(snapshot=snapshot)
    return snapshot


def snapshots_freeze_scheduled(*, slugs: list[str]) -> list[Snapshot]:
    """The schedule's snapshots (``settings.SNAPSHOT_SCHEDULE``): one per named board that has a dataset."""
    frozen = []
    for benchmark in Benchmark.objects.filter(slug__in=slugs).exclude(evaluator_key=""):
        if benchmark.dataset_versions.filter(is_current=True).exists():
            frozen.append(snapshot_freeze(benchmark=benchmark, reason=f"scheduled snapshot of {timezone.now():%Y-%m-%d}"))
    return frozen


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
