"""API serializers: shapes only."""
from __future__ import annotations

from rest_framework import serializers

from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.submissions.models import EvaluationRun, ItemResult, Score, Submission


class DatasetVersionSerializer(serializers.ModelSerializer):
    class Meta:
        model = DatasetVersion
        fields = ["tag", "content_hash", "item_count", "imported_at", "is_current"]


class BenchmarkSerializer(serializers.ModelSerializer):
    available = serializers.BooleanField(source="is_available", read_only=True)

    class Meta:
        model = Benchmark
        fields = ["slug", "name", "kind", "summary", "modality", "available", "metric_columns", "slice_dimensions"]


class ModelSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username", read_only=True)

    class Meta:
        model = Model
        fields = ["slug", "name", "organization", "source", "modality", "parameters", "license", "release_date", "is_public", "owner"]


class ScoreSerializer(serializers.ModelSerializer):
    class Meta:
        model = Score
        fields = ["key", "slice_key", "value", "ci_low", "ci_high", "n"]


class RunSerializer(serializers.ModelSerializer):
    benchmark = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    dataset_version = serializers.SlugRelatedField(slug_field="tag", read_only=True)
    scores = ScoreSerializer(many=True, read_only=True)

    class Meta:
        model = EvaluationRun
        fields = ["id", "submission", "benchmark", "dataset_version", "queue", "status", "failure_kind", "failure_message",
                  "attempt", "max_attempts", "items_done", "items_total", "evaluator_key", "evaluator_version",
                  "evaluator_settings", "environment", "created_at", "started_at", "finished_at", "rerun_of", "scores"]


class SubmissionSerializer(serializers.ModelSerializer):
    model = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    runs = RunSerializer(many=True, read_only=True)

    class Meta:
        model = Submission
        fields = ["id", "model", "is_public", "predictions_sha256", "predictions_count", "note", "created_at", "runs"]


class PredictionsSubmissionSerializer(serializers.Serializer):
    benchmark = serializers.SlugRelatedField(slug_field="slug", queryset=Benchmark.objects.all())
    model_name = serializers.CharField(max_length=120)
    predictions = serializers.FileField()
    release_date = serializers.DateField(required=False, allow_null=True, default=None)
    is_public = serializers.BooleanField(default=True)
    note = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class ItemResultSerializer(serializers.ModelSerializer):
    class Meta:
        model = ItemResult
        fields = ["item_id", "slices", "scores", "detail", "error"]


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(allow_null=True)
    contaminated = serializers.BooleanField()
    model = serializers.CharField()
    model_slug = serializers.CharField()
    run = serializers.IntegerField()
    evaluator_version = serializers.CharField()
    unranked_reason = serializers.CharField()
    flags = serializers.ListField(child=serializers.CharField())
    scores = serializers.DictField()


class ProblemSerializer(serializers.Serializer):
    line = serializers.IntegerField(allow_null=True)
    field = serializers.CharField(allow_null=True)
    message = serializers.CharField()
