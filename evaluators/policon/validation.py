"""Judge validation: the configured judge's votes on the real adopted resolutions beside the parties'
real votes.

Every released task carries the resolution the Parliament adopted and, per party, ``choice``: the share
of its members who voted for it, in tenths (0..9). Those choices are ground truth for the judge: asked
about the real resolution with the party's stance, a judge that reads stances as the parties did gives
digits close to them. ``validate_judge`` asks the evaluator's judge, under its protocol, for every party
of every task (or an evenly spread ``limit`` of them) and reports Pearson r and exact-band agreement
(0-3 / 4-6 / 7-9), the figures the paper gives for its own judge (r = 0.83). A task without its
resolution, and a party without a stance, have nothing to judge and are counted as skipped. The judge
passes when r is at least ``PASS_R`` (0.7: close to the paper's own judge); the board ranks only
figures of a judge that passed. The validation is stored under the label of the prompt actually asked
(``evaluators.llm.validation.validation_label``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Protocol

from evaluators.llm.judges import Judge
from evaluators.llm.types import JudgeBatch
from evaluators.llm.validation import validation_label
from evaluators.policon.prompts import JudgeProtocol
from evaluators.policon.release import Task


class VotingJudge(Protocol):
    """What the validation asks of PoliCon's evaluator (``with_judge`` given): its judge, its protocol and
    the votes it asks and reads."""

    @property
    def protocol(self) -> JudgeProtocol: ...

    def require_judge(self) -> Judge: ...

    def ask_votes(self, task: Task, resolution: str) -> JudgeBatch: ...

    def votes_of(self, batch: JudgeBatch) -> list[int]: ...


#: the Pearson r a judge must reach to pass (the paper reports 0.83 for its own judge)
PASS_R = 0.7


@dataclass(frozen=True)
class JudgeValidation:
    """The outcome of one validation: the judge, its protocol, the figures and what was skipped."""

    judge: str
    prompt: str
    pairs: int
    pearson_r: float | None  # None when either side has no spread
    band_agreement: float
    fallbacks: int
    tasks: int
    skipped_tasks: int  # no adopted resolution in the release
    skipped_parties: int  # no stance in the release

    @property
    def passed(self) -> bool:
        return self.pearson_r is not None and self.pearson_r >= PASS_R

    def summary(self) -> str:
        r = "undefined (no spread)" if self.pearson_r is None else f"{self.pearson_r:.2f}"
        return (
            f"asked about the real adopted resolutions, against each party's real vote (in tenths): Pearson r = {r}, "
            f"exact-band agreement (0-3 / 4-6 / 7-9) {self.band_agreement:.0%}, over {self.pairs:,} votes on "
            f"{self.tasks:,} tasks ({self.skipped_tasks} without a resolution, {self.skipped_parties} parties without "
            f"a stance skipped; {self.fallbacks} fallback votes); it {'passes' if self.passed else 'fails'} the rule "
            f"of r at least {PASS_R}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "passed": self.passed, "summary": self.summary()}


def band(vote: int) -> int:
    """The rubric's band of a digit: 0 for 0-3, 1 for 4-6, 2 for 7-9."""
    return 0 if vote <= 3 else 1 if vote <= 6 else 2


def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r of two equally long samples; None when either is constant or there are fewer than 2."""
    if len(xs) != len(ys):
        raise ValueError(f"{len(xs)} values against {len(ys)}")
    if len(xs) < 2:
        return None
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    cov = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))
    var_x, var_y = sum((x - mean_x) ** 2 for x in xs), sum((y - mean_y) ** 2 for y in ys)
    return cov / math.sqrt(var_x * var_y) if var_x and var_y else None


def validation_tasks(payloads: Sequence[dict[str, Any]], limit: int | None = None) -> list[Task]:
    """One task per distinct ``task`` key of the items' payloads, in order; ``limit`` keeps that many,
    spread evenly over the release (every k-th), so a quick check still covers each party count."""
    tasks = list({p["task"]: Task.from_payload(p) for p in payloads}.values())
    if limit is not None and 0 < limit < len(tasks):
        step = len(tasks) / limit
        tasks = [tasks[int(i * step)] for i in range(limit)]
    return tasks


def validate_judge(
    evaluator: VotingJudge, tasks: Sequence[Task], progress: Callable[[int, int], None] | None = None
) -> JudgeValidation:
    """Ask ``evaluator``'s judge (``with_judge`` first) about each task's real resolution for each party
    with a stance; compare the digits with the real choices. JudgeUnavailable propagates."""
    judge = evaluator.require_judge()
    real: list[int] = []
    judged: list[int] = []
    fallbacks = skipped_tasks = skipped_parties = 0
    for done, task in enumerate(tasks, 1):
        if not task.resolution:
            skipped_tasks += 1
            continue
        with_stance = [p for p in task.parties if p.stance]
        skipped_parties += len(task.parties) - len(with_stance)
        batch = evaluator.ask_votes(replace(task, parties=tuple(with_stance)), task.resolution)
        votes = evaluator.votes_of(batch)
        fallbacks += sum(call.fallback for call in batch.calls)
        real += [p.choice for p in with_stance]
        judged += votes
        if progress is not None:
            progress(done, len(tasks))
    agreement = sum(band(a) == band(b) for a, b in zip(real, judged)) / len(real) if real else 0.0
    r = pearson([float(v) for v in real], [float(v) for v in judged])
    return JudgeValidation(
        judge=validation_label(judge.spec.name, judge.spec.revision, evaluator.protocol.key),
        prompt=evaluator.protocol.key,
        pairs=len(real),
        pearson_r=r,
        band_agreement=agreement,
        fallbacks=fallbacks,
        tasks=len(tasks),
        skipped_tasks=skipped_tasks,
        skipped_parties=skipped_parties,
    )
