"""Model hosting's API shapes: a model as shown (its endpoint's key never, its pre-flight's details only to
the owner and staff), a model's registration, and a resumable weights upload."""

from __future__ import annotations

from rest_framework import serializers

from evaluators.core.modality import MODALITIES
from leaderboard.accounts import policy
from leaderboard.api.fields import ShownTextField
from leaderboard.catalog.models import Model
from leaderboard.modelhost.models import WeightsUpload


class ModelSerializer(serializers.ModelSerializer):
    """A model as shown to anyone; the endpoint's key is never returned, only whether one is set, nor a
    user name or password in its URL, and the pre-flight's details only to the owner and staff."""

    owner = serializers.CharField(source="owner.username", read_only=True)
    endpoint_base_url = ShownTextField(read_only=True)
    has_api_key = serializers.BooleanField(read_only=True)
    weights_upload: serializers.PrimaryKeyRelatedField[WeightsUpload] = serializers.PrimaryKeyRelatedField(
        read_only=True, allow_null=True
    )
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
        fields = [
            "slug",
            "name",
            "organization",
            "source",
            "modality",
            "parameters",
            "license",
            "release_date",
            "is_public",
            "owner",
            "hf_repo",
            "hf_revision",
            "weights_upload",
            "endpoint_base_url",
            "endpoint_model",
            "has_api_key",
            "preflight_status",
            "preflight_report",
            "preflight_checked_at",
        ]


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
    endpoint_api_key = serializers.CharField(
        max_length=500, required=False, allow_blank=True, default="", write_only=True, style={"input_type": "password"}
    )

    def get_fields(self) -> dict[str, serializers.Field]:
        # "source" (where the weights come from) is also the name of a Field attribute: added here
        return {"source": serializers.ChoiceField(choices=Model.SOURCE_CHOICES), **super().get_fields()}


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
        fields = [
            "id",
            "filename",
            "size",
            "sha256",
            "part_size",
            "part_count",
            "parts_received",
            "status",
            "created_at",
            "completed_at",
        ]

    def get_parts_received(self, upload: WeightsUpload) -> list[int]:
        return sorted(upload.parts.values_list("number", flat=True))
