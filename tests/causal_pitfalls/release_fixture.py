"""A small release in CausalPitfalls' released layout, written for these tests, with every quirk met in the
authors' real release (our own names, numbers and sentences; none of their records).

The layout was checked against the real release (``challenges/<challenge>/{questions,answer_key,rubric}.json``
and CSVs beside them, read with ``git ls-tree`` / ``git show`` on the fetched repository): questions a list
of ``{"difficulty", "prompt"}``, answer keys a list of flat objects naming their CSV in ``dataset``, rubrics
``{"criteria": [...], "max_score", ...}`` with extra keys (``instructions``, ``scoring_method``, ``scale``).
The quirks reproduced, each where the real release has it:

- temporal_stability: the rubric writes ``{VARIABLE_T} 1`` / ``{VARIABLE_T} 2``, the key has no VARIABLE_T,
  the CSV has a ``period`` column of 1 and 2; bare key names (``EFFECT_A``) in a keyword list;
- observational_vs_experimental_reasoning: ``{ADJUSTED_DIRECTION}`` in the rubric, given by one answer-key
  entry and missing from the other;
- casual_effect (the released spelling): a very-easy question that states the true effect and its tolerance
  and lists the confounders and irrelevant features, an easy one with the lists only;
- treatment_mediator: a CSV named differently from its key entry (``stimulus.csv`` / ``stimulus_interaction.csv``),
  ``<KEY>`` placeholders, numbers given as strings;
- dag_structure_markequi: a CSV without an answer-key entry, placeholders with digits (``{VARIABLE_X1}``), a
  rubric whose ``max_score`` (4) is not its number of criteria (3);
- counterfactual notation in braces (``Y_{x=1}``) that is not a placeholder.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DIFFICULTIES = ("very_easy", "easy", "medium", "hard", "very_hard")


def _questions(prompts: dict[str, str]) -> list[dict[str, str]]:
    return [{"difficulty": d, "prompt": prompts.get(d, prompts["very_hard"])} for d in DIFFICULTIES]


CHALLENGES: dict[str, dict[str, Any]] = {
    "temporal_stability": {
        "questions": _questions(
            {
                "very_easy": "Estimate the effect of {VARIABLE_X2} on {VARIABLE_Y}, separately for each {VARIABLE_X1} "
                "window.",
                "very_hard": "Does {VARIABLE_X2} change {VARIABLE_Y}?",
            }
        ),
        "keys": [
            {
                "dataset": "drift.csv",
                "VARIABLE_X1": "time",
                "VARIABLE_X2": "ads",
                "VARIABLE_Y": "sales",
                "EFFECT_A": 2,
                "EFFECT_B": 0.5,
                "TOLERANCE": 0.1,
            }
        ],
        "rubric": {
            "instructions": "1 per criterion met.",
            "max_score": 2,
            "criteria": [
                {
                    "id": "PERIODS",
                    "type": "keyword",
                    "desc": "Separates {VARIABLE_T} 1 from {VARIABLE_T} 2",
                    "keywords": ["{VARIABLE_T} 1", "{VARIABLE_T} 2"],
                },
                {
                    "id": "FIRST",
                    "type": "keyword",
                    "desc": "Gives {EFFECT_A} (within {TOLERANCE}) for {VARIABLE_X2}",
                    "keywords": ["EFFECT_A"],
                },
            ],
        },
        "csvs": {"drift.csv": "time,ads,sales,period\n0,1.0,2.1,1\n1,2.0,4.0,1\n2,1.0,0.6,2\n3,2.0,1.1,2\n"},
    },
    "observational_vs_experimental_reasoning": {
        "questions": _questions(
            {
                "very_easy": "Does {TREATMENT} affect {OUTCOME}? Adjust for {TRUE_CONFOUNDERS}.",
                "very_hard": "Does {TREATMENT} affect {OUTCOME}?",
            }
        ),
        "keys": [
            {
                "dataset": "naps.csv",
                "TREATMENT": "nap",
                "OUTCOME": "focus",
                "TRUE_CONFOUNDERS": ["age", "shift"],
                "ADJUSTED_DIRECTION": "no_effect",
                "ADJUSTED_P_DIFF": 0.01,
                "TOLERANCE": 0.02,
            },
            {
                "dataset": "tea.csv",
                "TREATMENT": "tea",
                "OUTCOME": "calm",
                "TRUE_CONFOUNDERS": ["age"],
                "ADJUSTED_P_DIFF": -0.02,
                "TOLERANCE": 0.02,
            },
        ],
        "rubric": {
            "scoring_method": "sum of criteria",
            "max_score": 2,
            "criteria": [
                {"id": "CONFOUNDERS", "desc": "Names {TRUE_CONFOUNDERS}", "expected": "{TRUE_CONFOUNDERS}"},
                {"id": "CONCLUSION", "desc": "Concludes {ADJUSTED_DIRECTION}", "expected": "{ADJUSTED_DIRECTION}"},
            ],
        },
        "csvs": {"naps.csv": "nap,focus,age,shift\n1,1,30,0\n0,0,50,1\n", "tea.csv": "tea,calm,age\n1,1,30\n0,1,40\n"},
    },
    "casual_effect": {
        "questions": _questions(
            {
                "very_easy": "Estimate the {CAUSAL_ESTIMAND} of {TREATMENT} on {OUTCOME}, adjusting for "
                "{TRUE_CONFOUNDERS} and "
                "ignoring {IRRELEVANT_FEATURES}; the answer lies within ±{TOLERANCE} of {TRUE_CAUSAL_EFFECT}.",
                "easy": "Estimate the {CAUSAL_ESTIMAND} of {TREATMENT} on {OUTCOME}; confounders: {TRUE_CONFOUNDERS}; "
                "irrelevant: {IRRELEVANT_FEATURES}.",
                "very_hard": "Does {TREATMENT} affect {OUTCOME}?",
            }
        ),
        "keys": [
            {
                "dataset": "clinic.csv",
                "TREATMENT": "pill",
                "OUTCOME": "cured",
                "CAUSAL_ESTIMAND": "ATE",
                "TRUE_CONFOUNDERS": ["age", "severity"],
                "IRRELEVANT_FEATURES": ["noise"],
                "TRUE_CAUSAL_EFFECT": 0.25,
                "TOLERANCE": 0.05,
            }
        ],
        "rubric": {
            "scale": "0 or 1",
            "max_score": 1,
            "criteria": [{"id": "EFFECT", "desc": "Reports {TRUE_CAUSAL_EFFECT} within {TOLERANCE}"}],
        },
        "csvs": {"clinic.csv": "pill,cured,age,severity,noise\n1,1,40,2,0.3\n0,0,60,3,0.9\n"},
    },
    "treatment_mediator": {
        "questions": _questions({"very_hard": "Does {TREATMENT} raise {OUTCOME}?"}),
        "keys": [
            {
                "dataset": "stimulus_interaction.csv",
                "TREATMENT": "grant",
                "OUTCOME": "output",
                "MEDIATOR": "hiring",
                "ADJUSTED_TREATMENT_EFFECT": "1.5",
                "TOLERANCE": 0.05,
            }
        ],
        "rubric": {
            "max_score": 1,
            "criteria": [
                {"id": "MEDIATOR", "desc": "Separates <TREATMENT> from <MEDIATOR>; effect <ADJUSTED_TREATMENT_EFFECT>"}
            ],
        },
        "csvs": {"stimulus.csv": "grant,hiring,output\n1,3,9\n0,1,4\n"},
    },
    "dag_structure_markequi": {
        "questions": _questions(
            {
                "very_hard": "Which graphs over {VARIABLE_X1}, {VARIABLE_X2} and {VARIABLE_X3} fit? "
                "Compare Y_{x=1} with Y_{x=0}."
            }
        ),
        "keys": [
            {
                "dataset": "sleep.csv",
                "VARIABLE_X1": "sleep",
                "VARIABLE_X2": "alert",
                "VARIABLE_X3": "work",
                "TRUE_GRAPH": ["sleep->alert", "alert->work"],
            }
        ],
        "rubric": {
            "max_score": 4,
            "criteria": [
                {"id": "CHAIN", "desc": "Finds {TRUE_GRAPH}"},
                {"id": "EQUIVALENT", "desc": "Names the equivalent graphs"},
                {"id": "NODES", "desc": "Uses {VARIABLE_X1}, {VARIABLE_X2}, {VARIABLE_X3}"},
            ],
        },
        "csvs": {"sleep.csv": "sleep,alert,work\n7,5,3\n5,3,2\n", "dag_sem.csv": "a,b,c\n1,2,3\n4,5,6\n"},
    },
}


def write_release(root: Path) -> Path:
    """Write the release under ``root`` (as ``root/challenges``) and return ``root``."""
    for name, spec in CHALLENGES.items():
        folder = root / "challenges" / name
        folder.mkdir(parents=True)
        (folder / "questions.json").write_text(json.dumps(spec["questions"], indent=2))
        (folder / "answer_key.json").write_text(json.dumps(spec["keys"], indent=2))
        (folder / "rubric.json").write_text(json.dumps(spec["rubric"], indent=2))
        for csv_name, text in spec["csvs"].items():
            (folder / csv_name).write_text(text)
    return root
