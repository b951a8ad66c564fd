"""The forms of the submission pages: a predictions file, and a registered model's submission. They
validate shapes only; rules live in the services (the generation settings are checked by the service's own
check, so the form names a bad one as the API does)."""

from __future__ import annotations

from typing import Any

from django import forms

from leaderboard.catalog.models import Benchmark
from leaderboard.runs.services import generation_settings_problem


class PredictionsSubmissionForm(forms.Form):
    benchmark = forms.ModelChoiceField(
        queryset=Benchmark.objects.exclude(evaluator_key="").filter(kind=Benchmark.KIND_STATIC), empty_label=None
    )
    model_name = forms.CharField(
        max_length=120, help_text="The model that wrote these predictions; a new name registers a new model."
    )
    release_date = forms.DateField(
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text="The model's release date (optional): on date-windowed leaderboards, a model released "
        "after the window starts may have seen the problems and is flagged, not ranked.",
    )
    predictions = forms.FileField(help_text='JSONL: one {"item_id", "output", "sample_index"} object per line.')
    is_public = forms.BooleanField(required=False, initial=True, label="Show on the public leaderboard")
    note = forms.CharField(
        max_length=200, required=False, help_text="Optional: settings, prompt, anything readers should know."
    )


class ModelSubmitForm(forms.Form):
    """A registered model's submission; its generation settings are checked as the service and the
    generating worker read them (``generation_settings_problem``), so a bad one is refused naming it."""

    benchmarks = forms.ModelMultipleChoiceField(
        queryset=Benchmark.objects.exclude(evaluator_key="").filter(kind=Benchmark.KIND_STATIC),
        widget=forms.CheckboxSelectMultiple,
    )
    generation_settings = forms.JSONField(required=False, initial=dict, help_text='e.g. {"n": 1, "max_tokens": 2048}')
    is_public = forms.BooleanField(required=False, initial=True, label="Show on the public leaderboard")
    note = forms.CharField(max_length=200, required=False)

    def clean_generation_settings(self) -> dict[str, Any]:
        settings = self.cleaned_data["generation_settings"] or {}
        if problem := generation_settings_problem(settings):
            raise forms.ValidationError(problem)
        return dict(settings)
