"""API serializers: shapes only."""
from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from evaluators.core.modality import MODALITIES
from evaluators.llm.types import redact_userinfo
from leaderboard.accounts import policy
from leaderboard.catalog.models import Benchmark, DatasetVersion, Model
from leaderboard.modelhost.models import WeightsUpload
from leaderboard.submissions import selectors
from leaderboard.submissions.eta import WORK_KINDS, run_wait
from leaderboard.submissions.models import EvaluationRun, GenerationJob, ItemResult, Score, Submission
from leaderboard.submissions.services import SETTINGS_MAX_DEPTH, SETTINGS_MAX_KEYS, generation_settings_problem


class DatasetVersionSerializer(serializers.ModelSerializer):
    class Meta:
        model = DatasetVersion
        fields = ["tag", "content_hash", "item_count", "imported_at", "is_current"]


class ProtocolRowSerializer(serializers.Serializer):
    """One row of a benchmark's method card (evaluators.core.types.ProtocolRow)."""

    element = serializers.CharField()
    released = serializers.CharField()
    here = serializers.CharField()
    why = serializers.CharField(allow_blank=True)
    source = serializers.CharField(allow_blank=True)  # type: ignore[assignment]  # the API's field is "source", a Field attribute too
    deviates = serializers.BooleanField()


class BenchmarkSerializer(serializers.ModelSerializer):
    available = serializers.BooleanField(source="is_available", read_only=True)
    method_card = serializers.SerializerMethodField()

    @extend_schema_field(ProtocolRowSerializer(many=True))
    def get_method_card(self, benchmark: Benchmark) -> list[dict[str, str | bool]]:
        """The release's protocol beside this platform's, row by row, as on the benchmark's page."""
        return [row.to_dict() for row in selectors.method_card_of(benchmark)]

    class Meta:
        model = Benchmark
        fields = ["slug", "name", "kind", "summary", "modality", "available", "metric_columns", "slice_dimensions",
                  "method_card"]


def _without_userinfo(value: Any) -> Any:
    """``value`` (text, or JSON lists and objects of it) with the user name and password taken out of every URL."""
    if isinstance(value, str):
        return redact_userinfo(value)
    if isinstance(value, list):
        return [_without_userinfo(v) for v in value]
    if isinstance(value, dict):
        return {k: _without_userinfo(v) for k, v in value.items()}
    return value


class ShownTextField(serializers.CharField):
    """Text that may hold an endpoint's URL (the address, a failure message), shown without any user name or
    password in it: registration refuses them, but a row stored before may hold them."""

    def to_representation(self, value: Any) -> str:
        return redact_userinfo(super().to_representation(value))


class ShownJSONField(serializers.JSONField):
    """A JSON record that may hold an endpoint's URL (a run's environment), shown as ShownTextField shows text."""

    def to_representation(self, value: Any) -> Any:
        return _without_userinfo(super().to_representation(value))


class ModelSerializer(serializers.ModelSerializer):
    """A model as shown to anyone; the endpoint's key is never returned, only whether one is set, nor a
    user name or password in its URL, and the pre-flight's details only to the owner and staff."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    endpoint_base_url = ShownTextField(read_only=True)
    has_api_key = serializers.BooleanField(read_only=True)
    weights_upload: serializers.PrimaryKeyRelatedField[WeightsUpload] = serializers.PrimaryKeyRelatedField(read_only=True,
                                                                                                          allow_null=True)
    preflight_report = serializers.SerializerMethodField()

    def get_preflight_report(self, model: Model) -> dict:
        """The whole report (facts, problems: what an endpoint listed or answered) for the owner and
        staff; anyone else sees only whether it passed."""
        report = model.preflight_report if isinstance(model.preflight_report, dict) else {}
        user = getattr(self.context.get("request"), "user", None)
        if policy.can_manage(user, model):
            return report
        return {"ok": bool(report.get("ok"))} if report else {}

    class Meta:
        model = Model
        fields = ["slug", "name", "organization", "source", "modality", "parameters", "license", "release_date", "is_public", "owner",
                  "hf_repo", "hf_revision", "weights_upload", "endpoint_base_url", "endpoint_model", "has_api_key",
                  "preflight_status", "preflight_report", "preflight_checked_at"]


class ModelRegistrationSerializer(serializers.Serializer):
    """Register a model. ``endpoint_api_key`` is write-only: stored encrypted, never shown again."""

    name = serializers.CharField(min_length=1, max_length=120)
    organization = serializers.CharField(max_length=120, required=False, allow_blank=True, default="")
    modality = serializers.ChoiceField(choices=list(MODALITIES), default="text")
    is_public = serializers.BooleanField(default=True)
    release_date = serializers.DateField(required=False, allow_null=True, default=None)
    hf_repo = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    hf_revision = serializers.CharField(max_length=64, required=False, allow_blank=True, default="")
    weights_upload = serializers.IntegerField(required=False, allow_null=True, default=None)
    endpoint_base_url = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")
    endpoint_model = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    endpoint_api_key = serializers.CharField(max_length=500, required=False, allow_blank=True, default="", write_only=True,
                                             style={"input_type": "password"})

    def get_fields(self) -> dict[str, serializers.Field]:
        # "source" (where the weights come from) is also the name of a Field attribute: added here
        return {"source": serializers.ChoiceField(choices=Model.SOURCE_CHOICES), **super().get_fields()}


@extend_schema_field({"type": "object", "maxProperties": SETTINGS_MAX_KEYS,
                      "description": f"setting name -> value (e.g. n, temperature, top_p, max_tokens, seed); nested at most "
                                     f"{SETTINGS_MAX_DEPTH} deep; each benchmark checks the names and values it takes",
                      "additionalProperties": {"oneOf": [{"type": "number"}, {"type": "string", "maxLength": 10_000},
                                                         {"type": "boolean"}, {"type": "array"}, {"type": "object"}],
                                               "nullable": True}})
class GenerationSettingsField(serializers.DictField):
    """A JSON object of generation settings, refused (as the service refuses it) when it nests deeper
    than SETTINGS_MAX_DEPTH or has more than SETTINGS_MAX_KEYS names."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        value = dict(super().to_internal_value(data))
        if problem := generation_settings_problem(value):
            raise serializers.ValidationError(problem)
        return value


