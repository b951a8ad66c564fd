"""CausalPitfalls' reference rows and the method card's row that describes them, side by side so that the
card says exactly what is computed: "No analysis" (the floor: one non-answer for every item, which a sound
judge scores 0) and "Rubric restated" (the ceiling: each item's filled rubric criteria written out as the
answer, which a sound judge gives full marks). The evaluator turns these answers into predictions files
(``CausalPitfallsEvaluator.baseline_predictions``); the site submits them as marked, unranked rows.
"""

from __future__ import annotations

from collections.abc import Callable

from evaluators.core.types import Item, ProtocolRow

NO_ANALYSIS = "No analysis"
RUBRIC_RESTATED = "Rubric restated"
NO_ANALYSIS_ANSWER = "I cannot draw a conclusion from these data."
#: what joins the criteria's descriptions in the "Rubric restated" answer
CRITERIA_JOINER = " "
#: the released code's results, where the released side of the card's row was read
RESULTS = "llm_evaluation/get_final_results.py"


def rubric_restated(item: Item) -> str:
    """The ceiling's answer to ``item``: its rubric criteria's descriptions (filled from the answer key) in
    the rubric's order, joined by a space."""
    return CRITERIA_JOINER.join(str(criterion["desc"]) for criterion in item.payload["criteria"])


#: each reference row's name and its answer to an item, in the order they are submitted
BASELINE_ANSWERS: dict[str, Callable[[Item], str]] = {
    NO_ANALYSIS: lambda item: NO_ANALYSIS_ANSWER,
    RUBRIC_RESTATED: rubric_restated,
}


def baselines_row(protocol: str) -> ProtocolRow:
    """The method card's "Baselines" row for ``protocol`` ("direct" or "code")."""
    here = (
        f"Two reference rows, graded by the board's judge like any submission and shown marked, never ranked. "
        f'"{NO_ANALYSIS}" answers every item "{NO_ANALYSIS_ANSWER}" (a sound judge gives 0). '
        f'"{RUBRIC_RESTATED}" answers each item with its rubric criteria\'s descriptions, filled from the '
        "answer key as the judge sees them, in the rubric's order and joined by a space (a sound judge gives "
        "full marks)."
    )
    if protocol == "code":
        here += (
            " Both turns are answered with that same text; it holds no program, so nothing runs, the final "
            "prompt says no code block was found, and every item counts as a sandbox failure."
        )
    return ProtocolRow(
        "Baselines",
        "None: the released code scores and tabulates only the five LLMs it queried (LLM_ORDER); it has no "
        "reference answers.",
        here,
        "They show what the judge makes of known answers: a floor above 0 or a ceiling below 1 measures the "
        "judge's error on this board, not a model's.",
        RESULTS,
    )
