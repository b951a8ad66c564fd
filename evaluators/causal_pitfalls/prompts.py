"""CausalPitfalls' prompts: the direct question, the code-assisted request and its final turn, and the
rubric judge's prompt.

Both protocols show the data in one seeded shuffle per item (the released code's shuffle had no seed):
the direct one 100 rows and "answer without code"; the code-assisted one the file's path under
/data, its columns and 10 rows, and asks for one Python program. After the program ran in the data
sandbox, the final turn gives back the code and its output (or the error, or that no program was
found) and asks for the answer. The judge prompt ``causal-pitfalls-rubric@v1`` shows the filled rubric
criteria and the answer, as the released scorer does (not the question, the data or the answer key),
and asks for ``{"scores": [0 or 1, ...]}`` in the criteria's order.
"""
from __future__ import annotations

import json
import random
from typing import Any

from evaluators.causal_pitfalls.release import DIRECT_ROWS, SAMPLE_ROWS
from evaluators.llm.judges import JudgePrompt, register_prompt
from evaluators.sandbox.analysis import ANALYSIS_LIMITS, DATA_DIR

LIBRARIES = "numpy, pandas, scipy, statsmodels and scikit-learn"

JUDGE_PROMPT = register_prompt(JudgePrompt(
    "causal-pitfalls-rubric", "v1",
    system="You are a strict grader of answers to statistical causal-inference questions. For each rubric "
           "criterion, give 1 only if the answer clearly meets it, otherwise 0.",
    user="Rubric criteria (in order):\n$criteria\n\nAnswer to grade:\n$answer\n\n"
         "Return only JSON of the form {\"scores\": [0 or 1 for each criterion, in order]} with exactly "
         "$count numbers."))


def shuffled_rows(rows: list[list[str]], seed: int, count: int) -> list[list[str]]:
    """The first ``count`` rows of one seeded shuffle (the same for both protocols of an item)."""
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    return [rows[i] for i in order[:count]]


def _table(columns: list[str], rows: list[list[str]]) -> str:
    return "\n".join([",".join(columns)] + [",".join(row) for row in rows])


def direct_messages(payload: dict[str, Any], seed: int) -> list[dict[str, str]]:
    rows = shuffled_rows(payload["rows"], seed, DIRECT_ROWS)
    text = (f"{payload['question']}\n\nHere are {len(rows)} rows of the data (of {len(payload['rows'])}, in random order), "
            f"as CSV:\n```csv\n{_table(payload['columns'], rows)}\n```\n\n"
            "Analyse the data directly, without writing or running code, and answer the question.")
    return [{"role": "user", "content": text}]


def code_messages(payload: dict[str, Any], seed: int) -> list[dict[str, str]]:
    rows = shuffled_rows(payload["rows"], seed, SAMPLE_ROWS)
    text = (f"{payload['question']}\n\nThe data is the CSV file {DATA_DIR}/{payload['csv_name']} "
            f"({len(payload['rows'])} rows). Its columns: {', '.join(payload['columns'])}. {len(rows)} of its rows, "
            f"in random order:\n```csv\n{_table(payload['columns'], rows)}\n```\n\n"
            f"Write one Python program that analyses the file to answer the question. It may use {LIBRARIES}; "
            f"there is no network, nothing can be installed, and it must finish within "
            f"{ANALYSIS_LIMITS.wall_seconds:g} seconds. Print every number you need. Give the program in a single "
            "```python code block.")
    return [{"role": "user", "content": text}]


def final_turn(code: str | None, outcome: str) -> str:
    """The follow-up after the program: what ran and what it printed, then the request for the answer."""
    if code is None:
        ran = "Your reply had no ```python code block, so no program was run."
    else:
        ran = f"Your program was run:\n```python\n{code.rstrip()}\n```\nIts result:\n```\n{outcome.rstrip()}\n```"
    return (f"{ran}\n\nNow answer the question, using this result where it helps. Give your final answer in words "
            "and numbers; do not write more code.")


def judge_variables(criteria: list[dict[str, Any]], answer: str) -> dict[str, str]:
    listed = "\n".join(f"{i + 1}. " + json.dumps(c, ensure_ascii=False) for i, c in enumerate(criteria))
    return {"criteria": listed, "answer": answer.strip() or "(no answer)", "count": str(len(criteria))}
