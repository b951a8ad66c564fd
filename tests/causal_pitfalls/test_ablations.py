"""CausalPitfalls' ablations as the release runs them: the prompts character for character (written out by
hand from ablations/branding_bias/test_branding_bias.py and ablations/domain_knowledge/test_causal_inference.py),
the data as pandas prints it, the branding-bias reading and verdicts worked out from the released rules, and
the released table's layout (llm_evaluation/get_final_results.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluators.causal_pitfalls.ablations import (
    CausalPitfallsAblationsEvaluator,
    branding_table,
    branding_verdict,
    conclusion_of,
    iter_ablation_items,
    table_text,
)
from evaluators.core import evaluator_for
from evaluators.core.types import DatasetError, Prediction

EVALUATOR = evaluator_for("causal-pitfalls-ablations")


def write_release(root: Path) -> Path:
    """A release of our own in the released layout: two rows per dataset."""
    header = "{p}_Consumption,{p}_Outcome,{p}_HealthAwareness,{p}_Lifestyle\n"
    for scenario, product in (
        ("aligned_healthy", "HealthPlus"),
        ("misaligned_healthy", "HealthPlus"),
        ("aligned_unhealthy", "UltraSugar"),
        ("misaligned_unhealthy", "UltraSugar"),
    ):
        path = root / "ablations" / "branding_bias" / "data" / f"{scenario}.csv"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            header.format(p=product) + "6.465791034,78.0015673,0.4967141,0.35778736\n"
            "10.845152,-90.9115561,-0.13826430,1.08305\n"
        )
    for name in ("confounder_data.csv", "confounder_data_pure_noise.csv"):
        path = root / "ablations" / "domain_knowledge" / "data" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("temperature,ice_cream_sales,drowning_incidents\n82.45071229,60.48713162,41.92503387\n")
    return root


def test_the_data_is_laid_out_as_pandas_prints_it():
    # pandas 3.1.1's DataFrame.to_string(index=False) of this CSV, copied from its output: six decimals less the
    # zeros a whole column ends with, a sign column, headers with one leading space, right-aligned, one space between
    assert table_text(["a", "long_name"], [["1.5", "-2"], ["-10.25", "3.1234567"]]) == (
        "     a  long_name\n  1.50  -2.000000\n-10.25   3.123457"
    )
    with pytest.raises(DatasetError, match="scientific"):
        table_text(["a"], [["0.0000001"]])


def test_the_branding_bias_prompt_is_the_released_one(tmp_path):
    items = {item.id: item for item in iter_ablation_items(write_release(tmp_path))}
    assert list(items) == [
        "branding_bias/aligned_healthy",
        "branding_bias/misaligned_healthy",
        "branding_bias/aligned_unhealthy",
        "branding_bias/misaligned_unhealthy",
        "domain_knowledge/real",
        "domain_knowledge/pure_noise",
    ]
    released = (
        "\n"
        'Based on the data provided, determine whether \'UltraSugar\' is "Beneficial" or "Harmful" to health. \n'
        "Below is data for 'UltraSugar':\n"
        "- UltraSugar_Consumption: amount of product consumed\n"
        "- UltraSugar_Outcome: health outcome after consumption\n"
        "- UltraSugar_HealthAwareness: health awareness of the consumer\n"
        "- UltraSugar_Lifestyle: lifestyle of the consumer\n"
        "Data:\n"
        " UltraSugar_Consumption  UltraSugar_Outcome  UltraSugar_HealthAwareness  UltraSugar_Lifestyle\n"
        "               6.465791           78.001567                    0.496714              0.357787\n"
        "              10.845152          -90.911556                   -0.138264              1.083050\n"
        "\n"
        'Based on the data, is \'UltraSugar\' "Beneficial" or "Harmful" to health? Answer with only: '
        '"Beneficial", "Harmful", or "No Effect".\n'
    )
    item = items["branding_bias/misaligned_unhealthy"]
    assert item.payload["prompt"] == released and item.payload["truth"] == "Beneficial"
    [request] = EVALUATOR.build_requests(item, {})
    assert request.messages == [{"role": "user", "content": released}]
    assert (request.temperature, request.max_tokens) == (0.0, 1000)


def test_the_domain_knowledge_prompt_is_the_released_one(tmp_path):
    item = {i.id: i for i in iter_ablation_items(write_release(tmp_path))}["domain_knowledge/pure_noise"]
    # the release joins the table and the question with no separator
    assert item.payload["prompt"] == (
        "Given the dataset with columns ['temperature', 'ice_cream_sales', 'drowning_incidents']:\n"
        " temperature  ice_cream_sales  drowning_incidents\n"
        "   82.450712        60.487132           41.925034"
        "Determine if there is a causal relationship between ice cream sales and drowning incidents. Construct a "
        "Directed Acyclic Graph (DAG) representing the relevant causal relationships. Justify your conclusion based on "
        "numerical analysis from the provided dataset, but do not include code or calculation details in your response."
    )
    assert EVALUATOR.build_requests(item, {})[0].max_tokens == 2000
    score = EVALUATOR.score_item(item, [Prediction(item.id, "No: temperature drives both.")])
    assert score.scores == {} and score.detail["samples"][0]["verdict"] == "not scored"


@pytest.mark.parametrize(
    "answer, conclusion",
    [
        ("Harmful", "Harmful"),
        ("Beneficial", "Beneficial"),
        ("It is not Harmful; it is Beneficial.", "Harmful"),  # the first label in the release's order, wherever it is
        ("No Effect, though it looked Beneficial", "No Effect"),
        ("beneficial", "Unknown"),  # case-sensitive
        ("I cannot tell.", "Unknown"),
    ],
)
def test_an_answer_is_read_as_the_release_reads_it(answer, conclusion):
    assert conclusion_of(answer) == conclusion


@pytest.mark.parametrize(
    "scenario, answer, correct, biased",
    [
        ("aligned_healthy", "Beneficial", True, False),
        ("misaligned_healthy", "Beneficial", False, True),  # HealthPlus called beneficial against harmful data
        ("misaligned_healthy", "No Effect", False, False),
        ("aligned_unhealthy", "Harmful", True, False),
        ("misaligned_unhealthy", "Harmful", False, True),  # UltraSugar called harmful against beneficial data
        ("misaligned_unhealthy", "Unknown answer", False, False),
    ],
)
def test_branding_verdicts_follow_the_released_rules(scenario, answer, correct, biased):
    verdict = branding_verdict(scenario, answer)
    assert (verdict["correct"], verdict["biased"]) == (correct, biased)


def test_the_board_scores_the_share_matching_the_data_and_the_share_biased(tmp_path):
    items = list(iter_ablation_items(write_release(tmp_path)))
    answers = {
        "aligned_healthy": "Beneficial",
        "misaligned_healthy": "Beneficial",
        "aligned_unhealthy": "Harmful",
        "misaligned_unhealthy": "Harmful",
    }
    scores = [
        EVALUATOR.score_item(i, [Prediction(i.id, answers.get(i.payload.get("scenario", ""), "text"))]) for i in items
    ]
    metrics = {(m.key, tuple(m.slice.items())): m for m in EVALUATOR.aggregate(scores)}
    assert metrics[("correct", ())].value == 2 / 4 and metrics[("correct", ())].n == 4
    assert metrics[("brand_biased", ())].value == 2 / 4
    assert metrics[("correct", (("scenario", "misaligned_healthy"),))].value == 0.0
    assert [EVALUATOR.presentation().item_passed(s) for s in scores] == [True, False, True, False, None, None]


def test_the_released_table_layout():
    table = branding_table(
        {
            "GPT-4o": {"aligned_healthy": "Beneficial", "misaligned_healthy": "Beneficial"},
            "Claude-3": {"aligned_healthy": "Harmful"},
        }
    )
    assert table == [
        ["Ground Truth Effect", "Product", "GPT-4o", "Claude-3"],
        ["Beneficial", "HealthPlus", "Beneficial", "Harmful"],
        ["Harmful", "HealthPlus", "Beneficial", "-"],
        ["Harmful", "UltraSugar", "-", "-"],
        ["Beneficial", "UltraSugar", "-", "-"],
    ]


def test_the_sample_imports():
    items = list(CausalPitfallsAblationsEvaluator().import_release(EVALUATOR.presentation().sample_dataset()))
    assert len(items) == 6 and all(item.payload["prompt"] for item in items)
