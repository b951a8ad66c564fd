"""Submission, EvaluationRun, ItemResult, Score and QuotaUsage rows, and the generation jobs' GenerationJob and
GeneratedOutput. Rules live in the services package; a generation job's in generation/jobs.py."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from leaderboard.catalog.models import Benchmark, DatasetVersion, Model


class Submission(models.Model):
    model = models.ForeignKey(Model, on_delete=models.CASCADE, related_name="submissions")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    is_public = models.BooleanField(default=True)
    predictions_key = models.CharField(max_length=300, blank=True, help_text="Predictions file in storage, if any.")
    predictions_sha256 = models.CharField(max_length=64, blank=True)
    predictions_count = models.PositiveIntegerField(default=0)
    generation_settings = models.JSONField(default=dict, blank=True)
    note = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"#{self.pk} {self.model}"


class RunStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


class FailureKind(models.TextChoices):
    INVALID_INPUT = "invalid_input", "Invalid input"
    MODEL_LOAD = "model_load", "Model failed to load"
    OUT_OF_MEMORY = "out_of_memory", "Out of memory"
    TIMEOUT = "timeout", "Timed out"
    ENDPOINT_ERROR = "endpoint_error", "Endpoint error"
    EVALUATOR_ERROR = "evaluator_error", "Evaluator error"
    INFRASTRUCTURE = "infrastructure", "Infrastructure"


#: failures that are the platform's fault: they do not use up the submitter's daily quota
PLATFORM_FAILURES = {FailureKind.EVALUATOR_ERROR, FailureKind.INFRASTRUCTURE}
FINISHED = {RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED}


class RunPhase(models.TextChoices):
    """Where a queued/running run is: "" for a run scored from a predictions file; a run whose model
    must answer first is "generating" (its submission's GenerationJob owns it), then "scoring"."""

    NONE = "", "-"
    GENERATING = "generating", "Generating"
    SCORING = "scoring", "Scoring"


class LeasedWork(models.Model):
    """What a run and a generation job share: a status, a classified failure, and a lease (token,
    expiry, heartbeat, worker) that a worker claims with a compare-and-set and keeps alive, so a
    redelivered message does nothing and a dead worker's work is re-queued up to ``max_attempts``."""

    status = models.CharField(max_length=10, choices=RunStatus.choices, default=RunStatus.QUEUED, db_index=True)
    failure_kind = models.CharField(max_length=20, choices=FailureKind.choices, blank=True)
    failure_message = models.TextField(blank=True)
    attempt = models.PositiveSmallIntegerField(default=0)
    max_attempts = models.PositiveSmallIntegerField(default=3)
    lease_token = models.UUIDField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True, db_index=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True)
    environment = models.JSONField(default=dict, blank=True, help_text="Versions and settings the results depend on.")
    log = models.TextField(blank=True)
    queued_at = models.DateTimeField(default=timezone.now, help_text="When its message was last sent to the queue.")
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED


class EvaluationRun(LeasedWork):
    submission = models.ForeignKey(Submission, on_delete=models.CASCADE, related_name="runs")
    benchmark = models.ForeignKey(Benchmark, on_delete=models.PROTECT, related_name="runs")
    dataset_version = models.ForeignKey(DatasetVersion, on_delete=models.PROTECT, related_name="runs")
    queue = models.CharField(max_length=40, default="cpu")
    items_total = models.PositiveIntegerField(default=0)
    items_done = models.PositiveIntegerField(default=0)
    evaluator_key = models.CharField(max_length=60)
    evaluator_version = models.CharField(max_length=64, blank=True)
    evaluator_settings = models.JSONField(default=dict, blank=True)
    phase = models.CharField(max_length=12, choices=RunPhase.choices, default=RunPhase.NONE, blank=True)
    predictions_key = models.CharField(
        max_length=300, blank=True, help_text="Generated predictions in storage; '' = the submission's file."
    )
    quota_charged = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    progress_started_at = models.DateTimeField(
        null=True, blank=True, help_text="Start of the current attempt, for the rate."
    )
    progress_started_done = models.PositiveIntegerField(default=0)
    rerun_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="reruns")
    cost = models.JSONField(
        default=dict, blank=True, help_text="What the run cost, recorded when it succeeded (submissions.costs)."
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["benchmark", "status", "dataset_version"])]

    def __str__(self) -> str:
        return f"run #{self.pk} {self.benchmark.slug} ({self.status})"


class ItemResult(models.Model):
    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="item_results")
    item_id = models.CharField(max_length=200)
    slices = models.JSONField(default=dict)
    scores = models.JSONField(default=dict)
    detail = models.JSONField(default=dict)
    error = models.TextField(blank=True)
    primary_score = models.FloatField(
        null=True, help_text="The benchmark's primary per-item score, for sorting and filters."
    )
    passed = models.BooleanField(
        null=True,
        help_text="Full marks (Evaluator.item_passed), for the failed-only filter; null: "
        "the benchmark has none, or the result was stored before it was recorded.",
    )

    class Meta:
        ordering = ["item_id"]
        constraints = [models.UniqueConstraint(fields=["run", "item_id"], name="one_result_per_item")]


