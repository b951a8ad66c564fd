"""CausalPitfalls' judge validation: the board's judge scores a small set of answers whose quality is known
from the release itself (``evaluators.llm.validation``'s known-answer check).

For a spread sample of items (one per challenge and dataset where the release has enough; ``KNOWN_ITEMS``
unless asked otherwise): the answer that meets the rubric, its criteria filled from the answer key and
written out as the answer ("Rubric restated", the board's ceiling row: every criterion is stated); the
same non-answer for every item ("No analysis", the floor row's sentence); the rubric-meeting answer of an
item from another challenge (well formed, about other data and another pitfall); and the item's own
question sent back (it restates the task and concludes nothing). Each is scored by the board's judge
under the board's prompt; the judge passes when the rubric-meeting answers' mean exceeds every bad kind's
mean by at least ``MARGIN`` (half the scale).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from evaluators.causal_pitfalls.baselines import NO_ANALYSIS_ANSWER, rubric_restated
from evaluators.core.types import Item, ItemScore
from evaluators.llm.validation import KNOWN_ITEMS, KnownAnswer, KnownAnswerValidation, known_answers, spread, validate_known_answers

if TYPE_CHECKING:
    from evaluators.causal_pitfalls.evaluator import CausalPitfallsEvaluator


def known_set(evaluator: CausalPitfallsEvaluator, items: Sequence[Item], limit: int | None = None) -> list[KnownAnswer]:
    """The four known answers of each of ``limit`` (``KNOWN_ITEMS`` when None) items spread over the release."""
    picked = spread(list(items), limit or KNOWN_ITEMS)
    return known_answers(picked, rubric_restated, evaluator.question, NO_ANALYSIS_ANSWER,
                         lambda item: str(item.payload["challenge"]))


def reliability(score: ItemScore) -> float:
    """An item's 0-1 figure: the share of its rubric's criteria the judge found met."""
    from evaluators.causal_pitfalls.evaluator import RELIABILITY

    return score.scores[RELIABILITY]


def validate(evaluator: CausalPitfallsEvaluator, items: Sequence[Item], limit: int | None = None,
             progress: Callable[[int, int], None] | None = None) -> KnownAnswerValidation:
    """The known-answer check of ``evaluator``'s judge (``with_judge`` first) on ``items``."""
    return validate_known_answers(evaluator, known_set(evaluator, items, limit), reliability, progress)
