"""CausalPitfalls scoring with a scripted judge over HTTP: rubric answers checked against the number of
criteria and asked again on a mismatch, fallbacks scored 0 and counted, item score = criteria met /
criteria, causal reliability = the mean of the category means with intervals over datasets, per
difficulty and challenge, the code-failure rate; the code-assisted turn's program extraction and its
run in the data sandbox (a good program, a failing one, none)."""
from __future__ import annotations

import json
import re
from typing import Any

import pytest

from evaluators.causal_pitfalls.evaluator import (CODE_FAILURE, RELIABILITY, CausalPitfallsCodeEvaluator, CausalPitfallsEvaluator,
                                                  extract_code)
from evaluators.core.types import ItemScore, Prediction, Stage
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import FALLBACK_METRIC, Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from tests.support.openai_server import OpenAIServer, Reply

DIRECT, CODE = CausalPitfallsEvaluator(), CausalPitfallsCodeEvaluator()
ITEMS = {item.id: item for item in DIRECT.import_release(DIRECT.sample_dataset())}
SIMPSON = ITEMS["simpson_paradox/simpson_paradox_scenario/very_hard"]  # 5 criteria


def judged(evaluator, server: OpenAIServer):
    client = ChatClient(Endpoint(server.base_url, "judge"), max_concurrency=4, backoff_s=0.01, max_retries=1)
    return evaluator.with_judge(Judge(JudgeSpec("judge", "r1", "v1"), client, concurrency=4))


def count_of(request: dict[str, Any]) -> int:
    return int(re.search(r"exactly (\d+) numbers", request["messages"][-1]["content"]).group(1))


def test_an_answer_is_graded_criterion_by_criterion_and_a_wrong_length_is_asked_again() -> None:
    answers = iter(['{"scores": [1, 1]}', '{"scores": [1, 0, 1, 1, 0]}'])
    with OpenAIServer(lambda req: Reply(text=next(answers))) as server:
        score = judged(DIRECT, server).score_item(SIMPSON, [Prediction(SIMPSON.id, "The drug helps once severity is adjusted.")])
        prompt = server.requests[0]["messages"][-1]["content"]
    assert score.scores[RELIABILITY] == pytest.approx(3 / 5)
    sample = score.detail["samples"][0]
    assert sample["verdict"] == "scored" and sample["reason"].startswith("3 of 5 criteria met: CONFOUNDER_IDENTIFIED")
    call = score.detail["judgements"][0]["calls"][0]
    assert call["attempts"] == 2 and "2 scores for 5 criteria" in call["rejected"][0]
    assert "Gives an adjusted effect (rate difference) within ±0.05 of" in prompt  # the filled rubric, for the judge
    assert "The drug helps" in prompt and "exactly 5 numbers" in prompt


def test_an_unusable_judge_answer_is_a_counted_fallback_and_an_empty_answer_is_not_judged() -> None:
    with OpenAIServer(lambda req: Reply(text="I think it is good")) as server:
        evaluator = judged(DIRECT, server)
        fallback = evaluator.score_item(SIMPSON, [Prediction(SIMPSON.id, "an answer")])
        asked = server.request_count
        empty = evaluator.score_item(SIMPSON, [Prediction(SIMPSON.id, "", error_kind="refused", error="HTTP 400")])
        assert server.request_count == asked  # nothing to grade: the judge is not asked
    assert fallback.scores[RELIABILITY] == 0 and fallback.detail["samples"][0]["verdict"] == "fallback"
    assert empty.scores[RELIABILITY] == 0 and "no answer to grade (refused)" in empty.detail["samples"][0]["reason"]
    metrics = {(m.key, tuple(m.slice.items())): m for m in DIRECT.aggregate([fallback, empty])}
    assert metrics[(FALLBACK_METRIC, ())].value == 1.0  # one call, one fallback


def score(item_id: str, value: float, failed: float | None = None) -> ItemScore:
    item = ITEMS[item_id]
    scores = {RELIABILITY: value} | ({} if failed is None else {CODE_FAILURE: failed})
    return ItemScore(item_id, dict(item.slices), scores)


