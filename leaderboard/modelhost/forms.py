"""The forms of model hosting's pages: registering a model and uploading its weights without JavaScript.
They validate shapes only; rules live in the services."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User

from leaderboard.catalog.models import Model
from leaderboard.modelhost.models import WeightsUpload


class ModelRegistrationForm(forms.Form):
    """Register a model to run. The API key is write-only: never rendered back, stored encrypted."""

    name = forms.CharField(max_length=120)
    organization = forms.CharField(max_length=120, required=False)
    source = forms.ChoiceField(
        choices=[c for c in Model.SOURCE_CHOICES if c[0] != Model.SOURCE_PREDICTIONS],
        widget=forms.RadioSelect,
        initial=Model.SOURCE_ENDPOINT,
    )
    modality = forms.ChoiceField(
        choices=[("text", "text only"), ("image", "images and text"), ("video", "video, images and text")],
        initial="text",
        help_text="What the model takes in: it may enter every benchmark that needs no more.",
    )
    hf_repo = forms.CharField(max_length=200, required=False, label="Hugging Face repository", help_text="owner/name")
    hf_revision = forms.CharField(
        max_length=64, required=False, label="Revision", help_text="A commit sha or tag (required for a repository)."
    )
    weights_upload = forms.ModelChoiceField(
        queryset=WeightsUpload.objects.none(),
        required=False,
        help_text="A completed upload of a tar archive of the model directory.",
    )
    endpoint_base_url = forms.CharField(
        max_length=300, required=False, label="Endpoint base URL", help_text="OpenAI-compatible, ending in /v1."
    )
    endpoint_model = forms.CharField(max_length=200, required=False, label="Model name at the endpoint")
    endpoint_api_key = forms.CharField(
        max_length=500,
        required=False,
        label="API key",
        widget=forms.PasswordInput(render_value=False),
        help_text="Stored encrypted and never shown again.",
    )
    is_public = forms.BooleanField(required=False, initial=True, label="Show on the public leaderboards")
    release_date = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))

    #: the fields each source needs, shown only when that source is chosen (the page's CSS does it,
    #: without JavaScript; a browser without :has() shows them all, each under its heading)
    SOURCE_FIELDS = {
        Model.SOURCE_HF: ("hf_repo", "hf_revision"),
        Model.SOURCE_WEIGHTS: ("weights_upload",),
        Model.SOURCE_ENDPOINT: ("endpoint_base_url", "endpoint_model", "endpoint_api_key"),
    }

    def common_fields(self) -> list[Any]:
        specific = {name for names in self.SOURCE_FIELDS.values() for name in names}
        return [self[name] for name in self.fields if name not in specific]

    def source_groups(self) -> list[dict[str, Any]]:
        labels = dict(Model.SOURCE_CHOICES)
        return [
            {"source": source, "label": labels[source], "fields": [self[name] for name in names]}
            for source, names in self.SOURCE_FIELDS.items()
        ]

    def __init__(self, *args: Any, owner: User | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        uploads = self.fields["weights_upload"]
        if owner is not None and isinstance(uploads, forms.ModelChoiceField):
            uploads.queryset = WeightsUpload.objects.filter(owner=owner, status=WeightsUpload.STATUS_COMPLETE)


class WeightsUploadForm(forms.Form):
    """The no-JavaScript fallback for small archives: the whole file in one request."""

    archive = forms.FileField(
        help_text="A tar archive of the model directory (config.json, tokenizer files, *.safetensors)."
    )
