"""A benchmark's evaluator as this site runs it: the registered evaluator configured with the
operator's settings for it (``LEADERBOARD_EVALUATOR_SETTINGS``), for the services that import datasets,
create runs and check who may enter, and for the selectors that describe how scores are obtained."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings

from evaluators.core import Evaluator, evaluator_for
from leaderboard.catalog.models import Benchmark


def evaluator_settings_for(benchmark: Benchmark) -> dict[str, Any]:
    """The operator's settings for the benchmark's evaluator (recorded on each run)."""
    configured = json.loads(settings.EVALUATOR_SETTINGS or "{}")
    return dict(configured.get(benchmark.evaluator_key, {}))


def configured_evaluator(benchmark: Benchmark) -> Evaluator:
    """The benchmark's evaluator with the operator's settings applied (ValueError for a board without
    one: callers check ``benchmark.evaluator_key`` first)."""
    if not benchmark.evaluator_key:
        raise ValueError(f"benchmark '{benchmark.slug}' has no evaluator")
    return evaluator_for(benchmark.evaluator_key, settings=evaluator_settings_for(benchmark))


def needed_modality(benchmark: Benchmark) -> str:
    """What a model must take in to enter ``benchmark`` as this site runs it: the configured evaluator's
    modality (Video NIAH's video mode needs video), else the catalog's."""
    return configured_evaluator(benchmark).generation().modality if benchmark.evaluator_key else benchmark.modality
