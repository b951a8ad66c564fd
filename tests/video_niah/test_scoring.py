"""Video NIAH scoring: letters and short answers read without guessing, a request over the model's limit
shown apart from wrong answers in its cell (classified from the servers' own refusals) and counted as a
miss on the whole grid, so a model that refuses long cells ranks below one that answers them all; the
accuracy within the limit, the share answered, the largest N answered and at 0.9, circular evaluation,
and multi hop's (Q1 + Q2) / 2 and both-correct per N. Expected values are counted by hand."""

from __future__ import annotations

import pytest

from evaluators.core.types import Item, Prediction
from evaluators.llm.types import ModelError
from evaluators.video_niah.evaluator import VideoNIAHMultiEvaluator, VideoNIAHSingleEvaluator

SINGLE, MULTI = VideoNIAHSingleEvaluator(), VideoNIAHMultiEvaluator()


def item(item_id: str, slices: dict, options=("circle", "square", "triangle", "star"), answer="B") -> Item:
    return Item(
        item_id,
        slices,
        {
            "haystack": "0" * 64 + ".json",
            "count": 4,
            "insert": {},
            "question": "?",
            "options": list(options) if options else None,
            "answer": answer,
        },
    )


@pytest.mark.parametrize(
    "reply, correct",
    [
        ("B", True),
        ("<B>", True),
        ("(b)", True),
        ("B. square", True),
        ("The answer is B.", True),
        ("square", True),
        ("A", False),
        ("", False),
        ("I am not sure", False),
    ],
)
def test_option_letters_are_read_robustly(reply, correct):
    score = SINGLE.score_item(item("single/n/4/0", {"frames": "4", "depth": "0"}), [Prediction("x", reply)])
    assert score.scores == {"correct": float(correct), "over_limit": 0.0}


@pytest.mark.parametrize(
    "reply, gold, correct",
    [
        ("Yellow", "Yellow", True),
        ("The triangle is yellow.", "Yellow", True),
        ("yellowish", "Yellow", False),
        ("7", "7", True),
        ("It shows 17", "7", False),
        ("There is a 7 on it", "7", True),
    ],
)
def test_short_answers_count_when_stated(reply, gold, correct):
    score = SINGLE.score_item(
        item("single/n/4/0", {"frames": "4", "depth": "0"}, options=None, answer=gold), [Prediction("x", reply)]
    )
    assert score.scores["correct"] == float(correct)


@pytest.mark.parametrize(
    "status, message, over",
    [
        (400, "This model's maximum context length is 2048 tokens. However, your request has 2270 input tokens.", True),
        (400, "At most 16 image(s) may be provided in one prompt.", True),
        (400, "context_length_exceeded", True),
        (400, "Invalid image data", False),
        (500, "maximum context length", False),  # a server error is not a refusal
    ],
)
def test_over_the_limit_is_read_from_the_servers_refusal(status, message, over):
    assert ModelError("endpoint", f"HTTP {status}: {message}", status=status).over_limit is over


def test_cells_over_the_limit_are_kept_apart_from_wrong_answers():
    scores = []
    for count, needles in (("4", ["B", "B"]), ("8", ["B", "A"]), ("16", ["B", "B"])):
        for depth in ("0", "100"):
            for n, reply in enumerate(needles):
                scores.append(
                    SINGLE.score_item(
                        item(f"single/needle{n}/{count}/{depth}", {"frames": count, "depth": depth}),
                        [Prediction("x", reply)],
                    )
                )
    for depth in ("0", "100"):
        for n in range(2):
            scores.append(
                SINGLE.score_item(
                    item(f"single/needle{n}/32/{depth}", {"frames": "32", "depth": depth}),
                    [Prediction("x", "", error_kind="over_limit", error="endpoint: At most 16 image(s)")],
                )
            )
    assert scores[-1].scores == {"over_limit": 1.0} and scores[-1].detail["over_limit"].startswith("endpoint")
    metrics = {(m.key, tuple(sorted(m.slice.items()))): m for m in SINGLE.aggregate(scores)}
    # 16 questions on the grid: 10 right, 2 wrong, 4 over the limit (misses on the whole grid)
    assert metrics[("accuracy", ())].value == pytest.approx(10 / 16)
    assert metrics[("accuracy_within_limit", ())].value == pytest.approx(10 / 12)
    assert metrics[("answered", ())].value == pytest.approx(12 / 16)
    assert metrics[("largest_answered", ())].value == 16.0
    assert ("accuracy", (("depth", "0"), ("frames", "32"))) not in metrics  # the heatmap cell reads "over limit"
    assert metrics[("over_limit", (("depth", "0"), ("frames", "32")))].value == 1.0
    assert metrics[("over_limit", ())].value == pytest.approx(4 / 16)
    assert metrics[("accuracy", (("frames", "8"),))].value == 0.5
    # a depth row spans every N: its over-limit cell is a miss (depth 0: 5 right of 8)
    assert metrics[("accuracy", (("depth", "0"),))].value == pytest.approx(5 / 8)
    assert metrics[("frames_at_90", ())].value == 16.0  # 4 and 16 reach 0.9, 8 does not: the largest N that does
    assert metrics[("accuracy", (("depth", "100"), ("frames", "4")))].n == 2


