"""Judge validation, what every judged benchmark shares: the label a validation is stored under, what a
result offers the site, and the known-answer check of the rubric and reference boards.

A validation belongs to one judge asked one prompt: ``validation_label(name, revision, prompt)`` names
both, the prompt being the one the evaluator actually sends (its ``environment()["judge_prompt"]``, which
every run records too), never the setting's ``prompt_version``, so a run's figures and the validation
of its judge meet under the same label.

The known-answer check (CausalPitfalls, IndicVisionBench VQA) judges a small set built from the release
whose quality is known without asking any model: for each of a spread sample of items, an answer that
meets its rubric or matches its reference (``MEETS``) and three that do not: the same sentence for every
item (``CONSTANT``), another item's good answer (``OFF_TOPIC``) and the item's own question sent back
(``RESTATED``). Every answer is scored by the board's own ``score_item`` on 0-1. The separation is the
good answers' mean minus the highest mean of the three bad kinds; the judge passes when the separation
is at least ``MARGIN`` (0.5: half the scale).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from evaluators.core.types import Item, ItemScore, Prediction, ProtocolRow
from evaluators.llm.judges import Judge

MEETS, CONSTANT, OFF_TOPIC, RESTATED = "meets", "constant", "off_topic", "restated"
BAD_KINDS: tuple[str, ...] = (CONSTANT, OFF_TOPIC, RESTATED)
KIND_LABELS = {
    MEETS: "good answers",
    CONSTANT: "one constant sentence",
    OFF_TOPIC: "another item's good answer",
    RESTATED: "the question sent back",
}
#: the separation (good answers' mean minus the best-scored bad kind's mean, 0-1) a judge must reach
MARGIN = 0.5
#: items in the known-answer set unless the operator asks for another number (four answers each)
KNOWN_ITEMS = 12


def validation_label(name: str, revision: str, prompt: str) -> str:
    """What a validation is stored under: the judge model and the prompt it was asked."""
    return f"{name}@{revision} (prompt {prompt})"


class JudgeCheck(Protocol):
    """What the site reads of any validation: whom it validated, under which prompt, pass or fail,
    one sentence saying what was measured, and the figures to store."""

    @property
    def judge(self) -> str: ...

    @property
    def prompt(self) -> str: ...

    @property
    def passed(self) -> bool: ...

    def summary(self) -> str: ...

    def to_dict(self) -> dict[str, Any]: ...


class JudgedScoring(Protocol):
    """What the known-answer check needs of an evaluator: its judge, its own scoring and the prompt it reports."""

    def require_judge(self) -> Judge: ...

    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore: ...

    def environment(self) -> dict[str, str]: ...


@dataclass(frozen=True)
class KnownAnswer:
    """One answer of the known-quality set: the item, the kind (``MEETS`` or a bad kind) and the text."""

    item: Item
    kind: str
    text: str


def spread(items: Sequence[Item], limit: int | None) -> list[Item]:
    """``limit`` items spread evenly over ``items`` (every k-th), all of them when ``limit`` is None or larger."""
    if limit is None or limit <= 0 or limit >= len(items):
        return list(items)
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def known_answers(
    items: Sequence[Item],
    good: Callable[[Item], str],
    question: Callable[[Item], str],
    constant: str,
    topic: Callable[[Item], str],
) -> list[KnownAnswer]:
    """The four answers of each item: ``good(item)``, ``constant``, the good answer of the next item (in
    order, wrapping) whose ``topic`` differs, and ``question(item)``. Refused when every item shares one
    topic (no off-topic answer can be built)."""
    out: list[KnownAnswer] = []
    for index, item in enumerate(items):
        others = [items[(index + step) % len(items)] for step in range(1, len(items))]
        other = next((o for o in others if topic(o) != topic(item)), None)
        if other is None:
            raise ValueError("the known-answer set needs items on at least two topics for its off-topic answers")
        out += [
            KnownAnswer(item, MEETS, good(item)),
            KnownAnswer(item, CONSTANT, constant),
            KnownAnswer(item, OFF_TOPIC, good(other)),
            KnownAnswer(item, RESTATED, question(item)),
        ]
    return out


def separation(means: dict[str, float]) -> float:
    """The good answers' mean minus the highest mean of the bad kinds."""
    return means[MEETS] - max(means[kind] for kind in BAD_KINDS)


