"""A benchmark's evaluator as this site runs it: the registered evaluator configured with the
operator's settings for it (``LEADERBOARD_EVALUATOR_SETTINGS``), for the services that create runs and
check who may enter, and for the selectors that describe how scores are obtained."""
from __future__ import annotations

import json
from typing import Any

from django.conf import settings

from evaluators.core import get_evaluator
from leaderboard.catalog.models import Benchmark


def evaluator_settings_for(benchmark: Benchmark) -> dict[str, Any]:
    """The operator's settings for the benchmark's evaluator (recorded on each run)."""
    configured = json.loads(settings.EVALUATOR_SETTINGS or "{}")
    return dict(configured.get(benchmark.evaluator_key, {}))


def configured_evaluator(benchmark: Benchmark) -> Any:
    """The benchmark's evaluator with the operator's settings applied (None without an evaluator)."""
    if not benchmark.evaluator_key:
        return None
    evaluator = get_evaluator(benchmark.evaluator_key)
    run_settings = evaluator_settings_for(benchmark)
    if run_settings and hasattr(evaluator, "configured"):
        evaluator = evaluator.configured(run_settings)
    return evaluator


def needed_modality(benchmark: Benchmark) -> str:
    """What a model must take in to enter ``benchmark`` as this site runs it: the configured evaluator's
    modality (Video NIAH's video mode needs video), else the catalog's."""
    return str(getattr(configured_evaluator(benchmark), "modality", benchmark.modality))
