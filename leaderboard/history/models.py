"""Snapshot (a board frozen with the bytes of its downloads), SnapshotWithholding (a frozen row no longer
shown: its work was made private or deleted, or staff removed it) and ChangelogEntry (what changed on a
board, written by the services that change it). A snapshot is never edited: saving an existing row is
refused, a correction is a new snapshot that names the one it corrects, and a takedown is a withholding
beside it. Rules live in services.py and withholding.py; reads in selectors.py."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.runs.models import EvaluationRun


class SnapshotImmutable(Exception):
    """Raised on an attempt to change a stored snapshot."""


class Snapshot(models.Model):
    benchmark = models.ForeignKey(Benchmark, on_delete=models.PROTECT, related_name="snapshots")
    dataset_version = models.ForeignKey(
        DatasetVersion,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="snapshots",
        help_text="The board's current dataset version when it was frozen (empty: none yet).",
    )
    frozen_at = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The staff member who froze it (empty: the schedule).",
    )
    reason = models.TextField(help_text="Why it was frozen (a release, a paper, a correction).")
    corrects = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="corrections",
        help_text="The snapshot this one corrects, if any.",
    )
    columns = models.JSONField(default=list, help_text="The board's columns: [{id, label, higher_is_better, format}]")
    rows = models.JSONField(default=list, help_text="Every public row: rank, model, values, and what produced them.")
    csv_bytes = models.BinaryField()
    csv_sha256 = models.CharField(max_length=64)
    json_bytes = models.BinaryField()
    json_sha256 = models.CharField(max_length=64)
    parquet_bytes = models.BinaryField(null=True, blank=True)
    parquet_sha256 = models.CharField(max_length=64, blank=True)

    class Meta:
        ordering = ["-frozen_at", "-pk"]
        indexes = [models.Index(fields=["benchmark", "-frozen_at"])]

    def __str__(self) -> str:
        return f"{self.benchmark.slug} snapshot #{self.pk}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.pk is not None and not self._state.adding:
            raise SnapshotImmutable(
                f"snapshot #{self.pk} is frozen; a correction is a new snapshot that names it in 'corrects'"
            )
        super().save(*args, **kwargs)


class WithholdingCause(models.TextChoices):
    MADE_PRIVATE = "made_private", "Made private"
    DELETED = "deleted", "Deleted"
    MODERATED = "moderated", "Removed by moderation"


class SnapshotWithholding(models.Model):
    """One frozen row of a snapshot that is no longer shown on its page, API or downloads (the stored
    bytes and their sha256 stay as frozen). ``reason`` and ``at`` are public ("1 row withheld on <date>:
    <reason>"); ``created_by`` (the staff member who removed it) is not. A row made private is shown
    again, and this record deleted, when its work is public again; a moderated one stays withheld."""

    snapshot = models.ForeignKey(Snapshot, on_delete=models.PROTECT, related_name="withholdings")
    run_id = models.PositiveBigIntegerField(
        help_text="The row's run, as frozen in the snapshot (the run itself may be gone)."
    )
    cause = models.CharField(max_length=20, choices=WithholdingCause.choices)
    reason = models.CharField(max_length=300, help_text="Public: why the row is withheld; never names a person.")
    at = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The staff member who removed it (empty: the site, on a visibility change).",
    )

    class Meta:
        ordering = ["snapshot", "at", "pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["snapshot", "run_id"],
                name="snapshot_withholding_one_per_row",
                violation_error_message="This row is withheld from this snapshot already.",
            )
        ]

    def __str__(self) -> str:
        return f"snapshot #{self.snapshot_id}, run #{self.run_id} withheld: {self.reason}"


class ChangeKind(models.TextChoices):
    MODEL_ADDED = "model_added", "Model added"
    MODEL_RETURNED = "model_returned", "Model back on the board"
    RUN_REPLACED = "run_replaced", "Run replaced"
    MODEL_RETIRED = "model_retired", "Model retired"
    MODEL_HIDDEN = "model_hidden", "Model hidden"
    DATASET_ADDED = "dataset_added", "Dataset version added"
    DATASET_CURRENT = "dataset_current", "Dataset version made current"
    EVALUATOR_CHANGED = "evaluator_changed", "Evaluator version changed"
    JUDGE_CHANGED = "judge_changed", "Judge changed"
    SNAPSHOT = "snapshot", "Snapshot frozen"


class ChangelogEntry(models.Model):
    """One change to a board. ``is_public`` is false for changes only staff may read (a model made
    private); readers also check the model's own flag, so a model hidden later takes its entries along."""

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="changelog")
    kind = models.CharField(max_length=20, choices=ChangeKind.choices)
    at = models.DateTimeField(db_index=True)
    text = models.TextField(help_text="The change in words, as shown on the board.")
    model = models.ForeignKey(Model, null=True, blank=True, on_delete=models.CASCADE, related_name="changelog")
    dataset_version = models.ForeignKey(
        DatasetVersion, null=True, blank=True, on_delete=models.CASCADE, related_name="changelog"
    )
    run = models.ForeignKey(EvaluationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    previous_run = models.ForeignKey(EvaluationRun, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    headline = models.JSONField(
        null=True, blank=True, help_text="The row's new headline [value, ci_low, ci_high, n], if any."
    )
    previous_headline = models.JSONField(null=True, blank=True, help_text="The headline it replaced, if any.")
    snapshot = models.ForeignKey(Snapshot, null=True, blank=True, on_delete=models.CASCADE, related_name="+")
    is_public = models.BooleanField(default=True)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["benchmark", "-at"])]
        verbose_name_plural = "changelog entries"

    def __str__(self) -> str:
        return f"{self.benchmark.slug} {self.at:%Y-%m-%d}: {self.text}"
