"""Admin for submissions and runs: filter by status and failure kind, see progress and logs, and
cancel or re-queue from the list. An edit or a delete changes what the boards show (``ChangesBoardsAdmin``)."""

from django.contrib import admin, messages

from leaderboard.pagecache_admin import ChangesBoardsAdmin
from leaderboard.runs import services
from leaderboard.runs.models import EvaluationRun, GenerationJob, ItemResult, QuotaUsage, Score, Submission


class RunInline(admin.TabularInline):
    model = EvaluationRun
    fields = readonly_fields = (
        "benchmark",
        "status",
        "failure_kind",
        "attempt",
        "items_done",
        "items_total",
        "finished_at",
    )
    extra = 0
    show_change_link = True
    can_delete = False


@admin.register(Submission)
class SubmissionAdmin(ChangesBoardsAdmin):
    list_display = ["id", "model", "owner", "is_public", "predictions_count", "created_at"]
    list_filter = ["is_public"]
    search_fields = ["model__name", "owner__username"]
    readonly_fields = ["predictions_key", "predictions_sha256", "predictions_count", "created_at"]
    inlines = [RunInline]


class ScoreInline(admin.TabularInline):
    model = Score
    fields = readonly_fields = ("key", "slice_key", "value", "ci_low", "ci_high", "n")
    extra = 0
    can_delete = False


@admin.action(description="Cancel the selected runs")
def cancel_runs(modeladmin, request, queryset):
    done = sum(services.run_cancel(run=run, user=request.user) for run in queryset)
    messages.info(request, f"{done} run(s) cancelled.")


@admin.action(description="Re-run the selected finished runs")
def rerun_runs(modeladmin, request, queryset):
    for run in queryset:
        try:
            services.run_rerun(run=run, user=request.user)
        except services.SubmissionRefused as exc:
            messages.warning(request, f"run {run.pk}: {exc}")


@admin.register(EvaluationRun)
class EvaluationRunAdmin(ChangesBoardsAdmin):
    list_display = [
        "id",
        "benchmark",
        "submission",
        "status",
        "failure_kind",
        "attempt",
        "items_done",
        "items_total",
        "worker",
        "heartbeat_at",
        "created_at",
    ]
    list_filter = ["status", "failure_kind", "benchmark", "queue"]
    search_fields = ["submission__model__name", "worker", "failure_message"]
    readonly_fields = [f.name for f in EvaluationRun._meta.fields]
    actions = [cancel_runs, rerun_runs]
    inlines = [ScoreInline]


@admin.register(ItemResult)
class ItemResultAdmin(admin.ModelAdmin):
    list_display = ["run", "item_id", "primary_score", "error"]
    list_filter = ["run__benchmark"]
    search_fields = ["item_id"]
    readonly_fields = ["run", "item_id", "slices", "scores", "detail", "error", "primary_score"]


@admin.register(QuotaUsage)
class QuotaUsageAdmin(admin.ModelAdmin):
    list_display = ["user", "day", "used"]
    list_filter = ["day"]


@admin.register(GenerationJob)
class GenerationJobAdmin(admin.ModelAdmin):
    """One model load per submission: status, progress in requests, environment and log."""

    list_display = [
        "id",
        "submission",
        "queue",
        "status",
        "failure_kind",
        "attempt",
        "requests_done",
        "requests_total",
        "worker",
        "finished_at",
    ]
    list_filter = ["status", "failure_kind", "queue"]
    readonly_fields = [
        "submission",
        "lease_token",
        "lease_expires_at",
        "heartbeat_at",
        "worker",
        "requests_done",
        "requests_total",
        "environment",
        "log",
        "queued_at",
        "started_at",
        "finished_at",
    ]
