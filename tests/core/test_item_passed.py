"""``Evaluator.item_passed``: full marks as each benchmark's item scores mean them (the per-item page's
"only items not fully passed"), on item scores written by hand; None where a benchmark has none."""

from __future__ import annotations

import pytest

from evaluators.core import ItemScore, evaluator_for, registered_keys


def score(scores: dict[str, float], item_id: str = "item") -> ItemScore:
    return ItemScore(item_id=item_id, slices={}, scores=scores)


@pytest.mark.parametrize(
    ("key", "scores", "passed"),
    [
        ("multi-lcb", {"n": 10.0, "c": 10.0, "pass@1": 1.0}, True),
        ("multi-lcb", {"n": 10.0, "c": 9.0, "pass@1": 0.9}, False),
        ("multi-lcb", {"n": 0.0, "c": 0.0}, False),  # no sample: nothing passed
        ("policon", {"sm_pass": 1.0}, True),
        ("policon", {"veto_pass": 0.5}, False),  # one sample of two passed
        ("policon", {"rawls": 9.0}, None),  # a welfare objective is graded
        ("causal-pitfalls", {"causal_reliability": 1.0}, True),
        ("causal-pitfalls-code", {"causal_reliability": 0.75, "code_failure_rate": 0.0, "error_rate": 0.0}, False),
        ("indic-vision-ocr", {"ned_char": 0.0, "ned_word": 0.0, "coverage": 1.0}, True),  # a perfect page
        ("indic-vision-ocr", {"ned_char": 3.2, "ned_word": 10.0, "coverage": 1.0}, False),
        ("indic-vision-mmt", {"bleu": 100.0, "coverage": 1.0}, None),
        ("indic-vision-vqa", {"mcq": 1.0, "overall": 100.0}, True),
        ("indic-vision-vqa", {"long": 9.0, "overall": 90.0}, False),
        ("video-niah-single", {"correct": 1.0, "over_limit": 0.0}, True),
        ("video-niah-multi", {"correct": 0.0, "over_limit": 0.0}, False),  # a wrong hop
        ("video-niah-multi", {"correct": 1.0, "over_limit": 0.0}, True),
        ("video-niah-multi", {"over_limit": 1.0}, False),  # over the model's limit: a miss
    ],
)
def test_full_marks_per_benchmark(key: str, scores: dict[str, float], passed: bool | None) -> None:
    assert evaluator_for(key).presentation().item_passed(score(scores)) is passed


def test_every_registered_benchmark_answers() -> None:
    for key in registered_keys():
        assert evaluator_for(key).presentation().item_passed(score({})) in (True, False, None)
