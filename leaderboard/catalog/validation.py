"""Judge validation: the configured judge measured against a dataset version's ground truth.

PoliCon's release holds, for every adopted resolution, each party's real vote; the engine's
``evaluators.policon.validation`` asks the judge about those resolutions and compares. Here the site
runs it on a benchmark's current dataset version with the judge configured for the benchmark
(``LEADERBOARD_JUDGES``), stores the figures on the version by judge label with the date, and turns
the configured judge's figures into the note the benchmark page shows beside the paper's. Started by
``manage.py validate_judge <benchmark>`` or the ``validate_judge`` worker task.
"""
from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any, Callable

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from evaluators.core import MethodNote
from evaluators.policon.card import PAPER_JUDGE_R
from evaluators.policon.evaluator import PoliConEvaluator
from evaluators.policon.validation import validate_judge, validation_tasks
from leaderboard import pagecache
from leaderboard.catalog.evaluators import configured_evaluator
from leaderboard.catalog.models import Benchmark, DatasetVersion
from leaderboard.catalog.services import dataset_items
from leaderboard.modelhost import judging


class ValidationUnavailable(ValueError):
    """The benchmark has no current dataset version, or no ground truth to validate its judge on."""


def _validated_evaluator(benchmark: Benchmark) -> PoliConEvaluator:
    evaluator = configured_evaluator(benchmark)
    if not isinstance(evaluator, PoliConEvaluator):
        raise ValidationUnavailable(f"benchmark '{benchmark.slug}' has no ground truth to validate its judge on "
                                    "(only PoliCon's parties' real votes are)")
    return evaluator


def judge_validation_run(*, benchmark_id: int, limit: int | None = None, now: dt.datetime | None = None,
                         progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Judge every real resolution of the current dataset version for every party (``limit``: that many
    tasks spread over the release), store the figures on the version under the judge's label and
    return them. Raises ValidationUnavailable, JudgeNotConfigured or JudgeUnavailable; nothing is
    stored then."""
    benchmark = Benchmark.objects.get(pk=benchmark_id)
    evaluator = _validated_evaluator(benchmark)
    version = benchmark.dataset_versions.filter(is_current=True).first()
    if version is None:
        raise ValidationUnavailable(f"benchmark '{benchmark.slug}' has no current dataset version; import one first")
    items = dataset_items(version)
    judge = judging.judge_for(evaluator.judge_role)
    try:
        result = validate_judge(evaluator.with_judge(judge), validation_tasks([i.payload for i in items], limit),
                                progress=progress)
    finally:
        judge.close()
    record = {**result.to_dict(), "limit": limit, "dataset": version.tag, "at": (now or timezone.now()).isoformat()}
    with transaction.atomic():
        locked = DatasetVersion.objects.select_for_update().get(pk=version.pk)
        locked.judge_validations = {**locked.judge_validations, result.judge: record}
        locked.save(update_fields=["judge_validations"])
    pagecache.boards_changed()
    return record


def judge_validation_notes(benchmark: Benchmark, version: DatasetVersion) -> list[MethodNote]:
    """The configured judge's validation on ``version`` as a page note (none when it has none, or no
    judge is configured)."""
    if not version.judge_validations or not isinstance(configured_evaluator(benchmark), PoliConEvaluator):
        return []
    try:
        label = judging.judge_spec(PoliConEvaluator.judge_role).label
    except judging.JudgeNotConfigured:
        return []
    found = version.judge_validations.get(label)
    if found is None:
        return [MethodNote("Judge validation", f"The configured judge {label} has not been validated on dataset "
                                               f"{version.tag} yet (manage.py validate_judge {benchmark.slug}).")]
    r = "undefined (no spread)" if found["pearson_r"] is None else f"{found['pearson_r']:.2f}"
    skipped = (f"{found['skipped_tasks']} task(s) without a resolution and {found['skipped_parties']} part(ies) without "
               "a stance skipped")
    scope = f"{found['tasks']:,} tasks" + (f" (a spread sample of {found['limit']:,})" if found["limit"] else "")
    return [MethodNote(
        "Judge validation",
        f"The configured judge {label}, asked under {found['prompt']} about the real adopted resolutions, against "
        f"each party's real vote (in tenths): Pearson r = {r}, exact-band agreement (0-3 / 4-6 / 7-9) "
        f"{found['band_agreement']:.0%}, over {found['pairs']:,} votes on {scope}; {found['at'][:10]}. The paper "
        f"reports r = {PAPER_JUDGE_R} for its judge.",
        (skipped, f"{found['fallbacks']} fallback vote(s)"))]
