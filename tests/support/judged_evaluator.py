"""A small judged evaluator for tests: short-answer questions graded by a judge model.

It proves the judge plumbing end to end (``judge_role`` -> the worker's ``judging().judged`` -> every
JudgeBatch in ``detail["judgements"]`` -> the run's ``environment["judge"]`` -> the leaderboard).
Its release is JSON lines ``{"id", "question", "reference", "topic"}``; a prediction is a free-text
answer, which the judge compares with the reference using the ``answer-match`` prompt (yes/no).
Registered by key ``JUDGED_KEY`` through ``LEADERBOARD_EXTRA_EVALUATORS`` or ``register``.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from evaluators.core.evaluator import Presentation, ScoredByJudge
from evaluators.core.stats import mean_with_ci
from evaluators.core.types import (
    DatasetError,
    Item,
    ItemScore,
    MetricColumn,
    MetricValue,
    ModelRequest,
    Prediction,
    SliceDimension,
)

JUDGED_KEY = "judged-demo"
DOTTED_PATH = "tests.support.judged_evaluator:JudgedEvaluator"
TOPICS = ("geography", "arithmetic")
SAMPLE = [
    {"id": "q1", "question": "What is the capital of France?", "reference": "Paris", "topic": "geography"},
    {"id": "q2", "question": "What is 2 + 2?", "reference": "4", "topic": "arithmetic"},
    {"id": "q3", "question": "What is the capital of Japan?", "reference": "Tokyo", "topic": "geography"},
]


class JudgedEvaluator(ScoredByJudge):
    key = JUDGED_KEY
    metric_columns = (MetricColumn("accuracy", "Accuracy", primary=True),)
    judge_role = "demo-judge"

    def import_release(self, path: Path, media: Any = None) -> Iterable[Item]:
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if not line.strip():
                continue
            record = json.loads(line)
            for name in ("id", "question", "reference", "topic"):
                if not isinstance(record.get(name), str) or not record[name]:
                    raise DatasetError(f"record {number}: field '{name}' must be a non-empty string")
            yield Item(
                id=record["id"],
                slices={"topic": record["topic"]},
                payload={"question": record["question"], "reference": record["reference"]},
            )

    def presentation(self) -> JudgedPresentation:
        return JudgedPresentation(self)

    def build_requests(self, item: Item, settings: dict[str, Any]) -> list[ModelRequest]:
        return [
            ModelRequest(
                item_id=item.id, messages=[{"role": "user", "content": item.payload["question"]}], max_tokens=64
            )
        ]

    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        batch = self.require_judge().ask_many(
            "answer-match",
            shared={"question": item.payload["question"], "reference": item.payload["reference"]},
            each=[{"answer": p.output} for p in predictions],
            choices=["yes", "no"],
        )
        verdicts = [
            {"verdict": "pass" if call.parsed == "yes" else "fail", "reason": call.error or f"judge: {call.parsed}"}
            for call in batch.calls
        ]
        accuracy = sum(v["verdict"] == "pass" for v in verdicts) / len(verdicts) if verdicts else 0.0
        return ItemScore(
            item_id=item.id,
            slices=dict(item.slices),
            scores={"accuracy": accuracy},
            detail={"samples": verdicts, "judgements": [batch.to_dict()]},
        )

    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        metrics = [
            MetricValue(
                "accuracy", *mean_with_ci([s.scores["accuracy"] for s in item_scores], seed=seed), n=len(item_scores)
            )
        ]
        for topic in TOPICS:
            values = [s.scores["accuracy"] for s in item_scores if s.slices.get("topic") == topic]
            if values:
                metrics.append(
                    MetricValue("accuracy", *mean_with_ci(values, seed=seed), n=len(values), slice={"topic": topic})
                )
        return metrics


class JudgedPresentation(Presentation[JudgedEvaluator]):
    """The topic filter, and a sample release written on demand."""

    slice_dimensions = (SliceDimension("topic", "Topic", TOPICS),)

    def sample_dataset(self) -> Path:
        path = Path(tempfile.mkdtemp(prefix="judged-")) / "release.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in SAMPLE))
        return path
