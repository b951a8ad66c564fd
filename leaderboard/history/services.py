"""Freezing a board: ``snapshot_freeze`` reads the live board through the leaderboard selector (as a
visitor sees it: public rows only, ranked by the board's rule), records every row with its values on
every slice and what produced it (dataset version tag and content hash, evaluator version, judge and
its prompt version), and stores the bytes of its downloads (CSV, JSON, Parquet) with their sha256, so
what a citation points at never moves. ``snapshot_row_withhold`` takes a frozen row down by moderation
(a record beside the snapshot, which itself never changes). Public text written here (a snapshot's
reason, a withholding's reason) never names a staff member: ``public_text_refusal``."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from leaderboard import pagecache
from leaderboard.boards import selectors
from leaderboard.catalog.models import Benchmark
from leaderboard.history import exports
from leaderboard.history.changelog import changelog_snapshot
from leaderboard.history.models import Snapshot, SnapshotWithholding, WithholdingCause
from leaderboard.runs.models import LeaderboardEntry

#: every row on one page: a snapshot is the whole board
_ALL_ROWS = 1_000_000


class SnapshotRefused(ValueError):
    """A snapshot that cannot be frozen; ``field`` names the input at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


def public_text_refusal(text: str) -> str | None:
    """Why ``text`` may not be published (None: it may): it names a staff member (a username, first or
    last name, or full name of an active staff account, as a whole word, any case)."""
    names: set[str] = set()
    for username, first, last in User.objects.filter(
        Q(is_staff=True) | Q(is_superuser=True), is_active=True
    ).values_list("username", "first_name", "last_name"):
        names |= {username, first, last, f"{first} {last}".strip()}
    for name in sorted(n for n in names if len(n.strip()) >= 2):
        if re.search(rf"(?<!\w){re.escape(name.strip())}(?!\w)", text, flags=re.IGNORECASE):
            return f"names a staff member ('{name.strip()}'); public text must not name staff"
    return None


def _public_reason(reason: str, *, limit: int, what: str) -> str:
    """A reason fit to publish, stripped; raises SnapshotRefused("reason", ...)."""
    reason = reason.strip()
    if not reason:
        raise SnapshotRefused("reason", f"must not be empty; say why {what}")
    if len(reason) > limit:
        raise SnapshotRefused("reason", f"{len(reason):,} characters is over the limit of {limit:,}")
    if (refusal := public_text_refusal(reason)) is not None:
        raise SnapshotRefused("reason", refusal)
    return reason


def _frozen_rows(board: selectors.Leaderboard) -> list[dict[str, Any]]:
    """The board's rows as plain data, each with the values of every column and slice its run has."""
    dataset = board.dataset
    values = dict(
        LeaderboardEntry.objects.filter(
            benchmark=board.benchmark,
            dataset_version=dataset,
            is_public=True,
            run_id__in=[row.run.pk for row in board.rows],
        ).values_list("run_id", "values")
    )
    rows = []
    for row in board.rows:
        judge = (row.run.environment or {}).get("judge")
        judge = judge if isinstance(judge, dict) else {}
        rows.append(
            {
                "rank": row.rank,
                "unranked_reason": row.unranked_reason,
                "is_reference": row.is_reference,
                "model": row.model.name,
                "model_slug": row.model.slug,
                "run": row.run.pk,
                "submission": row.run.submission_id,
                "values": values.get(row.run.pk, {}),
                "dataset_version": dataset.tag if dataset else "",
                "dataset_sha256": dataset.content_hash if dataset else "",
                "evaluator_version": row.run.evaluator_version,
                "judge": str(judge.get("label", "")),
                "judge_prompt_version": str(judge.get("prompt_version", "")),
                "flags": list(row.flags),
            }
        )
    return rows


