"""Importing CausalPitfalls' released layout: the sample's 100 items, questions filled only from public
answer-key fields (answer targets never reach a prompt of either protocol), rubrics filled from the whole
key for the judge, the released layout's quirks (``<KEY>`` placeholders, list values, a CSV matched by a
longer key name, a CSV without a key skipped and named), and clear refusals naming file and field."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from evaluators.causal_pitfalls.evaluator import CausalPitfallsCodeEvaluator, CausalPitfallsEvaluator
from evaluators.causal_pitfalls.release import DIFFICULTIES, PUBLIC_FIELD, WITHHELD, fill, iter_items
from evaluators.core.types import DatasetError

DIRECT, CODE = CausalPitfallsEvaluator(), CausalPitfallsCodeEvaluator()
SAMPLE = DIRECT.sample_dataset()


def answer_keys() -> dict[str, list[dict]]:
    root = SAMPLE / "challenges"
    return {p.name: json.loads((p / "answer_key.json").read_text()) for p in root.iterdir()}


def test_the_sample_has_four_challenges_five_datasets_and_five_difficulties_each() -> None:
    items = list(DIRECT.import_release(SAMPLE))
    assert len(items) == 100 and len({i.id for i in items}) == 100
    assert {i.slices["challenge"] for i in items} == {"simpson_paradox", "berkson_paradox", "mediation_outcome_confounder",
                                                      "population_shift"}
    assert {i.slices["category"] for i in items} == {"confounding", "mediation", "external_validity"}
    assert {i.slices["difficulty"] for i in items} == set(DIFFICULTIES)
    first = items[0]
    assert first.payload["columns"] and len(first.payload["rows"]) == 1000 and first.payload["criteria"][0]["id"]


def test_no_answer_target_reaches_a_prompt_of_either_protocol() -> None:
    keys = answer_keys()
    for item in DIRECT.import_release(SAMPLE):
        key = next(k for k in keys[item.payload["challenge"]] if k["dataset"] == item.payload["csv_name"])
        secrets = {name: value for name, value in key.items() if name != "dataset" and not PUBLIC_FIELD.match(name)}
        assert secrets, item.id
        for evaluator in (DIRECT, CODE):
            prompt = evaluator.build_requests(item, {})[0].messages[0]["content"]
            question = prompt.split("\n\n")[0]
            assert "{" not in question and "<" not in question, (item.id, question)
            for name, value in secrets.items():
                shown = str(value)
                if name == "TRUE_RELATIONSHIP" or "." in shown:  # the words and the estimates, never in the question
                    assert shown not in question, (item.id, name, question)
        # the rubric, for the judge only, holds the targets
        rubric = json.dumps(item.payload["criteria"])
        assert str(key["TOLERANCE"]) in rubric and not re.search(r"\{[A-Z_]+\}|<[A-Z_]+>", rubric)


def test_secret_placeholders_read_not_given_and_public_ones_are_filled() -> None:
    key = {"TREATMENT": "Drug", "TRUE_CAUSAL_EFFECT": 0.12, "TOLERANCE": 0.02, "TRUE_CONFOUNDERS": ["Age", "SES"]}
    question = "Does {TREATMENT} work? The effect is {TRUE_CAUSAL_EFFECT} (±{TOLERANCE}); adjust for <TRUE_CONFOUNDERS>; {UNKNOWN}."
    assert fill(question, key, public_only=True) == (f"Does Drug work? The effect is {WITHHELD} (±{WITHHELD}); adjust for "
                                                      f"{WITHHELD}; {WITHHELD}.")
    assert fill("within {TOLERANCE} of <TRUE_CONFOUNDERS>, {UNKNOWN}", key, public_only=False) == \
        "within 0.02 of (Age, SES), {UNKNOWN}"


@pytest.fixture
def release(tmp_path: Path) -> Path:
    target = tmp_path / "release" / "challenges"
    shutil.copytree(SAMPLE / "challenges" / "simpson_paradox", target / "simpson_paradox")
    return tmp_path / "release"


def folder(release: Path) -> Path:
    return release / "challenges" / "simpson_paradox"


def test_a_csv_is_matched_by_a_longer_key_name_and_one_without_a_key_is_skipped_and_named(release: Path) -> None:
    keys = json.loads((folder(release) / "answer_key.json").read_text())
    keys[0]["dataset"] = "simpson_paradox_scenario_interaction.csv"  # the released economic_stimulus quirk
    (folder(release) / "answer_key.json").write_text(json.dumps(keys))
    shutil.copy(folder(release) / "simpson_paradox_variant1.csv", folder(release) / "orphan.csv")
    items = list(iter_items(release))
    assert len(items) == 25 and not any("orphan" in i.id for i in items)
    assert any(i.payload["dataset"] == "simpson_paradox_scenario" for i in items)
    notes = DIRECT.dataset_notes(items)
    assert "Skipped, having no answer-key entry: simpson_paradox/orphan.csv." in notes[0].points


@pytest.mark.parametrize("edit, message", [
    (lambda f: (f / "questions.json").unlink(), "simpson_paradox/questions.json: missing"),
    (lambda f: (f / "questions.json").write_text('[{"difficulty": "trivial", "prompt": "x"}]'),
     "questions.json entry 0, field 'difficulty': 'trivial' is not one of"),
    (lambda f: (f / "questions.json").write_text('[{"difficulty": "easy", "prompt": ""}]'),
     "questions.json entry 0, field 'prompt': missing or empty"),
    (lambda f: (f / "answer_key.json").write_text('[{"TREATMENT": "x"}]'), "answer_key.json entry 0, field 'dataset': missing"),
    (lambda f: (f / "rubric.json").write_text('{"max_score": 3}'), "rubric.json, field 'criteria': expected a non-empty list"),
    (lambda f: (f / "rubric.json").write_text('{"criteria": [{"id": "A"}]}'), "rubric.json criterion 0, field 'desc'"),
    (lambda f: (f / "rubric.json").write_text("{not json"), "simpson_paradox/rubric.json: not valid JSON"),
    (lambda f: (f / "simpson_paradox_variant2.csv").write_text("a,b\n1,2,3\n"), "simpson_paradox_variant2.csv line 2: 3 fields"),
    (lambda f: f.rename(f.parent / "unknown_challenge"), "unknown_challenge: not a CausalPitfalls challenge"),
])
def test_malformed_files_are_refused_naming_file_and_field(release: Path, edit, message: str) -> None:
    edit(folder(release))
    with pytest.raises(DatasetError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        list(iter_items(release))