def test_causal_reliability_is_the_mean_of_the_category_means_with_intervals_over_datasets() -> None:
    scores = [score(i, 1.0) for i in ITEMS if i.startswith("simpson")]  # confounding: 25 items at 1
    scores += [score(i, 0.0) for i in ITEMS if i.startswith("berkson")]  # confounding: 25 items at 0
    scores += [score(i, 0.2) for i in ITEMS if i.startswith("mediation")]  # mediation: 0.2
    scores += [score(i, 0.8 if "very_easy" in i else 0.0) for i in ITEMS if i.startswith("population")]  # 0.16
    metrics = {(m.key, tuple(m.slice.items())): m for m in DIRECT.aggregate(scores)}
    headline = metrics[(RELIABILITY, ())]
    assert headline.value == pytest.approx((0.5 + 0.2 + 0.16) / 3) and headline.n == 100  # not the item mean (0.34)
    assert headline.ci_low < headline.value < headline.ci_high
    assert metrics[(RELIABILITY, (("category", "confounding"),))].value == pytest.approx(0.5)
    assert metrics[(RELIABILITY, (("challenge", "population_shift"),))].value == pytest.approx(0.16)
    assert metrics[(RELIABILITY, (("difficulty", "very_easy"),))].value == pytest.approx((0.5 + 0.2 + 0.8) / 3)
    mediation = metrics[(RELIABILITY, (("category", "mediation"),))]
    assert mediation.ci_low == pytest.approx(0.2) and mediation.ci_high == pytest.approx(0.2)  # no spread, no width
    coded = CODE.aggregate([score(i, 0.5, failed=1.0 if i.startswith("berkson") else 0.0) for i in ITEMS])
    failure = next(m for m in coded if m.key == CODE_FAILURE)
    assert failure.value == pytest.approx(0.25) and failure.n == 100


@pytest.mark.parametrize("answer, code", [
    ("Here:\n```python\nprint(1)\n```\nand ```python\nprint(2)\n```", "print(1)"),
    ("```\nimport pandas\n```", "import pandas"),
    ("```r\nsummary(x)\n```\n```py\nx = 2\n```", "x = 2"),
    ("No code, just the answer: the drug helps.", None),
    ("```python\n\n```", None),
])
def test_the_first_fenced_python_block_is_the_program(answer: str, code: str | None) -> None:
    assert extract_code(answer) == code


def first_stage(answer: str) -> tuple[Stage, ...]:
    return (Stage(messages=CODE.build_requests(SIMPSON, {})[0].messages, answer=answer),)


@pytest.mark.toolchains
def test_the_code_turn_runs_the_program_on_the_data_and_tells_the_model_what_happened() -> None:
    columns = SIMPSON.payload["columns"]
    program = (f"import pandas as pd\ndf = pd.read_csv('/data/{SIMPSON.payload['csv_name']}')\n"
               f"print(len(df), df['{columns[0]}'].sum())")
    ran = CODE.follow_up(SIMPSON, first_stage(f"```python\n{program}\n```"), 0, {})
    rows, treated = len(SIMPSON.payload["rows"]), sum(int(row[0]) for row in SIMPSON.payload["rows"])
    assert ran.tool["status"] == "ok" and ran.tool["output"].strip() == f"{rows} {treated}" and ran.tool["code"] == program
    assert f"Its result:\n```\n{rows} {treated}\n```" in ran.messages[0]["content"]
    failing = CODE.follow_up(SIMPSON, first_stage("```python\nimport pandas as pd\npd.read_csv('/data/other.csv')\n```"), 0, {})
    assert failing.tool["status"] == "runtime_error" and "FileNotFoundError" in failing.messages[0]["content"]
    none = CODE.follow_up(SIMPSON, first_stage("The drug helps."), 0, {})
    assert none.tool["status"] == "no_code" and "no ```python code block" in none.messages[0]["content"]
    assert CODE.follow_up(SIMPSON, first_stage("x") + first_stage("y"), 0, {}) is None  # two stages: finished


def test_the_code_failure_rate_counts_missing_and_failing_programs() -> None:
    with OpenAIServer(lambda req: Reply(text=json.dumps({"scores": [1] * count_of(req)}))) as server:
        evaluator = judged(CODE, server)
        stages = {status: first_stage("x") + (Stage(messages=[{"role": "user", "content": "ran"}], answer="final",
                                                    tool={"name": "python", "status": status}),)
                  for status in ("ok", "runtime_error", "no_code")}
        results = {status: evaluator.score_item(SIMPSON, [Prediction(SIMPSON.id, "final", transcript=t)])
                   for status, t in stages.items()}
    assert {s: r.scores[CODE_FAILURE] for s, r in results.items()} == {"ok": 0.0, "runtime_error": 1.0, "no_code": 1.0}
    assert all(r.scores[RELIABILITY] == 1.0 for r in results.values())  # a failed program's final answer is still graded
    assert results["no_code"].detail["samples"][0]["code_status"] == "no_code"
