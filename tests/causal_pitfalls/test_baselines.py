"""CausalPitfalls' reference rows: "No analysis" (one non-answer for every item) and "Rubric restated" (each
item's filled criteria as the answer), for both boards; the code-assisted one's carry the transcript its
protocol requires (no program, so the final prompt says none was found). Scored by a scripted judge that
marks a criterion met exactly when the answer states its description, the floor scores 0 and the ceiling 1
on every item, which is what the rows are for: they show what a judge makes of known answers."""

from __future__ import annotations

import json

import pytest

from evaluators.causal_pitfalls.baselines import NO_ANALYSIS_ANSWER
from evaluators.causal_pitfalls.evaluator import RELIABILITY
from evaluators.core import evaluator_for
from evaluators.core.files import parse_predictions
from evaluators.core.runner import score_items
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from tests.support.openai_server import OpenAIServer, Reply


def literal_judge(request) -> Reply:
    """Criterion i is met when the text to grade holds its description word for word."""
    content = request["messages"][-1]["content"]
    criteria, rest = content.split("TEXT TO GRADE:\n", 1)
    answer = rest.split("\n\nReply with nothing but", 1)[0]
    listed = json.loads(criteria.split("CRITERIA:\n", 1)[1].strip())
    return Reply(text=json.dumps({"scores": [1 if c["desc"] in answer else 0 for c in listed]}))


@pytest.mark.parametrize("key", ["causal-pitfalls", "causal-pitfalls-code"])
def test_the_floor_scores_zero_and_the_ceiling_full_marks_with_a_literal_judge(key):
    evaluator = evaluator_for(key)
    items = list(evaluator.import_release(evaluator.presentation().sample_dataset()))[:12]
    baselines = evaluator.presentation().baseline_predictions(items)
    assert sorted(baselines) == ["No analysis", "Rubric restated"]
    parsed = {name: parse_predictions(data, [i.id for i in items]) for name, data in baselines.items()}
    assert all(p.output == NO_ANALYSIS_ANSWER for p in parsed["No analysis"])
    for item, prediction in zip(items, parsed["Rubric restated"]):
        assert all(c["desc"] in prediction.output for c in item.payload["criteria"])
    if key == "causal-pitfalls-code":  # the transcript the code-assisted protocol requires, as follow_up asks it
        for prediction in parsed["No analysis"] + parsed["Rubric restated"]:
            first, final = prediction.transcript
            assert first.messages[-1]["content"].startswith(
                evaluator.first_messages(next(i for i in items if i.id == prediction.item_id))[-1]["content"][:40]
            )
            assert final.tool["status"] == "no_code" and final.answer == prediction.output
    else:
        assert all(not p.transcript for p in parsed["No analysis"])
    with OpenAIServer(literal_judge) as server:
        judge = Judge(JudgeSpec("literal", "1", "v1"), ChatClient(Endpoint(server.base_url, "judge")), concurrency=4)
        scorer = evaluator.with_judge(judge)
        for name, expected in (("No analysis", 0.0), ("Rubric restated", 1.0)):
            scores = list(score_items(scorer, items, parsed[name], concurrency=2))
            assert [s.scores[RELIABILITY] for s in scores] == [expected] * len(items), name
        judge.close()