class ModelSubmissionSerializer(serializers.Serializer):
    """Submit a registered model to benchmarks; its predictions are generated by a worker."""

    model = serializers.SlugField()
    benchmarks = serializers.ListField(child=serializers.SlugField(), min_length=1)
    generation_settings = GenerationSettingsField(required=False, default=dict)
    is_public = serializers.BooleanField(default=True)
    note = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class UploadCreateSerializer(serializers.Serializer):
    filename = serializers.CharField(min_length=1, max_length=200)
    size = serializers.IntegerField(min_value=1)
    sha256 = serializers.CharField(max_length=64, min_length=64)


class UploadSerializer(serializers.ModelSerializer):
    """An upload and the parts received so far: a client resumes by sending the parts not listed."""

    parts_received = serializers.SerializerMethodField()
    part_count = serializers.IntegerField(read_only=True)

    class Meta:
        model = WeightsUpload
        fields = ["id", "filename", "size", "sha256", "part_size", "part_count", "parts_received", "status", "created_at", "completed_at"]

    def get_parts_received(self, upload: WeightsUpload) -> list[int]:
        return sorted(upload.parts.values_list("number", flat=True))


class GenerationSerializer(serializers.ModelSerializer):
    failure_message = ShownTextField(read_only=True)

    class Meta:
        model = GenerationJob
        fields = ["queue", "status", "failure_kind", "failure_message", "attempt", "requests_done", "requests_total",
                  "started_at", "finished_at"]


class ScoreSerializer(serializers.ModelSerializer):
    class Meta:
        model = Score
        fields = ["key", "slice_key", "value", "ci_low", "ci_high", "n"]


class SpanSerializer(serializers.Serializer):
    low = serializers.FloatField(help_text="seconds, if everything goes as quickly as the quickest recent run")
    median = serializers.FloatField(help_text="seconds, as the median recent run")
    high = serializers.FloatField(help_text="seconds, if everything goes as slowly as the slowest recent run")


class AheadSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["baseline", "user"], help_text="baseline: the site's own work (baselines, the demo model)")
    work = serializers.ChoiceField(choices=WORK_KINDS)
    board = serializers.CharField(help_text="the benchmark (a generation job: its submission's benchmarks)")
    status = serializers.ChoiceField(choices=["running", "queued"])
    seconds_left = SpanSerializer(allow_null=True, help_text="null: no run like it has finished yet")


class WaitEstimateSerializer(serializers.Serializer):
    seconds = SpanSerializer(help_text="until it should start")
    start_earliest = serializers.DateTimeField()
    start = serializers.DateTimeField()
    start_latest = serializers.DateTimeField()


class OwnDurationSerializer(serializers.Serializer):
    runs = serializers.IntegerField(help_text="recent finished runs of its board on its dataset version")
    seconds = SpanSerializer()


class WaitSerializer(serializers.Serializer):
    waiting_for = serializers.ChoiceField(choices=WORK_KINDS, help_text="a worker to score it, or its model's generation job to be taken")
    queue = serializers.CharField()
    position = serializers.IntegerField(help_text="1-based, among the queue's waiting work")
    ahead = AheadSerializer(many=True, help_text="running work first, then the waiting work ahead, in order")
    estimate = WaitEstimateSerializer(allow_null=True, help_text="null: no estimate yet (see no_estimate_because)")
    no_estimate_because = serializers.CharField(allow_null=True)
    own_duration = OwnDurationSerializer(allow_null=True, help_text="how long runs like it took once started")
    method = serializers.CharField(help_text="how the estimate is made")
    estimated_at = serializers.DateTimeField()


