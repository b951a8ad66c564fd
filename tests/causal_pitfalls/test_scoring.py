"""CausalPitfalls scoring with a scripted judge over HTTP: rubric answers checked against the number of
criteria and asked again on a mismatch, fallbacks scored 0 and counted, item score = criteria met /
criteria, causal reliability = the mean of the category means with intervals over datasets, difficulty as
the plain item mean (the released scorer), the sandbox-failure rate and the paper's error rate; the
code-assisted turn's program extraction, its run in the data sandbox (a good program, a failing one, none,
one that plots) and the fresh final prompt; the method card of both protocols."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from evaluators.causal_pitfalls.card import ERROR_RATE
from evaluators.causal_pitfalls.evaluator import (
    CODE_FAILURE,
    RELIABILITY,
    CausalPitfallsCodeEvaluator,
    CausalPitfallsEvaluator,
    extract_code,
)
from evaluators.causal_pitfalls.prompts import final_prompt
from evaluators.core.turns import next_request
from evaluators.core.types import FollowUp, ItemScore, Prediction, Stage
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import FALLBACK_METRIC, Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from tests.support.openai_server import OpenAIServer, Reply

DIRECT, CODE = CausalPitfallsEvaluator(), CausalPitfallsCodeEvaluator()
ITEMS = {item.id: item for item in DIRECT.import_release(DIRECT.presentation().sample_dataset())}
SIMPSON = ITEMS["simpson_paradox/simpson_paradox_scenario/very_hard"]  # 5 criteria


def judged(evaluator, server: OpenAIServer):
    client = ChatClient(Endpoint(server.base_url, "judge"), max_concurrency=4, backoff_s=0.01, max_retries=1)
    return evaluator.with_judge(Judge(JudgeSpec("judge", "r1", "v1"), client, concurrency=4))


def count_of(request: dict[str, Any]) -> int:
    return int(re.search(r"exactly (\d+) of them", request["messages"][-1]["content"]).group(1))


def test_an_answer_is_graded_criterion_by_criterion_and_a_wrong_length_is_asked_again() -> None:
    answers = iter(['{"scores": [1, 1]}', '{"scores": [1, 0, 1, 1, 0]}'])
    with OpenAIServer(lambda req: Reply(text=next(answers))) as server:
        score = judged(DIRECT, server).score_item(
            SIMPSON, [Prediction(SIMPSON.id, "The drug helps once severity is adjusted.")]
        )
        prompt = server.requests[0]["messages"][-1]["content"]
    assert score.scores[RELIABILITY] == pytest.approx(3 / 5)
    sample = score.detail["samples"][0]
    assert sample["verdict"] == "scored" and sample["reason"].startswith("3 of 5 criteria met: CONFOUNDER_IDENTIFIED")
    call = score.detail["judgements"][0]["calls"][0]
    assert call["attempts"] == 2 and "2 scores for 5 criteria" in call["rejected"][0]
    assert "Gives an adjusted effect (rate difference) within ±0.05 of" in prompt  # the filled rubric, for the judge
    assert "The drug helps" in prompt and "exactly 5 of them" in prompt
    assert server.requests[0]["messages"][0]["content"].startswith("You critically assess answers")  # prompt v2
    assert '"id": "CONFOUNDER_IDENTIFIED"' in prompt  # the criteria as indented JSON, as the released scorer


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
    # difficulty: the plain mean of its 20 items (5 Simpson at 1, 5 Berkson at 0, 5 mediation at 0.2, 5 population
    # at 0.8), as the released scorer; the mean of the category means would be (0.5 + 0.2 + 0.8) / 3 = 0.5 too, so
    # "hard" tells them apart: (5 + 0 + 1 + 0) / 20 = 0.3 against (0.5 + 0.2 + 0) / 3 = 0.233
    assert metrics[(RELIABILITY, (("difficulty", "very_easy"),))].value == pytest.approx(10 / 20)
    assert metrics[(RELIABILITY, (("difficulty", "hard"),))].value == pytest.approx(6 / 20)
    mediation = metrics[(RELIABILITY, (("category", "mediation"),))]
    assert mediation.ci_low == pytest.approx(0.2) and mediation.ci_high == pytest.approx(0.2)  # no spread, no width
    coded = CODE.aggregate([score(i, 0.5, failed=1.0 if i.startswith("berkson") else 0.0) for i in ITEMS])
    failure = next(m for m in coded if m.key == CODE_FAILURE)
    assert failure.value == pytest.approx(0.25) and failure.n == 100


@pytest.mark.parametrize(
    "answer, code",
    [
        ("Here:\n```python\nprint(1)\n```\nand ```python\nprint(2)\n```", "print(1)"),
        ("```\nimport pandas\n```", "import pandas"),
        ("```r\nsummary(x)\n```\n```py\nx = 2\n```", "x = 2"),
        ("No code, just the answer: the drug helps.", None),
        ("```python\n\n```", None),
    ],
)
def test_the_first_fenced_python_block_is_the_program(answer: str, code: str | None) -> None:
    assert extract_code(answer) == code


def first_stage(answer: str) -> tuple[Stage, ...]:
    return (Stage(messages=CODE.build_requests(SIMPSON, {})[0].messages, answer=answer),)


@pytest.mark.toolchains
def test_the_code_turn_runs_the_program_on_the_data_and_tells_the_model_what_happened() -> None:
    columns = SIMPSON.payload["columns"]
    program = (
        f"import pandas as pd\ndf = pd.read_csv('/data/{SIMPSON.payload['csv_name']}')\n"
        f"print(len(df), df['{columns[0]}'].sum())"
    )
    ran = CODE.generation().conversation.follow_up(SIMPSON, first_stage(f"```python\n{program}\n```"), 0, {})
    rows, treated = len(SIMPSON.payload["rows"]), sum(int(row[0]) for row in SIMPSON.payload["rows"])
    assert (
        ran.tool["status"] == "ok" and ran.tool["output"].strip() == f"{rows} {treated}" and ran.tool["code"] == program
    )
    assert ran.fresh and ran.messages[0]["content"] == (
        f"Question: {SIMPSON.payload['question']}\n\nCode:\n{program}\n\nResults:\n{rows} {treated}\n"
    )
    failing = CODE.generation().conversation.follow_up(
        SIMPSON, first_stage("```python\nimport pandas as pd\npd.read_csv('/data/other.csv')\n```"), 0, {}
    )
    assert failing.tool["status"] == "runtime_error" and "FileNotFoundError" in failing.messages[0]["content"]
    none = CODE.generation().conversation.follow_up(SIMPSON, first_stage("The drug helps."), 0, {})
    assert none.tool["status"] == "no_code" and none.messages[0]["content"].endswith(
        "Code:\n(no program: the reply held no ```python code block)\n\nResults:\n(nothing was run)\n"
    )
    assert (
        CODE.generation().conversation.follow_up(SIMPSON, first_stage("x") + first_stage("y"), 0, {}) is None
    )  # two stages: finished


def test_the_code_failure_rate_counts_missing_and_failing_programs() -> None:
    with OpenAIServer(lambda req: Reply(text=json.dumps({"scores": [1] * count_of(req)}))) as server:
        evaluator = judged(CODE, server)
        stages = {
            status: first_stage("x")
            + (
                Stage(
                    messages=[{"role": "user", "content": "ran"}],
                    answer="final",
                    tool={"name": "python", "status": status},
                ),
            )
            for status in ("ok", "runtime_error", "no_code")
        }
        results = {
            status: evaluator.score_item(SIMPSON, [Prediction(SIMPSON.id, "final", transcript=t)])
            for status, t in stages.items()
        }
    assert {s: r.scores[CODE_FAILURE] for s, r in results.items()} == {"ok": 0.0, "runtime_error": 1.0, "no_code": 1.0}
    assert all(
        r.scores[RELIABILITY] == 1.0 for r in results.values()
    )  # a failed program's final answer is still graded
    assert results["no_code"].detail["samples"][0]["code_status"] == "no_code"


@pytest.mark.toolchains
def test_a_program_that_plots_runs_with_the_released_harness_names_bound() -> None:
    program = (
        f"df = pd.read_csv('/data/{SIMPSON.payload['csv_name']}')\n"
        "fig, ax = plt.subplots()\nsns.histplot(data=df, x=df.columns[0], ax=ax)\nplt.show()\n"
        "fig.savefig('/tmp/plot.png')\nprint('saved', os.path.getsize('/tmp/plot.png') > 0, type(ax).__name__)"
    )
    ran = CODE.generation().conversation.follow_up(SIMPSON, first_stage(f"```python\n{program}\n```"), 0, {})
    assert ran.tool["status"] == "ok", ran.tool["output"]
    assert ran.tool["output"].strip() == "saved True Axes"


def test_the_final_prompt_has_the_released_layout() -> None:
    # CausalPitfalls llm_evaluation/get_responses.py, results_prompt, written out by hand: the extracted code stripped
    released = "Question: Does X cause Y?\n\nCode:\nimport pandas as pd\nprint(1)\n\nResults:\n1\n"
    assert final_prompt("Does X cause Y?", "\nimport pandas as pd\nprint(1)\n", "1\n") == released


def test_the_final_prompt_is_a_fresh_conversation_of_one_message() -> None:
    first = CODE.build_requests(SIMPSON, {})[0]
    transcript = first_stage("```python\nprint(1)\n```")
    final = {"role": "user", "content": "Question: q\n\nCode:\nprint(1)\n\nResults:\n1\n"}
    fresh = next_request(first, transcript, FollowUp(messages=[final], fresh=True), 0)
    assert fresh.messages == [final] and fresh.stage == 1
    continued = next_request(first, transcript, FollowUp(messages=[final]), 0)  # the default continues
    assert len(continued.messages) == 3 and continued.messages[-1] == final


@pytest.mark.parametrize(
    "answer, error",
    [
        ("Traceback (most recent call last): the program FAILED", 1.0),
        ("The standard error is 0.02, so the effect is clear.", 1.0),  # the released rule matches any 'error'
        ("An Exception-free run: the effect is 0.5.", 1.0),
        ("The drug helps once severity is adjusted.", 0.0),
    ],
)
def test_the_papers_error_rate_matches_its_words_in_the_final_answer(answer: str, error: float) -> None:
    with OpenAIServer(lambda req: Reply(text=json.dumps({"scores": [1] * count_of(req)}))) as server:
        evaluator = judged(CODE, server)
        transcript = first_stage("x") + (
            Stage(
                messages=[{"role": "user", "content": "ran"}], answer=answer, tool={"name": "python", "status": "ok"}
            ),
        )
        result = evaluator.score_item(SIMPSON, [Prediction(SIMPSON.id, answer, transcript=transcript)])
    assert result.scores[ERROR_RATE] == error and result.scores[CODE_FAILURE] == 0.0


def test_the_error_rate_is_reported_overall_by_category_and_by_difficulty() -> None:
    scores = [
        ItemScore(
            i,
            dict(ITEMS[i].slices),
            {RELIABILITY: 0.5, CODE_FAILURE: 0.0, ERROR_RATE: 1.0 if i.startswith("berkson") and "hard" in i else 0.0},
        )
        for i in ITEMS
    ]
    metrics = {(m.key, tuple(m.slice.items())): m.value for m in CODE.aggregate(scores)}
    # Berkson's hard and very_hard items: 5 datasets x 2 = 10 of 100 items
    assert metrics[(ERROR_RATE, ())] == pytest.approx(10 / 100)
    assert metrics[(ERROR_RATE, (("category", "confounding"),))] == pytest.approx(10 / 50)
    assert metrics[(ERROR_RATE, (("difficulty", "hard"),))] == pytest.approx(5 / 20)
    assert metrics[(ERROR_RATE, (("difficulty", "easy"),))] == 0.0
    assert ERROR_RATE not in {m.key for m in DIRECT.aggregate(scores)}  # the direct board has no programs


def test_the_method_card_states_every_element_and_each_deviation_with_its_reason() -> None:
    wanted = {
        "Question placeholders",
        "Generation settings",
        "Rubric filling",
        "Judge and prompt",
        "Judge retries and fallbacks",
        "Judge validation",
        "Item score",
        "Aggregation",
        "Counts",
        "Baselines",
        "Judge's answer format",
    }
    direct = {row.element: row for row in DIRECT.presentation().method_card()}
    code = {row.element: row for row in CODE.presentation().method_card()}
    assert wanted | {"Direct prompt"} == set(direct)
    assert wanted | {
        "Code request",
        "Code-assisted final prompt",
        "What the final prompt reports",
        "Sandbox libraries",
        "Error rate",
    } == set(code)
    assert not code["Code-assisted final prompt"].deviates  # the fresh Question / Code / Results prompt
    assert "matplotlib" in code["Sandbox libraries"].here and "seaborn" in code["Sandbox libraries"].here
    assert "370" in direct["Counts"].here and "375" in direct["Counts"].released
    assert direct["Question placeholders"].deviates and "as_released" in direct["Question placeholders"].here
    assert not DIRECT.configured({"placeholders": "as_released"}).presentation().method_card()[0].deviates
    assert all(row.why for row in [*direct.values(), *code.values()] if row.deviates)
    assert "causal-pitfalls-rubric@v2" in direct["Judge and prompt"].here
