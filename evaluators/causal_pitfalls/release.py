"""Reading CausalPitfalls' released challenges as they are.

A release is a folder holding ``challenges/`` (or that folder itself): one folder per challenge
(released names kept, ``casual_effect`` included), each with ``questions.json`` (a list of
``{"difficulty", "prompt"}``, five difficulties), ``answer_key.json`` (a list of flat objects, one per
dataset, naming its CSV in ``dataset``), ``rubric.json`` (``{"criteria": [{"id", "desc", "type", ...}],
"max_score", ...}``) and the datasets' CSV files. The six categories are not folders: CATEGORIES maps
each challenge to its category.

One item per (challenge, dataset, difficulty). Its question is filled only where it shows a
placeholder of a **public** answer-key field (variable names, the correction method...); a placeholder
of anything else (true relationships, naive and corrected estimates, tolerances: the answer targets)
is replaced by "[not given]" and never reaches the model. The rubric is filled from the whole answer
key (``{KEY}`` and ``<KEY>``, lists as "(a, b)") and is only ever shown to the judge. A CSV is matched
to its answer-key entry by file name, else by a unique name containing it (the released
``economic_stimulus.csv`` / ``economic_stimulus_interaction.csv``); a CSV with no entry is skipped and
named in the dataset's notes, never scored against another dataset's key.
"""
from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from evaluators.core.types import DatasetError, Item

DIFFICULTIES: tuple[str, ...] = ("very_easy", "easy", "medium", "hard", "very_hard")
CATEGORY_LABELS: dict[str, str] = {
    "confounding": "Confounding", "intervention": "Intervention", "counterfactual": "Counterfactual",
    "mediation": "Mediation", "causal_discovery": "Causal discovery", "external_validity": "External validity"}
CATEGORIES: dict[str, str] = {
    "simpson_paradox": "confounding", "berkson_paradox": "confounding",
    "observational_vs_experimental_reasoning": "intervention", "casual_effect": "intervention",
    "counterfactual_reasoning": "counterfactual", "necessity_sufficiency": "counterfactual",
    "mediation_outcome_confounder": "mediation", "sequential_mediator": "mediation", "treatment_mediator": "mediation",
    "causal_direction_iv": "causal_discovery", "dag_structure_markequi": "causal_discovery",
    "population_shift": "external_validity", "moderation_effect": "external_validity",
    "temporal_stability": "external_validity", "domain_shift": "external_validity",
}
#: answer-key fields a question may show: the names of variables, groups and contexts, and the
#: analysis a hint names. Everything else is an answer target.
PUBLIC_FIELD = re.compile(r"^(TREATMENT|OUTCOME|CONFOUNDER|LEVEL\d+|VARIABLE_[A-Z0-9]+|COLLIDER_VARIABLE|CAUSAL_ESTIMAND|"
                          r"CORRECTION_METHOD|GROUP_\d+|CONTEXT_\d+|THRESHOLD|TARGET_[A-Z0-9_]+)$")
WITHHELD = "[not given]"
PLACEHOLDER = re.compile(r"\{([A-Z][A-Z0-9_]*)\}|<([A-Z][A-Z0-9_]*)>")
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


def fill(text: str, values: dict[str, Any], *, public_only: bool) -> str:
    """``text`` with each ``{KEY}``/``<KEY>`` of a known field replaced by its value; with
    ``public_only``, a placeholder of a non-public field (or of no field) becomes WITHHELD."""

    def one(match: re.Match[str]) -> str:
        key = match.group(1) or match.group(2)
        if public_only and not PUBLIC_FIELD.match(key):
            return WITHHELD
        if key in values:
            return _text(values[key])
        return WITHHELD if public_only else match.group(0)

    return PLACEHOLDER.sub(one, text)


def _fill_any(value: Any, key: dict[str, Any]) -> Any:
    if isinstance(value, str):
        return fill(value, key, public_only=False)
    if isinstance(value, list):
        return [_fill_any(v, key) for v in value]
    if isinstance(value, dict):
        return {k: _fill_any(v, key) for k, v in value.items()}
    return value


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
            raise DatasetError(f"{where} entry {index}, field 'difficulty': {difficulty!r} is not one of {', '.join(DIFFICULTIES)}")
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


def _rubric(folder: Path) -> list[dict[str, Any]]:
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
    return criteria


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
            raise DatasetError(f"{path.parent.name}/{path.name} line {number}: {len(row)} fields, the header has {len(header)}")
    return header, [row for row in rows[1:] if row]


def iter_items(path: Path) -> Iterator[Item]:
    """Every item of a release, in (challenge, dataset, difficulty) order."""
    root = challenges_dir(path)
    folders = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))
    if not folders:
        raise DatasetError(f"{root}: no challenge folders")
    for folder in folders:
        if folder.name not in CATEGORIES:
            raise DatasetError(f"{folder.name}: not a CausalPitfalls challenge (known: {', '.join(sorted(CATEGORIES))})")
        questions, keys, criteria = _questions(folder), _answer_keys(folder), _rubric(folder)
        csvs = sorted(folder.glob("*.csv"))
        if not csvs:
            raise DatasetError(f"{folder.name}: no CSV datasets")
        skipped = [p.name for p in csvs if _key_for(p.name, keys) is None]
        for csv_path in csvs:
            key = _key_for(csv_path.name, keys)
            if key is None:
                continue
            header, rows = read_csv(csv_path)
            dataset = csv_path.stem
            filled = _fill_any(criteria, key)
            for entry in questions:
                difficulty = entry["difficulty"]
                yield Item(
                    id=f"{folder.name}/{dataset}/{difficulty}",
                    slices={"category": CATEGORIES[folder.name], "challenge": folder.name, "difficulty": difficulty},
                    payload={"challenge": folder.name, "dataset": dataset, "csv_name": csv_path.name,
                             "question": fill(entry["prompt"], key, public_only=True), "columns": header,
                             "rows": rows, "criteria": filled, "skipped_datasets": skipped})
