"""CausalPitfalls' prompts: the direct question, the code-assisted request and its final prompt, the
preamble the data sandbox runs before a program, and the rubric judge's prompt.

Both protocols show the data in one seeded shuffle per item (the released code's shuffle had no seed):
the direct one 100 rows and "answer without code"; the code-assisted one the file's path under
/data, its columns and 10 rows, and asks for one Python program. After the program ran in the data
sandbox, a fresh single-message prompt, as the released code sends it, gives the question, the
program and its result (or the error, or that no program was found); the model answers that.
Before the program the sandbox runs PREAMBLE, which binds the names the released harness imported in
front of every program (pd, np, sm, smf, ols, logit, plt, sns, os), importing each library on first use.

The judge prompt ``causal-pitfalls-rubric@v2`` is our wording of the released grader's: a careful
grader of causal-reasoning answers, 1 for a criterion the text satisfies and 0 otherwise, the criteria
as indented JSON with every value a string, the answer, and "only a JSON object of scores in the
criteria's order" (we add the count). Like the released scorer it shows the filled rubric and the answer,
not the question, the data or the answer key. ``v1`` (a stricter "clearly meets it") stays registered
so that scores made with it remain explained.
"""

from __future__ import annotations

import json
import random
from typing import Any

from evaluators.causal_pitfalls.release import DIRECT_ROWS, SAMPLE_ROWS
from evaluators.llm.judges import JudgePrompt, register_prompt
from evaluators.sandbox.analysis import ANALYSIS_LIMITS, DATA_DIR

LIBRARIES = "numpy, pandas, scipy, statsmodels, scikit-learn, matplotlib and seaborn"
#: run before every program: the names the released harness imported in front of every program (pd, np,
#: sm, smf, ols, logit, plt, sns, os), each library imported when the program first uses it, so a program
#: that never plots does not pay seaborn's and matplotlib's seconds of import
PREAMBLE = """import importlib as _importlib
import os


class _OnFirstUse:
    def __init__(self, name):
        self._name, self._module = name, None

    def __getattr__(self, attribute):
        if self._module is None:
            self._module = _importlib.import_module(self._name)
        return getattr(self._module, attribute)


pd, np = _OnFirstUse("pandas"), _OnFirstUse("numpy")
sm, smf = _OnFirstUse("statsmodels.api"), _OnFirstUse("statsmodels.formula.api")
plt, sns = _OnFirstUse("matplotlib.pyplot"), _OnFirstUse("seaborn")


def ols(*args, **kwargs):
    return smf.ols(*args, **kwargs)


def logit(*args, **kwargs):
    return smf.logit(*args, **kwargs)


"""

register_prompt(
    JudgePrompt(
        "causal-pitfalls-rubric",
        "v1",
        system="You are a strict grader of answers to statistical causal-inference questions. For each rubric "
        "criterion, give 1 only if the answer clearly meets it, otherwise 0.",
        user="Rubric criteria (in order):\n$criteria\n\nAnswer to grade:\n$answer\n\n"
        'Return only JSON of the form {"scores": [0 or 1 for each criterion, in order]} with exactly '
        "$count numbers.",
    )
)
JUDGE_PROMPT = register_prompt(
    JudgePrompt(
        "causal-pitfalls-rubric",
        "v2",
        system="You critically assess answers written by language models, and reply only with scores of 0 or 1, "
        "one per criterion.",
        user="You grade answers to causal-reasoning questions with care. Check the text below against each of "
        "these criteria: 1 if the text satisfies the criterion, 0 if it does not.\n\nCRITERIA:\n$criteria\n\n"
        "TEXT TO GRADE:\n$answer\n\nReply with nothing but a JSON object holding the 0/1 scores in the "
        'criteria\'s order, exactly $count of them, e.g. {"scores": [0, 1, 1]}.',
    )
)


def shuffled_rows(rows: list[list[str]], seed: int, count: int) -> list[list[str]]:
    """The first ``count`` rows of one seeded shuffle (the same for both protocols of an item)."""
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    return [rows[i] for i in order[:count]]


def _table(columns: list[str], rows: list[list[str]]) -> str:
    return "\n".join([",".join(columns)] + [",".join(row) for row in rows])


def direct_messages(payload: dict[str, Any], question: str, seed: int) -> list[dict[str, str]]:
    rows = shuffled_rows(payload["rows"], seed, DIRECT_ROWS)
    text = (
        f"{question}\n\nHere are {len(rows)} rows of the data (of {len(payload['rows'])}, in random order), "
        f"as CSV:\n```csv\n{_table(payload['columns'], rows)}\n```\n\n"
        "Analyse the data directly, without writing or running code, and answer the question."
    )
    return [{"role": "user", "content": text}]


def code_messages(payload: dict[str, Any], question: str, seed: int) -> list[dict[str, str]]:
    rows = shuffled_rows(payload["rows"], seed, SAMPLE_ROWS)
    text = (
        f"{question}\n\nThe data is the CSV file {DATA_DIR}/{payload['csv_name']} "
        f"({len(payload['rows'])} rows). Its columns: {', '.join(payload['columns'])}. {len(rows)} of its rows, "
        f"in random order:\n```csv\n{_table(payload['columns'], rows)}\n```\n\n"
        f"Write one Python program that analyses the file to answer the question. It may use {LIBRARIES}; "
        f"there is no network, nothing can be installed, and it must finish within "
        f"{ANALYSIS_LIMITS.wall_seconds:g} seconds. Print every number you need. Give the program in a single "
        "```python code block."
    )
    return [{"role": "user", "content": text}]


def final_prompt(question: str, code: str | None, outcome: str) -> str:
    """The code-assisted protocol's last prompt, a fresh conversation of one message, in the released
    layout (llm_evaluation/get_responses.py): "Question: ", then "Code:" and the program, then "Results:"
    and what running it gave, nothing more (the released code added no instruction)."""
    shown = "(no program: the reply held no ```python code block)" if code is None else code.strip()
    result = "(nothing was run)" if code is None else outcome.rstrip()
    return f"Question: {question}\n\nCode:\n{shown}\n\nResults:\n{result}\n"


def scores_schema(count: int) -> dict[str, Any]:
    """The JSON schema of the judge's answer to a rubric of ``count`` criteria: {"scores": [0 or 1, ...]}."""
    return {
        "type": "object",
        "required": ["scores"],
        "additionalProperties": False,
        "properties": {
            "scores": {
                "type": "array",
                "items": {"type": "integer", "enum": [0, 1]},
                "minItems": count,
                "maxItems": count,
            }
        },
    }


def _stringified(value: Any) -> Any:
    if isinstance(value, list):
        return [_stringified(v) for v in value]
    if isinstance(value, dict):
        return {k: _stringified(v) for k, v in value.items()}
    return str(value)


def judge_variables(criteria: list[dict[str, Any]], answer: str, version: str = JUDGE_PROMPT.version) -> dict[str, str]:
    """The judge prompt's variables: v2 shows the criteria as the released scorer did (indented JSON,
    every value a string), v1 as a numbered list of one JSON object each."""
    if version == "v1":
        listed = "\n".join(f"{i + 1}. " + json.dumps(c, ensure_ascii=False) for i, c in enumerate(criteria))
    else:
        listed = json.dumps(_stringified(criteria), indent=2, ensure_ascii=False)
    return {"criteria": listed, "answer": answer.strip() or "(no answer)", "count": str(len(criteria))}
