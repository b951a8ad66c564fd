"""Pre-flight -> demo submission: the worker's pre-flight of a model (model hosting) and, when the model is
the embedded demo and it passed, its submission to the benchmarks it was never submitted to (runs)."""

from __future__ import annotations

from evaluators.core import modality as modalities
from leaderboard.accounts.site_accounts import DEMO_OWNER
from leaderboard.catalog.models import Benchmark, Model
from leaderboard.modelhost import services as modelhost
from leaderboard.modelhost.demo import DEMO_MODEL
from leaderboard.runs.models import Submission
from leaderboard.runs.services import submission_create_for_model


def model_preflight_run(*, model_id: int) -> str:
    """Model hosting's pre-flight (``modelhost.services.model_preflight_run``); the demo model, once it
    passed, is submitted on its own (:func:`demo_model_submit`). Returns the pre-flight's status."""
    status = modelhost.model_preflight_run(model_id=model_id)
    model = Model.objects.get(pk=model_id)
    checked = model.source != Model.SOURCE_PREDICTIONS  # a predictions-only model has no pre-flight
    if checked and status == Model.PREFLIGHT_PASSED and model.name == DEMO_MODEL:
        demo_model_submit(model=model)
    return status


def demo_model_submit(*, model: Model) -> Submission | None:
    """The embedded demo's model, once pre-flighted, is submitted by its owner to every text benchmark
    that has an evaluator and a dataset and that it was never submitted to (Multi-LCB and PoliCon),
    so a newcomer watches it generated, scored and judged without doing anything. Returns the
    submission, or None when there was nothing to submit."""
    if model.owner.username != DEMO_OWNER:
        return None
    done = set(model.submissions.values_list("runs__benchmark_id", flat=True))
    wanted = [
        b
        for b in Benchmark.objects.exclude(evaluator_key="").filter(
            modality__in=modalities.covered_by(model.modality), dataset_versions__is_current=True
        )
        if b.pk not in done
    ]
    if not wanted:
        return None
    return submission_create_for_model(
        owner=model.owner,
        model=model,
        benchmarks=wanted,
        note="the embedded demo, submitted on its own once pre-flighted",
    )