class RunSerializer(serializers.ModelSerializer):
    benchmark: serializers.SlugRelatedField[Benchmark] = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    dataset_version: serializers.SlugRelatedField[DatasetVersion] = serializers.SlugRelatedField(slug_field="tag", read_only=True)
    scores = ScoreSerializer(many=True, read_only=True)
    wait = serializers.SerializerMethodField(help_text="a queued run: its place, what is ahead and when it should start; else null")
    failure_message = ShownTextField(read_only=True)
    environment = ShownJSONField(read_only=True)

    class Meta:
        model = EvaluationRun
        fields = ["id", "submission", "benchmark", "dataset_version", "queue", "status", "phase", "failure_kind", "failure_message",
                  "attempt", "max_attempts", "items_done", "items_total", "evaluator_key", "evaluator_version",
                  "evaluator_settings", "environment", "cost", "created_at", "started_at", "finished_at", "rerun_of", "wait", "scores"]

    @extend_schema_field(WaitSerializer(allow_null=True))
    def get_wait(self, run: EvaluationRun) -> dict[str, Any] | None:
        wait = run_wait(run=run)
        return wait.to_dict() if wait else None


class SubmissionSerializer(serializers.ModelSerializer):
    model: serializers.SlugRelatedField[Model] = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    runs = RunSerializer(many=True, read_only=True)
    generation = GenerationSerializer(read_only=True, allow_null=True, default=None)

    class Meta:
        model = Submission
        fields = ["id", "model", "is_public", "predictions_sha256", "predictions_count", "generation_settings", "note", "created_at",
                  "generation", "runs"]


class PredictionsSubmissionSerializer(serializers.Serializer):
    benchmark = serializers.SlugRelatedField(slug_field="slug", queryset=Benchmark.objects.all())
    model_name = serializers.CharField(min_length=1, max_length=120)
    predictions = serializers.FileField()
    release_date = serializers.DateField(required=False, allow_null=True, default=None)
    is_public = serializers.BooleanField(default=True)
    note = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")


class ItemResultSerializer(serializers.ModelSerializer):
    class Meta:
        model = ItemResult
        fields = ["item_id", "slices", "scores", "detail", "error", "passed"]


class ProblemSerializer(serializers.Serializer):
    line = serializers.IntegerField(allow_null=True)
    field = serializers.CharField(allow_null=True)
    message = serializers.CharField()


class ProfileBenchmarkSerializer(serializers.Serializer):
    benchmark = serializers.CharField()
    name = serializers.CharField()
    metric = serializers.CharField()
    format = serializers.CharField()
    higher_is_better = serializers.BooleanField()
    value = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    n = serializers.IntegerField(allow_null=True)
    rank = serializers.IntegerField(allow_null=True)
    ranked = serializers.SerializerMethodField(help_text="false when the figure is not ranked (unranked_reason says why)")
    ranked_of = serializers.IntegerField()
    unranked_reason = serializers.CharField()

    def get_ranked(self, row: dict[str, Any]) -> bool:
        return row["rank"] is not None

    run = serializers.IntegerField()
    submission = serializers.IntegerField()
    dataset = serializers.CharField()
    evaluator_version = serializers.CharField()
    finished_at = serializers.DateTimeField(allow_null=True)


class ProfileArenaSerializer(serializers.Serializer):
    rating = serializers.FloatField()
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    rank_ub = serializers.IntegerField()
    of = serializers.IntegerField(help_text="the ranked models")
    votes = serializers.IntegerField()
    provisional = serializers.BooleanField(help_text="not ranked yet (too few votes or no finite interval): the rating is no measurement")
    ranked = serializers.BooleanField()
    rank = serializers.IntegerField(allow_null=True, help_text="among the ranked models; null while provisional")
    standing = serializers.CharField(allow_blank=True, help_text="why it is not ranked yet, in words")
    bounded = serializers.BooleanField(default=True)
    note = serializers.CharField(allow_blank=True)


class ProfileRunSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    benchmark = serializers.CharField()
    status = serializers.CharField()
    submission = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class ProfileModelSerializer(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.CharField()
    organization = serializers.CharField(allow_blank=True)
    provenance = serializers.CharField(help_text="where the predictions come from: a file, HF weights, uploaded weights or an endpoint")
    hf_repo = serializers.CharField(allow_blank=True)
    hf_revision = serializers.CharField(allow_blank=True)
    modality = serializers.CharField()
    release_date = serializers.DateField(allow_null=True)
    owner = serializers.CharField(allow_blank=True)
    submitted_by = serializers.ListField(child=serializers.CharField())


class ProfileCostSerializer(serializers.Serializer):
    total = serializers.DictField(child=serializers.FloatField(), help_text="each cost figure added up over the runs (submissions.costs)")
    runs = serializers.IntegerField(help_text="the succeeded runs with a recorded cost")


class ModelProfileSerializer(serializers.Serializer):
    """A model's profile (``leaderboard.submissions.profiles``)."""

    model = ProfileModelSerializer()
    benchmarks = ProfileBenchmarkSerializer(many=True)
    arena = ProfileArenaSerializer(allow_null=True)
    runs = ProfileRunSerializer(many=True)
    cost = ProfileCostSerializer()
