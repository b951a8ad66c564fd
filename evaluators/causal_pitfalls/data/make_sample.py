"""Build the CausalPitfalls sample release: ``sample/challenges/<challenge>/`` in the released layout.

Written for this project (same licence as the code): four challenges (Simpson's paradox, Berkson's
paradox, mediation with an outcome confounder, population shift), each with five datasets drawn from
the seeded structural causal models of ``evaluators.causal_pitfalls.scm``, ``questions.json`` at all
five difficulties (hints removed as they rise), ``answer_key.json`` (variable names and the answer
targets the generator computed from the rows) and ``rubric.json``. Running it again rewrites
byte-identical files.

Usage::

    python evaluators/causal_pitfalls/data/make_sample.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from evaluators.causal_pitfalls.scm import GENERATORS, THEMES

DEFAULT_OUT = Path(__file__).resolve().parent / "sample"
SEED = 20261201
FILES = ("scenario", "variant1", "variant2", "variant3", "variant4")

QUESTIONS: dict[str, dict[str, str]] = {
    "simpson_paradox": {
        "very_easy": "Evaluate whether {TREATMENT} causally affects {OUTCOME}. Hint: {CONFOUNDER} is a confounder that "
        "affects both who gets {TREATMENT} and {OUTCOME}, so the crude comparison may reverse (Simpson's "
        "paradox). Compare the crude difference in {OUTCOME} rates with the difference within each level of "
        "{CONFOUNDER}, give the adjusted effect, and say whether {TREATMENT} helps.",
        "easy": "Evaluate whether {TREATMENT} causally affects {OUTCOME}. {CONFOUNDER} may confound the relationship: "
        "report the crude and the {CONFOUNDER}-adjusted differences and your conclusion.",
        "medium": "Evaluate whether {TREATMENT} causally affects {OUTCOME}, taking possible confounders into account. "
        "Report the size and direction of the effect.",
        "hard": "Does {TREATMENT} improve {OUTCOME}? Estimate the effect and justify your analysis.",
        "very_hard": "Evaluate whether {TREATMENT} causally affects {OUTCOME}.",
    },
    "berkson_paradox": {
        "very_easy": "Are {VARIABLE_X} and {VARIABLE_Y} associated in the population? Hint: {COLLIDER_VARIABLE} "
        "depends on "
        "both, and looking only at rows with {COLLIDER_VARIABLE} = 1 induces a spurious association "
        "(Berkson's paradox). Compare the correlation among those rows with the correlation in all rows.",
        "easy": "Are {VARIABLE_X} and {VARIABLE_Y} associated in the population? Beware of selection on "
        "{COLLIDER_VARIABLE}; report the correlations you compare.",
        "medium": "Are {VARIABLE_X} and {VARIABLE_Y} associated in the population? Consider how the rows were "
        "selected.",
        "hard": "Among cases with {COLLIDER_VARIABLE} = 1, {VARIABLE_X} and {VARIABLE_Y} look negatively related. Is "
        "there "
        "a real relationship between them?",
        "very_hard": "Is there a relationship between {VARIABLE_X} and {VARIABLE_Y}?",
    },
    "mediation_outcome_confounder": {
        "very_easy": "Estimate how much of the effect of {TREATMENT} on {OUTCOME} is direct and how much goes through "
        "{VARIABLE_M}. Hint: {CONFOUNDER} affects both {VARIABLE_M} and {OUTCOME}; adjust for it in the "
        "regressions of {VARIABLE_M} and of {OUTCOME}, then give the direct effect and the indirect effect "
        "(the product of the two path coefficients).",
        "easy": "Estimate the direct effect of {TREATMENT} on {OUTCOME} and its indirect effect through {VARIABLE_M}. "
        "{CONFOUNDER} may confound the mediator-outcome relationship.",
        "medium": "Decompose the effect of {TREATMENT} on {OUTCOME} into a direct effect and an indirect effect "
        "through "
        "{VARIABLE_M}, adjusting for what is needed.",
        "hard": "How does {TREATMENT} affect {OUTCOME}, and what role does {VARIABLE_M} play? Quantify the paths.",
        "very_hard": "Does {TREATMENT} affect {OUTCOME} directly, through {VARIABLE_M}, or both?",
    },
    "population_shift": {
        "very_easy": "The data come from a randomised trial of {TREATMENT} on {OUTCOME} in a population where "
        "{VARIABLE_U} "
        "ranges from 20 to 40. Hint: the effect of {TREATMENT} changes with {VARIABLE_U}, so fit {OUTCOME} on "
        "{TREATMENT}, {VARIABLE_U} and their interaction, and evaluate the effect at the target population's "
        "mean {VARIABLE_U} of {TARGET_MEAN}. What effect should the target population expect?",
        "easy": "A trial of {TREATMENT} on {OUTCOME} was run where {VARIABLE_U} is 20 to 40. The target population "
        "has mean "
        "{VARIABLE_U} {TARGET_MEAN}. Check whether the effect depends on {VARIABLE_U} and estimate the effect in the "
        "target population.",
        "medium": "Estimate the effect of {TREATMENT} on {OUTCOME} for a target population whose mean {VARIABLE_U} is "
        "{TARGET_MEAN}.",
        "hard": "Will the trial's effect of {TREATMENT} on {OUTCOME} hold in a population with mean {VARIABLE_U} "
        "{TARGET_MEAN}? Quantify it.",
        "very_hard": "What effect of {TREATMENT} on {OUTCOME} should a population with mean {VARIABLE_U} {TARGET_MEAN} "
        "expect?",
    },
}

RUBRICS: dict[str, list[dict[str, Any]]] = {
    "simpson_paradox": [
        {
            "id": "CONFOUNDER_IDENTIFIED",
            "type": "keyword",
            "desc": "Identifies {CONFOUNDER} as a confounder of {TREATMENT} and {OUTCOME} (or stratifies by it).",
        },
        {
            "id": "NAIVE_DIRECTION",
            "type": "direction",
            "desc": "Notes that the crude association of {TREATMENT} with {OUTCOME} is {NAIVE_DIRECTION} "
            "(about {NAIVE_ESTIMATE} in rate difference).",
        },
        {
            "id": "CORRECT_CAUSAL_CONCLUSION",
            "type": "direction",
            "desc": "Concludes that after adjusting for {CONFOUNDER} the effect of {TREATMENT} on {OUTCOME} is "
            "{TRUE_RELATIONSHIP}.",
        },
        {
            "id": "CORRECT_NUMERIC_ADJUSTED",
            "type": "numeric",
            "targets": ["{CORRECTED_ESTIMATE}"],
            "tolerance": "{TOLERANCE}",
            "desc": "Gives an adjusted effect (rate difference) within ±{TOLERANCE} of {CORRECTED_ESTIMATE}.",
        },
        {
            "id": "PARADOX_RECOGNITION",
            "type": "keyword",
            "keywords": ["Simpson", "reversal", "confounding"],
            "desc": "Recognises that the crude and adjusted comparisons disagree (Simpson's paradox).",
        },
    ],
    "berkson_paradox": [
        {
            "id": "COLLIDER_IDENTIFIED",
            "type": "keyword",
            "desc": "Identifies {COLLIDER_VARIABLE} as a collider (selection) that depends on {VARIABLE_X} and "
            "{VARIABLE_Y}.",
        },
        {
            "id": "NAIVE_DIRECTION",
            "type": "direction",
            "desc": "Notes that among rows with {COLLIDER_VARIABLE} = 1 the association is {NAIVE_DIRECTION} "
            "(correlation about {NAIVE_ESTIMATE}).",
        },
        {
            "id": "CORRECT_CONCLUSION",
            "type": "direction",
            "desc": "Concludes that in the whole population the relationship is {TRUE_RELATIONSHIP} "
            "(correlation about {CORRECTED_ESTIMATE}, within ±{TOLERANCE}).",
        },
        {
            "id": "PARADOX_RECOGNITION",
            "type": "keyword",
            "keywords": ["Berkson", "selection bias", "collider"],
            "desc": "Explains that selecting on {COLLIDER_VARIABLE} creates a spurious association (Berkson's "
            "paradox).",
        },
    ],
    "mediation_outcome_confounder": [
        {
            "id": "CONFOUNDER_ADJUSTED",
            "type": "justification",
            "desc": "Adjusts for {CONFOUNDER} when estimating the {VARIABLE_M} -> {OUTCOME} path.",
        },
        {
            "id": "DIRECT_EFFECT",
            "type": "numeric",
            "targets": ["{CORRECTED_DIRECT}"],
            "tolerance": "{TOLERANCE}",
            "desc": "Gives a direct effect of {TREATMENT} on {OUTCOME} within ±{TOLERANCE} of {CORRECTED_DIRECT}.",
        },
        {
            "id": "INDIRECT_EFFECT",
            "type": "numeric",
            "targets": ["{CORRECTED_INDIRECT}"],
            "tolerance": "{TOLERANCE}",
            "desc": "Gives an indirect effect through {VARIABLE_M} within ±{TOLERANCE} of {CORRECTED_INDIRECT}.",
        },
        {
            "id": "BOTH_PATHS",
            "type": "logical",
            "desc": "Concludes that {TREATMENT} affects {OUTCOME} both directly and through {VARIABLE_M}.",
        },
    ],
    "population_shift": [
        {
            "id": "MODIFIER_IDENTIFIED",
            "type": "justification",
            "desc": "Finds that the effect of {TREATMENT} grows with {VARIABLE_U} (an interaction).",
        },
        {
            "id": "NAIVE_NOT_TRANSPORTED",
            "type": "contrast_direction",
            "desc": "Says the trial's average effect (about {NAIVE_ESTIMATE}) does not carry over unchanged to the "
            "target population.",
        },
        {
            "id": "TRANSPORTED_EFFECT",
            "type": "numeric",
            "targets": ["{CORRECTED_ESTIMATE}"],
            "tolerance": "{TOLERANCE}",
            "desc": "Gives an effect for the target population within ±{TOLERANCE} of {CORRECTED_ESTIMATE}.",
        },
        {
            "id": "EXTRAPOLATION_LIMITATION",
            "type": "limitation",
            "desc": "Warns that {TARGET_MEAN} lies outside the trial's {VARIABLE_U} range, so the estimate "
            "extrapolates.",
        },
    ],
}


def build(out: Path) -> int:
    if out.exists():
        shutil.rmtree(out)
    root = out / "challenges"
    count = 0
    for index, (challenge, generate) in enumerate(sorted(GENERATORS.items())):
        folder = root / challenge
        folder.mkdir(parents=True)
        keys = []
        for number, (stem, names) in enumerate(zip(FILES, THEMES[challenge])):
            generated = generate(SEED + 100 * index + number, names)
            name = f"{challenge}_{stem}.csv"
            (folder / name).write_text(generated.csv(), encoding="utf-8")
            keys.append({"dataset": name, **names, **generated.facts})
            count += 1
        questions = [{"difficulty": d, "prompt": p} for d, p in QUESTIONS[challenge].items()]
        rubric = {
            "criteria": RUBRICS[challenge],
            "max_score": len(RUBRICS[challenge]),
            "scale": "0-1 per criterion; total = sum",
        }
        for file_name, data in (("questions.json", questions), ("answer_key.json", keys), ("rubric.json", rubric)):
            (folder / file_name).write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args()
    print(f"wrote {build(args.out)} datasets to {args.out}")


if __name__ == "__main__":
    main()
