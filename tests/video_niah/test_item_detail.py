"""What a Video NIAH item's detail keeps for the per-item page: the question as asked, its options and
the needle images in the order the model saw them, beside the answer, its reading and the gold."""

from __future__ import annotations

from evaluators.core import Item, Prediction
from evaluators.video_niah.evaluator import VideoNIAHMultiEvaluator, VideoNIAHSingleEvaluator


def test_the_detail_holds_the_question_options_and_needles_in_order() -> None:
    item = Item(
        "multi/c1/32/q1",
        {"frames": "32", "question": "q1"},
        {
            "haystack": "0" * 64 + ".json",
            "count": 35,
            "insert": {"34": "c" * 64 + ".jpg", "5": "a" * 64 + ".jpg", "17": "b" * 64 + ".jpg"},
            "question": "What does the last frame of the chain show?",
            "options": ["cat", "dog", "owl", "fox"],
            "answer": "C",
        },
    )
    score = VideoNIAHMultiEvaluator().score_item(item, [Prediction(item.id, "B")])
    assert score.scores["correct"] == 0.0
    assert score.detail["question"] == "What does the last frame of the chain show?"
    assert score.detail["options"] == ["cat", "dog", "owl", "fox"]
    assert score.detail["needles"] == [
        "a" * 64 + ".jpg",
        "b" * 64 + ".jpg",
        "c" * 64 + ".jpg",
    ]  # by position, not as stored
    assert (score.detail["answer"], score.detail["parsed"], score.detail["gold"]) == ("B", "B", "C")


def test_a_hop_belongs_with_the_chains_other_hop_at_the_same_n() -> None:
    multi = VideoNIAHMultiEvaluator()
    assert multi.presentation().companion_items("multi/c1/32/q2")[0] == "multi/c1/32/q1"
    assert multi.presentation().companion_items("multi/c1/32/q1/r2") == [
        "multi/c1/32/q2",
        *(f"multi/c1/32/q2/r{k}" for k in range(4)),
    ]
    assert VideoNIAHSingleEvaluator().presentation().companion_items("single/n1/16/40") == []
