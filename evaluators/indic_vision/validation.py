"""IndicVisionBench VQA's judge validation: the board's judge grades a small set of answers whose quality
is known from the release itself (``evaluators.llm.validation``'s known-answer check).

For a spread sample of the judged questions (short, long and adversarial; ``KNOWN_ITEMS`` unless asked
otherwise): the released gold answer, which matches the reference by definition; the same sentence for
every question (``CONSTANT_ANSWER``); the gold answer of a question about another image; and the question
itself sent back. Each is graded by the board's judge under the board's prompts (0-10, read as 0-1); the
judge passes when the gold answers' mean exceeds every bad kind's mean by at least ``MARGIN`` (half the
scale). Multiple-choice and true/false questions are read by rule, not judged, so they are not in the set.
"""

from __future__ import annotations

from collections.abc import Sequence

from evaluators.core.types import Item, ItemScore
from evaluators.indic_vision.release import JUDGED_TYPES
from evaluators.llm.validation import KNOWN_ITEMS, KnownAnswer, known_answers, spread

#: the constant answer: a plausible reply that says nothing about any image
CONSTANT_ANSWER = "I cannot tell from this image."


def known_set(items: Sequence[Item], limit: int | None = None) -> list[KnownAnswer]:
    """The four known answers of each of ``limit`` (``KNOWN_ITEMS`` when None) judged questions spread over the
    release."""
    judged = [item for item in items if item.payload.get("type") in JUDGED_TYPES]
    picked = spread(judged, limit or KNOWN_ITEMS)
    return known_answers(
        picked,
        lambda item: str(item.payload["answer"]),
        lambda item: str(item.payload["question"]),
        CONSTANT_ANSWER,
        lambda item: str(item.payload["image"]),
    )


def grade(score: ItemScore) -> float:
    """A judged question's 0-1 figure: the judge's 0-10 grade over 10 (stored as ``overall``, 0-100)."""
    return score.scores["overall"] / 100.0
