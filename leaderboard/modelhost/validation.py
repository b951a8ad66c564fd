"""Judge validation on the site, and the one decision whether a judged figure may be ranked.

Every judged benchmark's evaluator measures its judge against what a dataset version says is right
(``JudgeUse.validate``: PoliCon against the parties' real votes, CausalPitfalls and
IndicVisionBench VQA against answers of known quality; ``evaluators.llm.validation``). Here the site runs
it on the benchmark's current dataset version with the judge configured for the benchmark
(``LEADERBOARD_JUDGES``), stores the figures on the version under the label of the judge and the prompt
it was actually asked, with the date and the verdict, and turns the configured judge's figures into the
note the benchmark page shows. Started by ``manage.py validate_judge <benchmark>`` or the
``validate_judge`` worker task.

``figure_status`` is the single rule for ranking: a figure scored by a judge is ranked only when that
judge, under the prompt the run used, has a passing validation on the run's dataset version; the
leaderboard, the home page's leaders, the models index, the model profile, compare, the API and the CSV
all ask it. ``board_is_ranked`` says the same of a benchmark's configured judge, for whoever needs one
answer per board (a snapshot frozen now, the benchmark page's notice).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from evaluators.core import MethodNote, judge_role
from evaluators.llm.validation import validation_label
from evaluators.policon.card import PAPER_JUDGE_R
from evaluators.policon.evaluator import PoliConEvaluator
from leaderboard import pagecache
from leaderboard.catalog.evaluators import configured_evaluator
from leaderboard.catalog.models import Benchmark, DatasetVersion
from leaderboard.catalog.services import dataset_items
from leaderboard.modelhost import judging

#: what a page shows instead of a rank under a judge without a passing validation
NOT_VALIDATED = "judge not validated: not ranked"
#: the page that says what a validation is and how to run one
HOW_TO_VALIDATE = "judges"


class ValidationUnavailable(ValueError):
    """The benchmark has no current dataset version, or no judge, or nothing to validate its judge on."""


@dataclass(frozen=True)
class RankedStatus:
    """Whether figures may be ranked, and if not why (``reason``, in words); ``judge`` is the validation
    label concerned ("" for figures no judge scored)."""

    ranked: bool
    reason: str = ""
    judge: str = ""


RANKED = RankedStatus(True)


def run_judge_label(judge: Any, prompt: Any) -> str:
    """The validation label of the judge and prompt a run's figures were scored with ("" when no judge scored
    them): the run's judge record (``environment["judge"]``) and the prompt its evaluator reported
    (``environment["judge_prompt"]``)."""
    if not isinstance(judge, dict):
        return ""
    return validation_label(str(judge.get("name", "")), str(judge.get("revision", "")), str(prompt or ""))


def figure_status(judge: Any, prompt: Any, validations: Mapping[str, Any]) -> RankedStatus:
    """May a run's figures be ranked? Yes when no judge scored them (``judge`` is not a judge record), or when
    their judge under the prompt the run used has a passing validation in ``validations`` (the run's dataset
    version's ``judge_validations``)."""
    label = run_judge_label(judge, prompt)
    if not label:
        return RANKED
    found = validations.get(label)
    if isinstance(found, dict) and found.get("passed") is True:
        return RankedStatus(True, judge=label)
    return RankedStatus(False, NOT_VALIDATED, label)


def is_judged(benchmark: Benchmark) -> bool:
    """The benchmark's figures are a judge's (its evaluator names a judge role)."""
    return bool(benchmark.evaluator_key) and bool(judge_role(benchmark.evaluator_key))


def run_status(
    benchmark: Benchmark, environment: Mapping[str, Any] | None, validations: Mapping[str, Any]
) -> RankedStatus:
    """``figure_status`` of a run of ``benchmark`` from its stored environment (ranked on a board no judge scores)."""
    if not is_judged(benchmark):
        return RANKED
    environment = environment or {}
    return figure_status(environment.get("judge"), environment.get("judge_prompt"), validations)


def unranked_by_judge(benchmark: Benchmark, entries: QuerySet[Any], dataset: DatasetVersion) -> dict[int, RankedStatus]:
    """The leaderboard entries (by pk, of ``benchmark`` on ``dataset``) whose figures may not be ranked for their
    judge (``figure_status``), with the reason; none on a board no judge scores. One query."""
    found: dict[int, RankedStatus] = {}
    if not is_judged(benchmark):
        return found
    for pk, judge, prompt in entries.values_list("pk", "run__environment__judge", "run__environment__judge_prompt"):
        status = figure_status(judge, prompt, dataset.judge_validations)
        if not status.ranked:
            found[pk] = status
    return found


def configured_label(benchmark: Benchmark) -> str:
    """The validation label of the judge configured for ``benchmark`` under its configured prompt ("" when the
    benchmark has no judge; JudgeNotConfigured when the setting lacks it)."""
    evaluator = configured_evaluator(benchmark)
    judge_use = evaluator.judging()
    if judge_use is None:
        return ""
    spec = judging.judge_spec(judge_use.role)
    return validation_label(spec.name, spec.revision, evaluator.environment().get("judge_prompt", ""))


def board_is_ranked(benchmark: Benchmark) -> RankedStatus:
    """Whether figures the benchmark's configured judge scores now, on its current dataset version, are ranked
    (ranked: a board without a judge; not ranked: no current version, no judge configured, or no passing
    validation). Rows already scored say it themselves through ``figure_status``."""
    if not is_judged(benchmark):
        return RANKED
    try:
        label = configured_label(benchmark)
    except judging.JudgeNotConfigured:
        return RankedStatus(False, NOT_VALIDATED)
    version = benchmark.dataset_versions.filter(is_current=True).only("judge_validations").first()
    validations = version.judge_validations if version else {}
    found = validations.get(label)
    if isinstance(found, dict) and found.get("passed") is True:
        return RankedStatus(True, judge=label)
    return RankedStatus(False, NOT_VALIDATED, label)


@dataclass(frozen=True)
class JudgedBoard:
    """A judged benchmark as the page on judges shows it: its configured judge, the stored validation of that
    judge on the current dataset version (None: none yet) and whether its figures are ranked."""

    benchmark: Benchmark
    judge: str  # "" when no judge is configured
    validation: dict[str, Any] | None
    status: RankedStatus


def judged_boards() -> list[JudgedBoard]:
    """Every benchmark scored by a judge, in the site's order, with its configured judge's validation."""
    boards = []
    for benchmark in Benchmark.objects.exclude(evaluator_key="").order_by("position", "pk"):
        if not is_judged(benchmark):
            continue
        try:
            label = configured_label(benchmark)
        except judging.JudgeNotConfigured:
            label = ""
        version = benchmark.dataset_versions.filter(is_current=True).only("judge_validations").first()
        found = version.judge_validations.get(label) if version and label else None
        boards.append(JudgedBoard(benchmark, label, found, board_is_ranked(benchmark)))
    return boards


def judge_validation_run(
    *,
    benchmark_id: int,
    limit: int | None = None,
    now: dt.datetime | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Validate the benchmark's configured judge on its current dataset version (``limit``: that many items or
    tasks spread over the release), store the figures on the version under the judge's label and return
    them. Raises ValidationUnavailable, JudgeNotConfigured or JudgeUnavailable; nothing is stored then."""
    benchmark = Benchmark.objects.get(pk=benchmark_id)
    judge_use = configured_evaluator(benchmark).judging() if benchmark.evaluator_key else None
    if judge_use is None:
        raise ValidationUnavailable(
            f"benchmark '{benchmark.slug}' is not scored by a judge, so it has none to validate"
        )
    version = benchmark.dataset_versions.filter(is_current=True).first()
    if version is None:
        raise ValidationUnavailable(f"benchmark '{benchmark.slug}' has no current dataset version; import one first")
    items = dataset_items(version)
    judge = judging.judge_for(judge_use.role)
    try:
        judged = judge_use.judged(judge).judging()
        assert judged is not None  # a judged copy of a judged evaluator
        result = judged.validate(items, limit, progress)
    finally:
        judge.close()
    if result is None:
        raise ValidationUnavailable(f"benchmark '{benchmark.slug}' has nothing to validate its judge on")
    record = {
        **result.to_dict(),
        "judge": result.judge,
        "prompt": result.prompt,
        "passed": result.passed,
        "summary": result.summary(),
        "limit": limit,
        "dataset": version.tag,
        "at": (now or timezone.now()).isoformat(),
    }
    with transaction.atomic():
        locked = DatasetVersion.objects.select_for_update().get(pk=version.pk)
        locked.judge_validations = {**locked.judge_validations, result.judge: record}
        locked.save(update_fields=["judge_validations"])
    pagecache.boards_changed()
    return record


def judge_validation_notes(benchmark: Benchmark, version: DatasetVersion) -> list[MethodNote]:
    """The configured judge's validation on ``version`` as a page note (none when the benchmark has no judge,
    or none is configured)."""
    if not benchmark.evaluator_key:
        return []
    try:
        label = configured_label(benchmark)
    except judging.JudgeNotConfigured:
        return []
    if not label:
        return []
    found = version.judge_validations.get(label)
    if found is None:
        return [
            MethodNote(
                "Judge validation",
                f"The configured judge {label} has not been validated on dataset "
                f"{version.tag} yet (manage.py validate_judge {benchmark.slug}), so the "
                "figures it scores are shown but not ranked.",
            )
        ]
    scope = f" (a spread sample: limit {found['limit']:,})" if found.get("limit") else ""
    verdict = "Its figures are ranked." if found.get("passed") is True else "Its figures are shown but not ranked."
    paper = (
        f" The paper reports r = {PAPER_JUDGE_R} for its judge."
        if isinstance(configured_evaluator(benchmark), PoliConEvaluator)
        else ""
    )
    return [
        MethodNote(
            "Judge validation",
            f"The configured judge {label}, {found.get('summary', '')}{scope}; {found['at'][:10]}. {verdict}{paper}",
        )
    ]