def test_a_model_that_refuses_long_cells_ranks_below_one_that_answers_them_all():
    """Grid 1,000 and 2,000 frames x depths 0 and 100, two needles: 8 questions. The refuser answers the
    4 short ones right and refuses the 4 long ones (within its limit: 4/4 = 1.0; on the grid 4/8 = 0.5);
    the other answers all 8 and gets 6 right (0.75). Ranked on the whole grid, 0.75 > 0.5."""

    def run(reply_for):
        scores = []
        for count in ("1000", "2000"):
            for depth in ("0", "100"):
                for needle in ("n1", "n2"):
                    reply, kind = reply_for(count, depth, needle)
                    scores.append(
                        SINGLE.score_item(
                            item(f"single/{needle}/{count}/{depth}", {"frames": count, "depth": depth}),
                            [Prediction("x", reply, error_kind=kind, error="too long" if kind else "")],
                        )
                    )
        return {m.key: m.value for m in SINGLE.aggregate(scores) if not m.slice}

    refuser = run(lambda count, depth, needle: ("", "over_limit") if count == "2000" else ("B", ""))
    tries_all = run(lambda count, depth, needle: ("A", "") if (count, depth) == ("2000", "100") else ("B", ""))
    assert refuser["accuracy_within_limit"] == 1.0 and tries_all["accuracy_within_limit"] == 0.75
    assert refuser["accuracy"] == 0.5 and tries_all["accuracy"] == 0.75
    assert tries_all["accuracy"] > refuser["accuracy"]  # the headline ranks the one that answered everything first
    assert refuser["answered"] == 0.5 and refuser["largest_answered"] == 1000.0
    assert tries_all["answered"] == 1.0 and tries_all["largest_answered"] == 2000.0


@pytest.mark.parametrize(
    "reply", ["a square", "A green circle in the last frame", "The answer is a star", "A square with a question mark"]
)
def test_a_free_answer_opening_with_a_is_not_option_a(reply):
    score = SINGLE.score_item(item("single/n/4/0", {"frames": "4", "depth": "0"}, answer="A"), [Prediction("x", reply)])
    assert score.scores["correct"] == 0.0 and score.detail["parsed"] is None


def test_circular_evaluation_counts_a_question_only_when_every_rotation_is_right():
    def rotated(reply_per_rotation):
        return [
            SINGLE.score_item(
                item(f"single/n/4/0/r{k}", {"frames": "4", "depth": "0"}, answer="ABCD"[k]), [Prediction("x", reply)]
            )
            for k, reply in enumerate(reply_per_rotation)
        ]

    right = rotated(["A", "B", "C", "D"])
    one_wrong = [
        SINGLE.score_item(
            item(f"single/m/4/0/r{k}", {"frames": "4", "depth": "0"}, answer="ABCD"[k]), [Prediction("x", reply)]
        )
        for k, reply in enumerate(["A", "B", "C", "A"])
    ]
    metrics = {m.key: m for m in SINGLE.aggregate(right + one_wrong) if not m.slice}
    assert metrics["accuracy"].value == 0.5 and metrics["accuracy"].n == 2  # two questions, not eight answers


def test_multi_hop_scores_both_questions_per_n():
    def scored(chain, count, q, reply):
        return MULTI.score_item(
            item(f"multi/{chain}/{count}/{q}", {"frames": count, "question": q}), [Prediction("x", reply)]
        )

    scores = [
        scored("a", "16", "q1", "B"),
        scored("a", "16", "q2", "B"),
        scored("b", "16", "q1", "B"),
        scored("b", "16", "q2", "C"),
        scored("a", "64", "q1", "C"),
        scored("a", "64", "q2", "C"),
        scored("b", "64", "q1", "B"),
        scored("b", "64", "q2", "B"),
    ]
    metrics = {(m.key, tuple(m.slice.items())): m for m in MULTI.aggregate(scores)}
    assert metrics[("accuracy", (("frames", "16"),))].value == 0.75  # (Q1 + Q2) / 2 over chains
    assert metrics[("both", (("frames", "16"),))].value == 0.5
    assert metrics[("accuracy", (("frames", "64"),))].value == 0.5 and metrics[("both", ())].value == 0.5
    assert metrics[("accuracy", (("question", "q1"),))].value == 0.75
    assert metrics[("frames_at_90", ())].value == 0.0  # no N reaches 0.9


def test_multi_hop_counts_an_n_over_the_limit_as_misses_on_the_whole_grid():
    def scored(chain, count, q, reply, kind=""):
        return MULTI.score_item(
            item(f"multi/{chain}/{count}/{q}", {"frames": count, "question": q}),
            [Prediction("x", reply, error_kind=kind)],
        )

    scores = [scored(c, "1000", q, "B") for c in ("a", "b") for q in ("q1", "q2")]
    scores += [scored(c, "2000", q, "", "over_limit") for c in ("a", "b") for q in ("q1", "q2")]
    metrics = {(m.key, tuple(m.slice.items())): m.value for m in MULTI.aggregate(scores)}
    assert metrics[("accuracy", ())] == 0.5 and metrics[("both", ())] == 0.5  # 4 of 8 questions, 2 of 4 pairs
    assert metrics[("accuracy_within_limit", ())] == 1.0 and metrics[("answered", ())] == 0.5
    assert metrics[("accuracy", (("frames", "1000"),))] == 1.0 and ("accuracy", (("frames", "2000"),)) not in metrics
    assert metrics[("accuracy", (("question", "q1"),))] == 0.5 and metrics[("largest_answered", ())] == 1000.0