class Score(models.Model):
    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="scores")
    key = models.CharField(max_length=60)
    slice_key = models.CharField(max_length=200, blank=True, help_text="'' for the headline, else 'dim=value'.")
    value = models.FloatField()
    ci_low = models.FloatField(null=True)
    ci_high = models.FloatField(null=True)
    n = models.PositiveIntegerField()

    class Meta:
        ordering = ["key", "slice_key"]
        constraints = [models.UniqueConstraint(fields=["run", "key", "slice_key"], name="one_score_per_metric")]
        indexes = [models.Index(fields=["key", "slice_key"])]


class QuotaUsage(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="quota_usage")
    day = models.DateField()
    used = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "day"], name="one_quota_row_per_day")]


class LeaderboardEntry(models.Model):
    """One row of a leaderboard, kept up to date when a run succeeds: the latest succeeded run of a
    model on a dataset version (one public row, and one private row per submitter, ``owner``, seen
    by that submitter and staff), with every score of that run. Pages read these instead of scanning
    runs and scores; they still check the model's and the submission's own flags when they read."""

    benchmark = models.ForeignKey(Benchmark, on_delete=models.CASCADE, related_name="entries")
    dataset_version = models.ForeignKey(DatasetVersion, on_delete=models.CASCADE, related_name="entries")
    model = models.ForeignKey(Model, on_delete=models.CASCADE, related_name="entries")
    is_public = models.BooleanField()
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="private_entries",
        help_text="The submitter of a private row; empty on the public row.",
    )
    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="entries")
    values = models.JSONField(default=dict, help_text="{column id: [value, ci_low, ci_high, n]}")
    finished_at = models.DateTimeField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["benchmark", "dataset_version", "model"],
                condition=models.Q(is_public=True),
                name="one_public_entry_per_model",
            ),
            models.UniqueConstraint(
                fields=["benchmark", "dataset_version", "model", "owner"],
                condition=models.Q(is_public=False),
                name="one_private_entry_per_submitter",
            ),
            models.CheckConstraint(
                condition=models.Q(is_public=True, owner__isnull=True) | models.Q(is_public=False, owner__isnull=False),
                name="private_entry_has_owner",
            ),
        ]
        indexes = [models.Index(fields=["benchmark", "dataset_version", "is_public"])]


class RunChunk(models.Model):
    """A slice of a run's items that any worker on the run's queue can claim, so one run can be
    scored on many machines. A claim is a lease with the same columns as the run's own
    (``lease_token``, ``lease_expires_at``)."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    item_ids = models.JSONField(default=list)
    done = models.BooleanField(default=False)
    lease_token = models.UUIDField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=200, blank=True, help_text="Who scored it (last claim).")

    class Meta:
        ordering = ["run", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "index"], name="one_chunk_per_index")]


class GenerationJob(LeasedWork):
    """One model load per submission: a worker on ``queue`` claims it (lease like a run's), serves or
    reaches the model once, generates the outputs of every run of the submission, then hands each
    run to scoring. Its progress counts requests (item x sample) over all its runs; its environment
    holds the server kind and version, the model's revision or sha256, the settings and the usage."""

    submission = models.OneToOneField(Submission, on_delete=models.CASCADE, related_name="generation")
    queue = models.CharField(max_length=40)
    requests_total = models.PositiveIntegerField(default=0)
    requests_done = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"generation for submission #{self.submission_id} ({self.status})"


class GeneratedOutput(models.Model):
    """One model answer for one item, sample and stage of a run, stored as it arrives: a resumed job
    skips what is here, so nothing is generated twice. ``error_kind`` (evaluators.core.types.
    OUTPUT_ERROR_KINDS) and ``error`` say why an answer is not a plain one (refused, cut off, empty...);
    it is still a prediction, and reaches scoring with its kind. A multi-turn item has one row per
    stage: ``messages`` what the stage added to the conversation, ``tool`` what the platform ran to
    make them (a single-turn item stores neither)."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="generated_outputs")
    item_id = models.CharField(max_length=200)
    sample_index = models.PositiveIntegerField(default=0)
    stage = models.PositiveSmallIntegerField(default=0)
    output = models.TextField(blank=True)
    finish_reason = models.CharField(max_length=40, blank=True)
    prompt_tokens = models.PositiveIntegerField(default=0)
    completion_tokens = models.PositiveIntegerField(default=0)
    latency_s = models.FloatField(default=0.0)
    error_kind = models.CharField(max_length=20, blank=True)
    error = models.TextField(blank=True)
    messages = models.JSONField(default=list, blank=True)
    tool = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["run", "item_id", "sample_index", "stage"]
        constraints = [
            models.UniqueConstraint(fields=["run", "item_id", "sample_index", "stage"], name="one_output_per_stage")
        ]


class Notification(models.Model):
    """Something a user should know happened to their work (a run finished or failed); shown on their
    notifications page and sent by email (Django's email backend; the console by default)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notifications")
    run = models.ForeignKey(
        "EvaluationRun", on_delete=models.CASCADE, null=True, blank=True, related_name="notifications"
    )
    title = models.CharField(max_length=200)
    body = models.TextField(blank=True)
    url = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["user", "read_at"], name="notification_unread")]
        constraints = [models.UniqueConstraint(fields=["run", "title"], name="one_notification_per_run_outcome")]

    def __str__(self) -> str:
        return f"{self.user}: {self.title}"
