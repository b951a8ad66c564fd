"""Video NIAH's aggregations keep what their metrics read (ids, slices, scores), never the answers, the
questions shown or the needles: the same metrics as ``aggregate`` in any order of scores (rotations of a
question and the two hops of a chain arriving apart), and a peak that grows by a few hundred bytes a
score."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evaluators.core.types import Item, ItemScore, Prediction
from evaluators.video_niah.evaluator import VideoNIAHMultiEvaluator, VideoNIAHSingleEvaluator
from tests.support.aggregation import assert_flat, assert_same_as_aggregate, bulk, streamed

SINGLE, MULTI = VideoNIAHSingleEvaluator(), VideoNIAHMultiEvaluator()


def rotations(item: Item) -> list[Item]:
    """The item asked circularly: its options rotated four times (an item without options as it is)."""
    options = item.payload["options"]
    if not options:
        return [item]
    gold = "ABCD".index(item.payload["answer"])
    return [
        Item(
            f"{item.id}/r{k}",
            item.slices,
            {**item.payload, "options": options[k:] + options[:k], "answer": "ABCD"[(gold - k) % 4]},
        )
        for k in range(4)
    ]


def answer(item: Item, n: int, largest: str) -> Prediction:
    """Right, wrong, or over the model's limit at the ``largest`` N, by ``n``."""
    if item.slices["frames"] == largest and n % 3 == 0:
        return Prediction(item.id, "", error_kind="over_limit", error="endpoint: At most 16 image(s)")
    gold = item.payload["answer"]
    return Prediction(
        item.id, gold if n % 7 else ("A" if gold != "A" else "B") if item.payload["options"] else "no idea"
    )


@pytest.mark.parametrize("evaluator", [SINGLE, MULTI], ids=["single", "multi"])
def test_the_sample_scored_gives_the_same_metrics_streamed_in_any_order(evaluator):
    items = [
        rotated
        for item in evaluator.import_release(evaluator.presentation().sample_dataset())
        for rotated in rotations(item)
    ]
    largest = max((item.slices["frames"] for item in items), key=int)
    scores = [evaluator.score_item(item, [answer(item, n, largest)]) for n, item in enumerate(items)]
    scores[2] = ItemScore(scores[2].item_id, scores[2].slices, {}, error="the frames could not be read")
    headline = {m.key: m.value for m in evaluator.aggregate(scores) if not m.slice}
    assert 0 < headline["answered"] < 1 and 0 < headline["accuracy"] < headline["accuracy_within_limit"]
    for seed in (0, 7):
        assert_same_as_aggregate(evaluator, scores, seed=seed)


def test_a_hand_computed_run():
    # N=4: right at depth 0, wrong at 100; N=8: right at 0, over the limit at 100. On the whole grid 2 of 4
    # (the refused question a miss); within the limit 2 of 3; N=4 reaches 0.5, N=8 0.5: none reaches 0.9
    def hand(frames: str, depth: str, correct: float | None) -> ItemScore:
        scores = {"over_limit": 1.0} if correct is None else {"correct": correct, "over_limit": 0.0}
        return ItemScore(f"single/needle/{frames}/{depth}", {"frames": frames, "depth": depth}, scores, {"answer": "B"})

    scores = [hand("4", "0", 1.0), hand("4", "100", 0.0), hand("8", "0", 1.0), hand("8", "100", None)]
    metrics = {(m.key, tuple(m.slice.items())): m.value for m in streamed(SINGLE.aggregation(seed=5), scores[::-1])}
    assert metrics[("accuracy", ())] == 0.5 and metrics[("accuracy_within_limit", ())] == pytest.approx(2 / 3)
    assert metrics[("answered", ())] == 0.75 and metrics[("largest_answered", ())] == 4.0
    assert metrics[("accuracy", (("frames", "8"), ("depth", "0")))] == 1.0 and metrics[("frames_at_90", ())] == 0.0


def synthetic(evaluator):
    """Scores shaped as ``evaluator``'s board gives them, each answer and question a long text of its own."""

    def scores(count: int) -> Iterator[ItemScore]:
        for n in range(count):
            needle, cell = divmod(n, 12)
            frames = str(4 << (cell // 3 if evaluator is SINGLE else cell // 2 % 6))
            item_id = (
                f"single/needle-{needle}/{frames}/{(cell % 3) * 50}"
                if evaluator is SINGLE
                else f"multi/chain-{needle}/{frames}/q{cell % 2 + 1}/r{cell // 6}"
            )
            slices = (
                {"frames": frames, "depth": str((cell % 3) * 50)}
                if evaluator is SINGLE
                else {"frames": frames, "question": f"q{cell % 2 + 1}"}
            )
            values = {"over_limit": 1.0} if n % 17 == 0 else {"correct": float(n % 3 > 0), "over_limit": 0.0}
            text = bulk(item_id)
            yield ItemScore(
                item_id, slices, values, {"answer": text[:2000], "question": text, "needles": [f"{needle:064d}.jpg"]}
            )

    return scores


@pytest.mark.parametrize("evaluator", [SINGLE, MULTI], ids=["single", "multi"])
def test_scoring_ten_times_the_items_holds_a_few_hundred_bytes_more_a_score(evaluator):
    assert_flat(evaluator, synthetic(evaluator))
