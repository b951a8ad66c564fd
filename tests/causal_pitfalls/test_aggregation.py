"""CausalPitfalls' aggregation keeps what its metrics read (ids, slices, scores, each judge call's
fallback), never the answers, rubric verdicts or the judge's texts: the same metrics as ``aggregate``
in any order of scores (its reliability bootstrap draws datasets by position, so the dataset's order
matters), and a peak that grows by a few hundred bytes a score."""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from evaluators.causal_pitfalls.card import ERROR_RATE
from evaluators.causal_pitfalls.evaluator import (
    CODE_FAILURE,
    RELIABILITY,
    CausalPitfallsCodeEvaluator,
    CausalPitfallsEvaluator,
)
from evaluators.causal_pitfalls.release import CATEGORIES
from evaluators.core.types import ItemScore, Prediction, Stage
from evaluators.llm.judges import FALLBACK_METRIC
from tests.support.aggregation import assert_flat, assert_same_as_aggregate, bulk, streamed, with_scripted_judge
from tests.support.openai_server import OpenAIServer, Reply

DIRECT, CODE = CausalPitfallsEvaluator(), CausalPitfallsCodeEvaluator()
ITEMS = list(DIRECT.import_release(DIRECT.presentation().sample_dataset()))


def grade(request: dict[str, Any]) -> Reply:
    """Criteria met by a hash of the answer; about one answer in six not a list of marks (a fallback)."""
    prompt = request["messages"][-1]["content"]
    count = int(re.search(r"exactly (\d+) of them", prompt).group(1))
    h = zlib.crc32(prompt.encode())
    return Reply(
        text="I think it is good" if h % 6 == 0 else json.dumps({"scores": [(h >> k) & 1 for k in range(count)]})
    )


def answered(item_id: str, n: int) -> Prediction:
    """An answer to the code-assisted protocol, its program's run ok, failed or absent by ``n``."""
    status = ("ok", "error", "no_code")[n % 3]
    output = f"The effect of {item_id} is small" + (" but the program failed" if n % 4 == 0 else "")
    transcript = (
        Stage(messages=[], answer="```python\nprint(1)\n```"),
        Stage(messages=[], answer=output, tool={"name": "python", "status": status}),
    )
    return Prediction(item_id, output, transcript=transcript)


@pytest.mark.parametrize("evaluator", [DIRECT, CODE], ids=["direct", "code"])
def test_the_sample_scored_by_a_judge_gives_the_same_metrics_streamed_in_any_order(evaluator):
    with OpenAIServer(grade) as server:
        judged = with_scripted_judge(evaluator, server)
        scores = [
            judged.score_item(item, [answered(item.id, n)] if n % 9 else [Prediction(item.id, "", error_kind="empty")])
            for n, item in enumerate(ITEMS)
        ]
    scores[5] = ItemScore(scores[5].item_id, scores[5].slices, {}, error="the sandbox failed")
    headline = {m.key: m for m in evaluator.aggregate(scores) if not m.slice}
    assert 0 < headline[FALLBACK_METRIC].value < 1 and headline[RELIABILITY].ci_low is not None
    assert (CODE_FAILURE in headline) == (evaluator is CODE)
    for seed in (0, 7):
        assert_same_as_aggregate(evaluator, scores, seed=seed)


def test_a_hand_computed_run():
    # confounding: Simpson's dataset A at 0.5 and B at 1 (its mean 0.75); mediation: one dataset at 0.2.
    # Causal reliability is the mean of the category means: (0.75 + 0.2) / 2 = 0.475 (the item mean is 0.567)
    def hand(item_id: str, value: float) -> ItemScore:
        challenge, _, difficulty = item_id.split("/")
        return ItemScore(
            item_id,
            {"category": CATEGORIES[challenge], "challenge": challenge, "difficulty": difficulty},
            {RELIABILITY: value, CODE_FAILURE: 0.0, ERROR_RATE: 0.0},
            {"samples": [{"reason": "text"}], "judgements": [{"calls": [{"error_kind": ""}]}]},
        )

    scores = [
        hand("simpson_paradox/a/easy", 0.5),
        hand("simpson_paradox/b/easy", 1.0),
        hand("sequential_mediator/c/easy", 0.2),
    ]
    metrics = {(m.key, tuple(m.slice.items())): m for m in streamed(DIRECT.aggregation(seed=2), scores[::-1])}
    assert metrics[(RELIABILITY, ())].value == pytest.approx(0.475) and metrics[(RELIABILITY, ())].n == 3
    assert metrics[(RELIABILITY, (("category", "confounding"),))].value == pytest.approx(0.75)
    assert metrics[(FALLBACK_METRIC, ())].value == 0.0


def synthetic(count: int) -> Iterator[ItemScore]:
    """CausalPitfalls-shaped scores: a challenge's datasets at five difficulties, each answer, judge
    prompt and reason a long text of its own."""
    challenges = sorted(CATEGORIES)
    difficulties = ("very_easy", "easy", "medium", "hard", "very_hard")
    for n in range(count):
        dataset, level = divmod(n, 5)
        challenge = challenges[dataset % len(challenges)]
        item_id = f"{challenge}/data{dataset}/{difficulties[level]}"
        text = bulk(item_id)
        yield ItemScore(
            item_id,
            {"category": CATEGORIES[challenge], "challenge": challenge, "difficulty": difficulties[level]},
            {RELIABILITY: (n % 7) / 6, CODE_FAILURE: float(n % 3 == 0), ERROR_RATE: float(n % 5 == 0)},
            {
                "samples": [{"verdict": "scored", "reason": text}],
                "criteria": ["A", "B"],
                "judgements": [
                    {
                        "shared": {},
                        "calls": [
                            {
                                "variables": {"answer": text},
                                "raw": text[:100],
                                "error_kind": "malformed" if n % 11 == 0 else "",
                            }
                        ],
                    }
                ],
            },
        )


@pytest.mark.parametrize("evaluator", [DIRECT, CODE], ids=["direct", "code"])
def test_scoring_ten_times_the_items_holds_a_few_hundred_bytes_more_a_score(evaluator):
    assert_flat(evaluator, synthetic)
