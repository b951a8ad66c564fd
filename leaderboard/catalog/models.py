"""Benchmark, DatasetVersion and Model rows (a model's source: predictions only, a Hugging Face repo
at a pinned revision, uploaded weights, or an OpenAI-compatible endpoint, and its pre-flight result).
Rules live in services.py; reads in selectors.py."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class Benchmark(models.Model):
    KIND_STATIC = "static"
    KIND_ARENA = "arena"
    slug = models.SlugField(unique=True)
    name = models.CharField(max_length=120)
    kind = models.CharField(
        max_length=10, choices=[(KIND_STATIC, "Static benchmark"), (KIND_ARENA, "Arena")], default=KIND_STATIC
    )
    summary = models.TextField(help_text="What it measures, in a sentence or two.")
    paper_url = models.URLField(blank=True)
    evaluator_key = models.CharField(
        max_length=60, blank=True, help_text="Registry key in evaluators.core; empty until the evaluator lands."
    )
    modality = models.CharField(max_length=10, default="text")
    metric_columns = models.JSONField(
        default=list, blank=True, help_text="[{key, label, higher_is_better, format, primary}]"
    )
    slice_dimensions = models.JSONField(default=list, blank=True, help_text="[{key, label, values}]")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "name"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_available(self) -> bool:
        return bool(self.evaluator_key)

    @property
    def primary_metric(self) -> dict | None:
        return next(
            (c for c in self.metric_columns if c.get("primary")),
            self.metric_columns[0] if self.metric_columns else None,
        )


class DatasetVersion(models.Model):
    benchmark = models.ForeignKey(Benchmark, on_delete=models.PROTECT, related_name="dataset_versions")
    tag = models.CharField(max_length=60, help_text="e.g. sample-2026.11 or release_v6")
    content_hash = models.CharField(max_length=64)
    storage_key = models.CharField(max_length=300, help_text="Normalized items JSONL in file storage.")
    item_count = models.PositiveIntegerField()
    item_ids = models.JSONField(default=list)
    is_current = models.BooleanField(default=False)
    imported_at = models.DateTimeField(auto_now_add=True)
    source_name = models.CharField(max_length=300, blank=True)
    notes = models.JSONField(
        default=list,
        blank=True,
        help_text="The evaluator's diagnostics of this version, computed at import: [{heading, text, points}]",
    )
    media_prefix = models.CharField(
        max_length=200,
        blank=True,
        help_text="Where this version's images are kept in file storage, by content hash (empty: none).",
    )
    media_count = models.PositiveIntegerField(default=0)
    media_bytes = models.BigIntegerField(default=0)
    judge_validations = models.JSONField(
        default=dict,
        blank=True,
        help_text="The judge's agreement with this version's ground truth, by judge label: "
        "{label: {pairs, pearson_r, band_agreement, prompt, at, ...}} (PoliCon: manage.py validate_judge)",
    )

    class Meta:
        ordering = ["benchmark", "-imported_at"]
        constraints = [
            models.UniqueConstraint(fields=["benchmark", "tag"], name="dataset_tag_unique"),
            models.UniqueConstraint(
                fields=["benchmark"], condition=models.Q(is_current=True), name="one_current_dataset"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.benchmark.slug}@{self.tag}"


class Model(models.Model):
    SOURCE_PREDICTIONS = "predictions"
    SOURCE_HF = "hf"
    SOURCE_WEIGHTS = "weights"
    SOURCE_ENDPOINT = "endpoint"
    PREFLIGHT_PENDING = "pending"
    PREFLIGHT_PASSED = "passed"
    PREFLIGHT_FAILED = "failed"
    PREFLIGHT_CHOICES = [(PREFLIGHT_PENDING, "Pending"), (PREFLIGHT_PASSED, "Passed"), (PREFLIGHT_FAILED, "Failed")]
    SOURCE_CHOICES = [
        (SOURCE_PREDICTIONS, "Predictions files only"),
        (SOURCE_HF, "Hugging Face repository"),
        (SOURCE_WEIGHTS, "Uploaded weights"),
        (SOURCE_ENDPOINT, "OpenAI-compatible endpoint"),
    ]
    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=140, unique=True)
    organization = models.CharField(max_length=120, blank=True)
    source = models.CharField(max_length=12, choices=SOURCE_CHOICES, default=SOURCE_PREDICTIONS)
    hf_repo = models.CharField(max_length=200, blank=True)
    hf_revision = models.CharField(max_length=64, blank=True)
    weights_upload = models.ForeignKey(
        "modelhost.WeightsUpload",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="models",
        help_text="The uploaded tar archive of the model directory (source 'weights').",
    )
    endpoint_base_url = models.URLField(
        max_length=300, blank=True, help_text="OpenAI-compatible base URL, ending in /v1."
    )
    endpoint_model = models.CharField(max_length=200, blank=True, help_text="The model name sent to the endpoint.")
    endpoint_api_key_encrypted = models.TextField(
        blank=True, help_text="Fernet token (leaderboard.modelhost.secrets); never shown."
    )
    preflight_status = models.CharField(max_length=10, choices=PREFLIGHT_CHOICES, default=PREFLIGHT_PENDING)
    preflight_report = models.JSONField(default=dict, blank=True, help_text="{ok, problems: [[field, message]], facts}")
    preflight_checked_at = models.DateTimeField(null=True, blank=True)
    preflight_requested_at = models.DateTimeField(
        null=True, blank=True, help_text="When the pending pre-flight was queued."
    )
    generation_defaults = models.JSONField(
        default=dict,
        blank=True,
        help_text='Generation settings a submission starts from, e.g. {"max_tokens": 2048}; '
        "the submitter's own settings win.",
    )
    modality = models.CharField(max_length=10, default="text")
    parameters = models.BigIntegerField(null=True, blank=True)
    license = models.CharField(max_length=60, blank=True)
    release_date = models.DateField(
        null=True, blank=True, help_text="Flags contamination on date-windowed leaderboards."
    )
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="models")
    is_public = models.BooleanField(default=True)
    is_reference = models.BooleanField(
        default=False, help_text="A benchmark's baseline (PoliCon's Random, Greedy): shown marked and never ranked."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(fields=["owner", "name"], name="model_name_per_owner")]

    def __str__(self) -> str:
        return self.name

    @property
    def has_api_key(self) -> bool:
        return bool(self.endpoint_api_key_encrypted)

    @property
    def needs_generation(self) -> bool:
        """Submissions of this model generate their predictions in a worker."""
        return self.source != self.SOURCE_PREDICTIONS