@dataclass(frozen=True)
class KnownAnswerValidation:
    """The outcome of a known-answer check: mean score (0-1) per kind, the separation and the verdict."""

    judge: str
    prompt: str
    items: int
    answers: int
    means: dict[str, float]
    separation: float
    margin: float
    passed: bool
    fallbacks: int

    def summary(self) -> str:
        kinds = ", ".join(f"{KIND_LABELS[k]} {self.means[k]:.0%}" for k in (MEETS, *BAD_KINDS))
        verdict = "passes" if self.passed else "fails"
        return (
            f"on {self.items} items of known quality ({self.answers} answers) it scored {kinds}: a separation of "
            f"{self.separation:.0%} (good answers' mean minus the best-scored bad kind's), so it {verdict} the "
            f"rule of at least {self.margin:.0%} ({self.fallbacks} fallback(s))"
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "summary": self.summary()}


def validate_known_answers(
    evaluator: JudgedScoring,
    answers: Sequence[KnownAnswer],
    score_of: Callable[[ItemScore], float],
    progress: Callable[[int, int], None] | None = None,
    margin: float = MARGIN,
) -> KnownAnswerValidation:
    """Score every known answer with ``evaluator``'s own ``score_item`` (its judge given by ``with_judge``)
    and ``score_of`` (the item's 0-1 figure); JudgeUnavailable propagates."""
    judge = evaluator.require_judge()
    totals = {kind: [0.0, 0] for kind in (MEETS, *BAD_KINDS)}
    fallbacks = 0
    for done, answer in enumerate(answers, 1):
        score = evaluator.score_item(answer.item, [Prediction(item_id=answer.item.id, output=answer.text)])
        totals[answer.kind][0] += score_of(score)
        totals[answer.kind][1] += 1
        fallbacks += sum(
            bool(call.get("error_kind"))
            for batch in score.detail.get("judgements", [])
            for call in batch.get("calls", [])
        )
        if progress is not None:
            progress(done, len(answers))
    if any(count == 0 for _, count in totals.values()):
        raise ValueError("the known-answer set lacks a kind of answer")
    means = {kind: total / count for kind, (total, count) in totals.items()}
    found = separation(means)
    prompt = evaluator.environment()["judge_prompt"]
    return KnownAnswerValidation(
        judge=validation_label(judge.spec.name, judge.spec.revision, prompt),
        prompt=prompt,
        items=len({a.item.id for a in answers}),
        answers=len(answers),
        means=means,
        separation=found,
        margin=margin,
        passed=found >= margin,
        fallbacks=fallbacks,
    )


def known_answer_row(slug: str, good: str, restated: str, source: str) -> ProtocolRow:
    """The method card's "Judge validation" row of a board checked with known answers: ``good`` says what
    its known good answer is, ``restated`` what its question-restating one sends back."""
    return ProtocolRow(
        "Judge validation",
        "None: the released code does not check its judge",
        f"The configured judge grades a set of known quality built from this dataset: for {KNOWN_ITEMS} items spread "
        f"over it, {good}, one constant sentence for every item, another item's good answer (off topic) and "
        f"{restated}. It passes when the good answers' mean exceeds each other kind's mean by at least "
        f"{MARGIN * 100:g} points out of 100 (manage.py validate_judge {slug}); the board ranks only figures of a "
        'judge that passed, and shows the others as "judge not validated: not ranked"',
        "The judge here is not the authors'; a small judge can give a constant sentence full marks, so a ranking "
        "needs a judge that is shown to tell good answers from bad ones",
        source,
    )