def snapshot_freeze(
    *, benchmark: Benchmark, reason: str, user: User | None = None, corrects: Snapshot | None = None
) -> Snapshot:
    """Freeze the board now. ``corrects`` names an earlier snapshot of the same board this one corrects
    (its reason says what was wrong). Raises SnapshotRefused naming the field."""
    reason = _public_reason(reason, limit=2000, what="the board is frozen (a release, a paper, a correction)")
    if not benchmark.evaluator_key:
        raise SnapshotRefused("benchmark", f"'{benchmark.slug}' has no scored leaderboard to freeze")
    if corrects is not None and corrects.benchmark_id != benchmark.pk:
        raise SnapshotRefused("corrects", f"snapshot #{corrects.pk} is of another board ({corrects.benchmark.slug})")
    with transaction.atomic():
        board = selectors.leaderboard(benchmark=benchmark, user=AnonymousUser(), page_size=_ALL_ROWS)
        columns = [
            {
                "id": c["id"],
                "label": c["label"],
                "higher_is_better": bool(c["higher_is_better"]),
                "format": c.get("format", "percent"),
                "per_slice": bool(c.get("per_slice")),
            }
            for c in board.columns
        ]
        rows = _frozen_rows(board)
        frozen_at = timezone.now()
        header = {
            "benchmark": benchmark.slug,
            "benchmark_name": benchmark.name,
            "frozen_at": frozen_at.isoformat(),
            "reason": reason,
            "corrects": corrects.pk if corrects else None,
            "dataset_version": board.dataset.tag if board.dataset else None,
            "dataset_sha256": board.dataset.content_hash if board.dataset else None,
        }
        files = exports.render(header, columns, rows)
        snapshot = Snapshot.objects.create(
            benchmark=benchmark,
            dataset_version=board.dataset,
            frozen_at=frozen_at,
            created_by=user,
            reason=reason,
            corrects=corrects,
            columns=columns,
            rows=rows,
            csv_bytes=files["csv"],
            csv_sha256=exports.sha256(files["csv"]),
            json_bytes=files["json"],
            json_sha256=exports.sha256(files["json"]),
            parquet_bytes=files.get("parquet"),
            parquet_sha256=exports.sha256(files["parquet"]) if "parquet" in files else "",
        )
        changelog_snapshot(snapshot=snapshot)
        pagecache.boards_changed()
    return snapshot


def snapshot_row_withhold(*, snapshot: Snapshot, run_id: int, reason: str, user: User) -> SnapshotWithholding:
    """Take the frozen row of run ``run_id`` off the snapshot's page, API and downloads by moderation,
    with a public ``reason`` (one line, naming no staff member); it stays withheld whatever happens to
    the run. Raises SnapshotRefused naming the field."""
    reason = _public_reason(reason, limit=300, what="the row is withheld (the public reads it)")
    if "\n" in reason or "\r" in reason:
        raise SnapshotRefused("reason", "must be one line")
    if not any(row["run"] == run_id for row in snapshot.rows):
        raise SnapshotRefused("run_id", f"run #{run_id} has no row in snapshot #{snapshot.pk}")
    with transaction.atomic():
        found = SnapshotWithholding.objects.select_for_update().filter(snapshot=snapshot, run_id=run_id).first()
        if found is not None and found.cause == WithholdingCause.MODERATED:
            raise SnapshotRefused(
                "run_id", f"the row of run #{run_id} is withheld from snapshot #{snapshot.pk} by moderation already"
            )
        # a row withheld as made private becomes a moderated one: it stays withheld if the work is public again
        found = found or SnapshotWithholding(snapshot=snapshot, run_id=run_id)
        found.cause, found.reason, found.at, found.created_by = WithholdingCause.MODERATED, reason, timezone.now(), user
        found.save()
        pagecache.boards_changed()
        return found


def snapshots_freeze_scheduled(*, slugs: list[str]) -> list[Snapshot]:
    """The schedule's snapshots (``settings.SNAPSHOT_SCHEDULE``): one per named board that has a dataset."""
    frozen = []
    for benchmark in Benchmark.objects.filter(slug__in=slugs).exclude(evaluator_key=""):
        if benchmark.dataset_versions.filter(is_current=True).exists():
            frozen.append(
                snapshot_freeze(benchmark=benchmark, reason=f"scheduled snapshot of {timezone.now():%Y-%m-%d}")
            )
    return frozen
