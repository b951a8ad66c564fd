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

from evaluators.causal_pitfalls.baselines import NO_ANALYSIS_ANSWER, rubric_restated
from evaluators.core.types import Item
from evaluators.llm.validation import KNOWN_ITEMS, KnownAnswer, known_answers, spread


def known_set(question: Callable[[Item], str], items: Sequence[Item], limit: int | None = None) -> list[KnownAnswer]:
    """The four known answers of each of ``limit`` (``KNOWN_ITEMS`` when None) items spread over the release;
    ``question`` is the question as the board sends it (the evaluator's ``question``)."""
    picked = spread(list(items), limit or KNOWN_ITEMS)
    return known_answers(
        picked, rubric_restated, question, NO_ANALYSIS_ANSWER, lambda item: str(item.payload["challenge"])
    )
