"""Reading CausalPitfalls' released challenges as they are.

A release is a folder holding ``challenges/`` (or that folder itself): one folder per challenge
(released names kept, ``casual_effect`` included), each with ``questions.json`` (a list of
``{"difficulty", "prompt"}``, five difficulties), ``answer_key.json`` (a list of flat objects, one per
dataset, naming its CSV in ``dataset``), ``rubric.json`` (``{"criteria": [{"id", "desc", "type", ...}],
"max_score", ...}``) and the datasets' CSV files. The six categories are not folders: CATEGORIES maps
each challenge to its category.

One item per (challenge, dataset, difficulty). A question's placeholders (``{KEY}``, ``<KEY>``, digits
allowed: ``{VARIABLE_X1}``, ``{GROUP_1}``) are filled from the dataset's answer-key entry, since what a
level gives away (the confounders, the true effect and its tolerance at the easiest levels) is what
defines it; the question as released, placeholders unfilled (what the authors' code sent), is kept
beside it for the ``as_released`` setting. The rubric is filled from the whole entry (lists as
"(a, b)") and only ever shown to the judge. Where the release names a value differently from its key
(COLUMN_ALIASES: temporal stability's rubric writes ``{VARIABLE_T} 1`` for the dataset's ``period``
column, a name its key never gives) the alias fills it when the dataset has that column. Every
placeholder still unfilled is kept in the payload and named in the dataset's notes; ``{x=1}`` and other
lower-case braces are notation, not placeholders.

A CSV is matched to its answer-key entry by file name, else by a unique name containing it (the released
``economic_stimulus.csv`` / ``economic_stimulus_interaction.csv``); a CSV with no entry, or an entry with
no CSV, is skipped with its reason, never scored against another dataset's key.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from evaluators.core.types import DatasetError, Item

DIFFICULTIES: tuple[str, ...] = ("very_easy", "easy", "medium", "hard", "very_hard")
CATEGORY_LABELS: dict[str, str] = {
    "confounding": "Confounding",
    "intervention": "Intervention",
    "counterfactual": "Counterfactual",
    "mediation": "Mediation",
    "causal_discovery": "Causal discovery",
    "external_validity": "External validity",
}
CATEGORIES: dict[str, str] = {
    "simpson_paradox": "confounding",
    "berkson_paradox": "confounding",
    "observational_vs_experimental_reasoning": "intervention",
    "casual_effect": "intervention",
    "counterfactual_reasoning": "counterfactual",
    "necessity_sufficiency": "counterfactual",
    "mediation_outcome_confounder": "mediation",
    "sequential_mediator": "mediation",
    "treatment_mediator": "mediation",
    "causal_direction_iv": "causal_discovery",
    "dag_structure_markequi": "causal_discovery",
    "population_shift": "external_validity",
    "moderation_effect": "external_validity",
    "temporal_stability": "external_validity",
    "domain_shift": "external_validity",
}
#: each challenge (a released folder name: "casual_effect" is the release's spelling) in words
CHALLENGE_LABELS: dict[str, str] = {
    "simpson_paradox": "Simpson's paradox",
    "berkson_paradox": "Berkson's paradox",
    "observational_vs_experimental_reasoning": "Observational vs. experimental reasoning",
    "casual_effect": "Causal effect",
    "counterfactual_reasoning": "Counterfactual reasoning",
    "necessity_sufficiency": "Necessity and sufficiency",
    "mediation_outcome_confounder": "Mediator-outcome confounder",
    "sequential_mediator": "Sequential mediators",
    "treatment_mediator": "Treatment-mediator",
    "causal_direction_iv": "Causal direction (instrumental variable)",
    "dag_structure_markequi": "DAG structure (Markov equivalence)",
    "population_shift": "Population shift",
    "moderation_effect": "Moderation effect",
    "temporal_stability": "Temporal stability",
    "domain_shift": "Domain shift",
}
DIFFICULTY_LABELS: dict[str, str] = {d: d.replace("_", " ").capitalize() for d in DIFFICULTIES}
PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}|<([A-Z][A-Z0-9_]*)>")
#: placeholders a challenge's files use for something its answer key names otherwise: challenge ->
#: placeholder -> the dataset column it stands for (filled only where the CSV has that column).
#: temporal_stability's rubric writes "{VARIABLE_T} 1" / "{VARIABLE_T} 2" for the two periods; its key
#: has no VARIABLE_T (its VARIABLE_X1 is the running ``time``), and every released dataset of it has a
#: ``period`` column holding 1 and 2.
COLUMN_ALIASES: dict[str, dict[str, str]] = {"temporal_stability": {"VARIABLE_T": "period"}}
#: rows shown in the direct protocol's prompt; the code-assisted one shows SAMPLE_ROWS
DIRECT_ROWS = 100
SAMPLE_ROWS = 10
MAX_CSV_BYTES = 8 * 1024 * 1024


def challenges_dir(path: Path) -> Path:
    path = Path(path)
    inner = path / "challenges"
    if inner.is_dir():
        return inner
    if path.is_dir() and any((child / "questions.json").is_file() for child in path.iterdir() if child.is_dir()):
        return path
    raise DatasetError(f"{path}: no challenges/ folder and no challenge folder (with questions.json) in it")


def _load_json(path: Path) -> Any:
    if not path.is_file():
        raise DatasetError(f"{path.parent.name}/{path.name}: missing")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DatasetError(f"{path.parent.name}/{path.name}: not valid JSON ({exc})") from None


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "(" + ", ".join(_text(v) for v in value) + ")"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def fill(text: str, values: Mapping[str, Any]) -> str:
    """``text`` with each ``{KEY}``/``<KEY>`` whose KEY is in ``values`` replaced by its value (lists as
    "(a, b)", as the released scorer writes them); any other placeholder is left as it is."""

    def one(match: re.Match[str]) -> str:
        key = match.group(1) or match.group(2)
        return _text(values[key]) if key in values else match.group(0)

    return PLACEHOLDER.sub(one, text)


def unfilled(value: Any) -> list[str]:
    """The placeholders left in a string, or anywhere in a list or object of them, sorted, each once."""
    if isinstance(value, str):
        return sorted({match.group(0) for match in PLACEHOLDER.finditer(value)})
    if isinstance(value, list):
        return sorted({token for entry in value for token in unfilled(entry)})
    if isinstance(value, dict):
        return sorted({token for entry in value.values() for token in unfilled(entry)})
    return []


def _fill_any(value: Any, key: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        return fill(value, key)
    if isinstance(value, list):
        return [_fill_any(v, key) for v in value]
    if isinstance(value, dict):
        return {k: _fill_any(v, key) for k, v in value.items()}
    return value


def key_values(challenge: str, key: Mapping[str, Any], columns: list[str]) -> tuple[dict[str, Any], dict[str, str]]:
    """The values a dataset's placeholders are filled from: its answer-key entry, plus the challenge's
    column aliases whose column the dataset has (returned apart, for the notes)."""
    aliases = {
        name: column
        for name, column in COLUMN_ALIASES.get(challenge, {}).items()
        if name not in key and column in columns
    }
    return {**key, **aliases}, aliases


def _questions(folder: Path) -> list[dict[str, str]]:
    data = _load_json(folder / "questions.json")
    where = f"{folder.name}/questions.json"
    if not isinstance(data, list) or not data:
        raise DatasetError(f"{where}: expected a list of {{difficulty, prompt}} objects")
    seen: set[str] = set()
    for index, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise DatasetError(f"{where} entry {index}: not an object")
        difficulty, prompt = entry.get("difficulty"), entry.get("prompt")
        if difficulty not in DIFFICULTIES:
            raise DatasetError(
                f"{where} entry {index}, field 'difficulty': {difficulty!r} is not one of {', '.join(DIFFICULTIES)}"
            )
        if not isinstance(prompt, str) or not prompt.strip():
            raise DatasetError(f"{where} entry {index}, field 'prompt': missing or empty")
        if difficulty in seen:
            raise DatasetError(f"{where} entry {index}, field 'difficulty': {difficulty} appears twice")
        seen.add(difficulty)
    return data


def _answer_keys(folder: Path) -> list[dict[str, Any]]:
    data = _load_json(folder / "answer_key.json")
    where = f"{folder.name}/answer_key.json"
    if not isinstance(data, list) or not data:
        raise DatasetError(f"{where}: expected a list of objects, one per dataset")
    for index, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise DatasetError(f"{where} entry {index}: not an object")
        if not isinstance(entry.get("dataset"), str) or not entry["dataset"].strip():
            raise DatasetError(f"{where} entry {index}, field 'dataset': missing (the CSV file the entry answers)")
    return data


def _rubric(folder: Path) -> tuple[list[dict[str, Any]], Any]:
    data = _load_json(folder / "rubric.json")
    where = f"{folder.name}/rubric.json"
    criteria = data.get("criteria") if isinstance(data, dict) else None
    if not isinstance(criteria, list) or not criteria:
        raise DatasetError(f"{where}, field 'criteria': expected a non-empty list")
    for index, criterion in enumerate(criteria):
        if not isinstance(criterion, dict):
            raise DatasetError(f"{where} criterion {index}: not an object")
        for name in ("id", "desc"):
            if not isinstance(criterion.get(name), str) or not criterion[name].strip():
                raise DatasetError(f"{where} criterion {index}, field '{name}': missing or empty")
    return criteria, data.get("max_score")


def _key_for(csv_name: str, keys: list[dict[str, Any]]) -> dict[str, Any] | None:
    stem = csv_name.removesuffix(".csv")
    exact = [k for k in keys if k["dataset"].removesuffix(".csv") == stem]
    if exact:
        return exact[0]
    containing = [k for k in keys if stem in k["dataset"].removesuffix(".csv")]
    return containing[0] if len(containing) == 1 else None


def read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    if path.stat().st_size > MAX_CSV_BYTES:
        raise DatasetError(f"{path.parent.name}/{path.name}: larger than {MAX_CSV_BYTES // 1024 // 1024} MB")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{path.parent.name}/{path.name}: not UTF-8 ({exc})") from None
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) < 2 or not rows[0]:
        raise DatasetError(f"{path.parent.name}/{path.name}: needs a header and at least one row")
    header = rows[0]
    for number, row in enumerate(rows[1:], start=2):
        if row and len(row) != len(header):
            raise DatasetError(
                f"{path.parent.name}/{path.name} line {number}: {len(row)} fields, the header has {len(header)}"
            )
    return header, [row for row in rows[1:] if row]


def iter_items(path: Path) -> Iterator[Item]:
    """Every item of a release, in (challenge, dataset, difficulty) order; each carries the release's list
    of skipped records (a challenge none of whose CSVs has a key still has its skips named)."""
    root = challenges_dir(path)
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not folders:
        raise DatasetError(f"{root}: no challenge folders")
    plans = []
    skipped: list[dict[str, str]] = []
    for folder in folders:
        if folder.name not in CATEGORIES:
            raise DatasetError(
                f"{folder.name}: not a CausalPitfalls challenge (known: {', '.join(sorted(CATEGORIES))})"
            )
        questions, keys = _questions(folder), _answer_keys(folder)
        criteria, max_score = _rubric(folder)
        csvs = sorted(folder.glob("*.csv"))
        if not csvs:
            raise DatasetError(f"{folder.name}: no CSV datasets")
        matched = [(p, _key_for(p.name, keys)) for p in csvs]
        used = {id(key) for _, key in matched if key is not None}
        skipped += [
            {"challenge": folder.name, "record": p.name, "reason": "a CSV without an answer-key entry"}
            for p, key in matched
            if key is None
        ]
        skipped += [
            {
                "challenge": folder.name,
                "record": f"answer_key.json entry '{key['dataset']}'",
                "reason": "an answer-key entry without its CSV",
            }
            for key in keys
            if id(key) not in used
        ]
        plans.append((folder.name, questions, criteria, max_score, [(p, k) for p, k in matched if k is not None]))
    for challenge, questions, criteria, max_score, datasets in plans:
        for csv_path, key in datasets:
            header, rows = read_csv(csv_path)
            values, aliases = key_values(challenge, key, header)
            filled = _fill_any(criteria, values)
            for entry in questions:
                difficulty, question = entry["difficulty"], fill(entry["prompt"], values)
                yield Item(
                    id=f"{challenge}/{csv_path.stem}/{difficulty}",
                    slices={"category": CATEGORIES[challenge], "challenge": challenge, "difficulty": difficulty},
                    payload={
                        "challenge": challenge,
                        "dataset": csv_path.stem,
                        "csv_name": csv_path.name,
                        "question": question,
                        "question_as_released": entry["prompt"],
                        "columns": header,
                        "rows": rows,
                        "criteria": filled,
                        "rubric_max_score": max_score,
                        "aliases": aliases,
                        "unfilled": {"question": unfilled(question), "rubric": unfilled(filled)},
                        "skipped": skipped,
                    },
                )
