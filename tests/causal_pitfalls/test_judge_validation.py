"""CausalPitfalls' judge validation on a hand-built set: two items of two challenges, each with two rubric
criteria, judged over HTTP by scripted judges whose marks are chosen so that the means, the separation and
the verdict are known by hand; and the label the validation is stored under comes from the prompt the
evaluator actually asks, not from the setting's prompt_version."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest

from evaluators.causal_pitfalls.baselines import NO_ANALYSIS_ANSWER
from evaluators.causal_pitfalls.evaluator import CausalPitfallsEvaluator
from evaluators.causal_pitfalls.validation import known_set
from evaluators.core.types import Item
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from tests.support.openai_server import OpenAIServer, Reply


def item(challenge: str, first: str, second: str) -> Item:
    question = f"Does the treatment cause the outcome in the {challenge} data?"
    return Item(
        f"{challenge}/data/easy",
        {"challenge": challenge, "category": "confounding", "difficulty": "easy"},
        {
            "challenge": challenge,
            "question": question,
            "question_as_released": question,
            "criteria": [{"id": "c1", "desc": first}, {"id": "c2", "desc": second}],
        },
    )


ITEMS = [
    item("simpson_paradox", "Names Z as the confounder.", "Reports the adjusted effect as positive."),
    item("berkson_paradox", "Notes the selection on the collider.", "Says the raw correlation is spurious."),
]


def graded(request: dict[str, Any]) -> tuple[list[str], str]:
    """The criteria's descriptions and the answer in a judge request (prompt causal-pitfalls-rubric@v2)."""
    text = request["messages"][-1]["content"]
    criteria = json.loads(re.search(r"CRITERIA:\n(.*)\n\nTEXT TO GRADE:", text, re.DOTALL).group(1))
    answer = re.search(r"TEXT TO GRADE:\n(.*)\n\nReply with nothing", text, re.DOTALL).group(1)
    return [c["desc"] for c in criteria], answer


def lenient(request: dict[str, Any]) -> Reply:
    """Both criteria for the item's own rubric written out; the first for the constant sentence; none otherwise."""
    descs, answer = graded(request)
    scores = [1, 1] if answer == " ".join(descs) else [1, 0] if answer == NO_ANALYSIS_ANSWER else [0, 0]
    return Reply(text=json.dumps({"scores": scores}))


def junk(request: dict[str, Any]) -> Reply:
    """Every criterion met, whatever the answer (what the 135M demo judge did to a constant sentence)."""
    return Reply(text=json.dumps({"scores": [1, 1]}))


def judged(handler: Callable[[dict[str, Any]], Reply], server: OpenAIServer) -> CausalPitfallsEvaluator:
    spec = JudgeSpec("scripted", "r1", "v1")  # the setting says v1; the evaluator asks causal-pitfalls-rubric@v2
    return CausalPitfallsEvaluator().with_judge(Judge(spec, ChatClient(Endpoint(server.base_url, "judge"))))


def test_the_known_set_pairs_each_item_with_a_good_a_constant_an_off_topic_and_a_restating_answer():
    answers = [(a.item.id, a.kind, a.text) for a in known_set(CausalPitfallsEvaluator().question, ITEMS)]
    assert answers == [
        ("simpson_paradox/data/easy", "meets", "Names Z as the confounder. Reports the adjusted effect as positive."),
        ("simpson_paradox/data/easy", "constant", "I cannot draw a conclusion from these data."),
        (
            "simpson_paradox/data/easy",
            "off_topic",
            "Notes the selection on the collider. Says the raw correlation is spurious.",
        ),
        ("simpson_paradox/data/easy", "restated", "Does the treatment cause the outcome in the simpson_paradox data?"),
        (
            "berkson_paradox/data/easy",
            "meets",
            "Notes the selection on the collider. Says the raw correlation is spurious.",
        ),
        ("berkson_paradox/data/easy", "constant", "I cannot draw a conclusion from these data."),
        (
            "berkson_paradox/data/easy",
            "off_topic",
            "Names Z as the confounder. Reports the adjusted effect as positive.",
        ),
        ("berkson_paradox/data/easy", "restated", "Does the treatment cause the outcome in the berkson_paradox data?"),
    ]


def test_a_judge_that_separates_known_answers_by_the_margin_passes():
    # By hand: good answers 2/2 and 2/2 -> 1.0; the constant sentence 1/2 twice -> 0.5; off-topic and restated 0.
    # Separation = 1.0 - max(0.5, 0, 0) = 0.5, exactly the margin of 0.5: passes.
    with OpenAIServer(lenient) as server:
        result = judged(lenient, server).validate_judge(ITEMS)
        assert server.request_count == 8
    assert result.means == {"meets": 1.0, "constant": 0.5, "off_topic": 0.0, "restated": 0.0}
    assert (result.separation, result.margin, result.passed, result.items, result.answers) == (0.5, 0.5, True, 2, 8)
    assert (
        result.judge == "scripted@r1 (prompt causal-pitfalls-rubric@v2)"
        and result.prompt == "causal-pitfalls-rubric@v2"
    )
    assert "a separation of 50%" in result.summary() and "so it passes the rule of at least 50%" in result.summary()


def test_a_judge_that_gives_a_constant_sentence_full_marks_fails():
    # By hand: every kind 1.0, so the separation is 1.0 - 1.0 = 0 < 0.5: fails.
    with OpenAIServer(junk) as server:
        result = judged(junk, server).validate_judge(ITEMS)
    assert result.means == {"meets": 1.0, "constant": 1.0, "off_topic": 1.0, "restated": 1.0}
    assert (result.separation, result.passed) == (0.0, False)
    assert result.to_dict()["passed"] is False


def test_a_set_with_one_challenge_has_no_off_topic_answer_and_is_refused():
    with pytest.raises(ValueError, match="at least two topics"):
        known_set(CausalPitfallsEvaluator().question, [ITEMS[0], item("simpson_paradox", "a", "b")])
