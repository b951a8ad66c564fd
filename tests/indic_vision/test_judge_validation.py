"""IndicVisionBench VQA's judge validation on a hand-built set: two judged questions about two images (and
a multiple-choice one, which no judge grades and so is left out), graded over HTTP by a scripted judge
whose grades are chosen so that the means, the separation and the verdict are known by hand."""

from __future__ import annotations

import re
from typing import Any

from evaluators.core.types import Item
from evaluators.indic_vision.evaluator import IndicVisionVQAEvaluator
from evaluators.indic_vision.validation import CONSTANT_ANSWER, known_set
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from tests.support.openai_server import OpenAIServer, Reply


def question(image: str, kind: str, text: str, gold: str) -> Item:
    return Item(
        f"{image}/English/{kind}",
        {"language": "English", "question_type": kind},
        {
            "task": "vqa",
            "type": kind,
            "question": text,
            "answer": gold,
            "language": "English",
            "image": image,
            **({"options": ["a", "b", "c", "d"], "gold": "A"} if kind == "mcq" else {}),
        },
    )


ITEMS = [
    question("img-1", "short_1", "What animal is on the cart?", "A bullock."),
    question("img-1", "mcq", "Which colour is the cart?", "A"),
    question("img-2", "long", "Describe the festival scene.", "People light lamps along the river at dusk."),
]


def grader(request: dict[str, Any]) -> Reply:
    """10 for the gold answer itself, 3 for the constant sentence, 0 for anything else."""
    text = request["messages"][-1]["content"]
    gold = re.search(r"Gold answer: (.*)\n", text).group(1)
    answer = re.search(r"Answer to grade: (.*)\n", text).group(1)
    return Reply(text="10" if answer == gold else "3" if answer == CONSTANT_ANSWER else "0")


def test_only_judged_questions_are_in_the_known_set_and_the_off_topic_answer_is_about_another_image():
    answers = [(a.item.id, a.kind, a.text) for a in known_set(ITEMS)]
    assert answers == [
        ("img-1/English/short_1", "meets", "A bullock."),
        ("img-1/English/short_1", "constant", "I cannot tell from this image."),
        ("img-1/English/short_1", "off_topic", "People light lamps along the river at dusk."),
        ("img-1/English/short_1", "restated", "What animal is on the cart?"),
        ("img-2/English/long", "meets", "People light lamps along the river at dusk."),
        ("img-2/English/long", "constant", "I cannot tell from this image."),
        ("img-2/English/long", "off_topic", "A bullock."),
        ("img-2/English/long", "restated", "Describe the festival scene."),
    ]


def test_a_judge_that_grades_gold_answers_well_above_the_rest_passes():
    # By hand: gold 10/10 twice -> 1.0; constant 3/10 twice -> 0.3; off-topic and restated 0.
    # Separation = 1.0 - 0.3 = 0.7 >= 0.5: passes.
    with OpenAIServer(grader) as server:
        judge = Judge(JudgeSpec("grader", "r2", "v1"), ChatClient(Endpoint(server.base_url, "judge")))
        result = IndicVisionVQAEvaluator().with_judge(judge).validate_judge(ITEMS)
        assert server.request_count == 8
    assert result.means == {"meets": 1.0, "constant": 0.3, "off_topic": 0.0, "restated": 0.0}
    assert result.separation == 0.7 and result.passed
    assert result.judge == "grader@r2 (prompt indic-vqa-short@v1,indic-vqa-long@v1,indic-vqa-false-premise@v1)"
