"""An example predictions file for any Multi-LCB dataset version: the shipped reference solution
of each item where there is one, fenced as a model would answer, and a plain "no answer" elsewhere.

Newcomers download it from the submit page to see the format and get a first score."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from evaluators.core import Item
from evaluators.sandbox import LANGUAGES

SOLUTIONS = Path(__file__).parent / "data" / "solutions"
#: file extension of each language's sources (solutions are named ``<question_id>/<language>.<ext>``)
EXTENSIONS: dict[str, str] = {key: Path(lang.source_name).suffix.lstrip(".") for key, lang in LANGUAGES.items()}


def reference_solution(question_id: str, language: str) -> str | None:
    path = SOLUTIONS / question_id / f"{language}.{EXTENSIONS[language]}"
    return path.read_text(encoding="utf-8") if path.is_file() else None


def example_predictions(items: Sequence[Item]) -> bytes:
    lines = []
    for item in items:
        question_id, language = item.id.rsplit("/", 1)
        code = reference_solution(question_id, language)
        output = f"Here is my solution.\n\n```{language}\n{code.rstrip()}\n```\n" if code else "I don't know."
        lines.append(json.dumps({"item_id": item.id, "sample_index": 0, "output": output}, ensure_ascii=False))
    return ("\n".join(lines) + "\n").encode("utf-8")
