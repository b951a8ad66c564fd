"""Admin for snapshots, their withheld rows and the changelog. A snapshot is added through its form (the
board, a reason, the snapshot it corrects) or the benchmarks' action "Freeze a snapshot", both through
``snapshot_freeze``; a row is withheld by moderation through its form (the snapshot, the row's run, a
public reason) and ``snapshot_row_withhold``. Stored snapshots, withholdings and changelog entries are
read-only and cannot be deleted. Text these write is public and never names the staff member."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils import timezone

from leaderboard.catalog.models import Benchmark
from leaderboard.history.models import ChangelogEntry, Snapshot, SnapshotWithholding
from leaderboard.history.services import SnapshotRefused, public_text_refusal, snapshot_freeze, snapshot_row_withhold


class SnapshotForm(forms.ModelForm):
    class Meta:
        model = Snapshot
        fields = ["benchmark", "reason", "corrects"]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        corrects, benchmark = data.get("corrects"), data.get("benchmark")
        if corrects is not None and benchmark is not None and corrects.benchmark_id != benchmark.pk:
            self.add_error("corrects", f"snapshot #{corrects.pk} is of another board ({corrects.benchmark.slug})")
        if (refusal := public_text_refusal(data.get("reason") or "")) is not None:
            self.add_error("reason", refusal)
        return data


@admin.register(Snapshot)
class SnapshotAdmin(admin.ModelAdmin):
    list_display = ["pk", "benchmark", "frozen_at", "reason", "corrects", "dataset_version", "json_sha256"]
    list_filter = ["benchmark"]
    readonly_fields = [
        "benchmark",
        "dataset_version",
        "frozen_at",
        "created_by",
        "reason",
        "corrects",
        "csv_sha256",
        "json_sha256",
        "parquet_sha256",
    ]
    exclude = ["columns", "rows", "csv_bytes", "json_bytes", "parquet_bytes"]
    form = SnapshotForm

    def get_readonly_fields(self, request: HttpRequest, obj: Snapshot | None = None) -> list[str]:
        return self.readonly_fields if obj is not None else []

    def get_exclude(self, request: HttpRequest, obj: Snapshot | None = None) -> list[str]:
        return (
            self.exclude
            if obj is not None
            else [f.name for f in Snapshot._meta.fields if f.name not in SnapshotForm.Meta.fields]
        )

    def has_change_permission(self, request: HttpRequest, obj: Snapshot | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Snapshot | None = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: Snapshot, form: Any, change: bool) -> None:
        frozen = snapshot_freeze(benchmark=obj.benchmark, reason=obj.reason, user=request.user, corrects=obj.corrects)  # type: ignore[arg-type]
        obj.pk, obj._state.adding = frozen.pk, False


class WithholdingForm(forms.ModelForm):
    class Meta:
        model = SnapshotWithholding
        fields = ["snapshot", "run_id", "reason"]
        labels = {"run_id": "Run", "reason": "Public reason"}
        help_texts = {
            "run_id": "The run id of the row to withhold, as the snapshot names it.",
            "reason": 'Shown to everyone: "1 row withheld on <date>: <reason>". One line; never name a person.',
        }

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        snapshot, run_id = data.get("snapshot"), data.get("run_id")
        if snapshot is not None and run_id is not None and not any(row["run"] == run_id for row in snapshot.rows):
            self.add_error("run_id", f"run #{run_id} has no row in snapshot #{snapshot.pk}")
        if (refusal := public_text_refusal(data.get("reason") or "")) is not None:
            self.add_error("reason", refusal)
        return data


@admin.register(SnapshotWithholding)
class SnapshotWithholdingAdmin(admin.ModelAdmin):
    list_display = ["snapshot", "run_id", "cause", "reason", "at", "created_by"]
    list_filter = ["cause"]
    form = WithholdingForm

    def has_change_permission(self, request: HttpRequest, obj: SnapshotWithholding | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: SnapshotWithholding | None = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: SnapshotWithholding, form: Any, change: bool) -> None:
        try:
            saved = snapshot_row_withhold(
                snapshot=obj.snapshot,
                run_id=obj.run_id,
                reason=obj.reason,
                user=request.user,  # type: ignore[arg-type]
            )
        except SnapshotRefused as exc:  # the form checked the same; only a race gets here
            raise forms.ValidationError(str(exc)) from exc
        obj.pk, obj._state.adding = saved.pk, False


@admin.register(ChangelogEntry)
class ChangelogEntryAdmin(admin.ModelAdmin):
    list_display = ["at", "benchmark", "kind", "text", "is_public"]
    list_filter = ["benchmark", "kind", "is_public"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: ChangelogEntry | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: ChangelogEntry | None = None) -> bool:
        return False


@admin.action(description="Freeze a snapshot of the selected boards")
def freeze_snapshots(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Benchmark]) -> None:
    for benchmark in queryset:
        try:
            # public text: who froze it is kept (created_by) but never published
            snapshot = snapshot_freeze(
                benchmark=benchmark,
                reason=f"snapshot of {timezone.now():%Y-%m-%d}, frozen on request",
                user=request.user,  # type: ignore[arg-type]
            )
        except SnapshotRefused as exc:
            modeladmin.message_user(request, f"{benchmark.slug}: {exc}", messages.ERROR)
        else:
            rows = len(snapshot.rows)
            modeladmin.message_user(
                request, f"Snapshot #{snapshot.pk} of {benchmark.slug} frozen ({rows} row{'s' if rows != 1 else ''})"
            )


_benchmarks = admin.site.get_model_admin(Benchmark)
_benchmarks.actions = [*(_benchmarks.actions or []), freeze_snapshots]
