"""Importing CausalPitfalls' released layout: the sample's 100 items; on our fixture with the real release's
quirks (release_fixture.py), every placeholder a question shows filled from the answer key (the very-easy
causal-effect question states the true effect and its tolerance), the as-released setting sending them
unfilled, rubrics filled from the whole key with temporal stability's {VARIABLE_T} read as the dataset's
``period`` column, every placeholder left unfilled and every record skipped named in the dataset notes; and
clear refusals naming file and field."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from evaluators.causal_pitfalls.evaluator import CausalPitfallsCodeEvaluator, CausalPitfallsEvaluator
from evaluators.causal_pitfalls.release import DIFFICULTIES, fill, iter_items, unfilled
from evaluators.core.evaluator import SettingsRefused
from evaluators.core.types import DatasetError
from tests.causal_pitfalls.release_fixture import write_release

DIRECT, CODE = CausalPitfallsEvaluator(), CausalPitfallsCodeEvaluator()
SAMPLE = DIRECT.presentation().sample_dataset()


def answer_keys() -> dict[str, list[dict]]:
    root = SAMPLE / "challenges"
    return {p.name: json.loads((p / "answer_key.json").read_text()) for p in root.iterdir()}


def test_the_sample_has_four_challenges_five_datasets_and_five_difficulties_each() -> None:
    items = list(DIRECT.import_release(SAMPLE))
    assert len(items) == 100 and len({i.id for i in items}) == 100
    assert {i.slices["challenge"] for i in items} == {
        "simpson_paradox",
        "berkson_paradox",
        "mediation_outcome_confounder",
        "population_shift",
    }
    assert {i.slices["category"] for i in items} == {"confounding", "mediation", "external_validity"}
    assert {i.slices["difficulty"] for i in items} == set(DIFFICULTIES)
    first = items[0]
    assert first.payload["columns"] and len(first.payload["rows"]) == 1000 and first.payload["criteria"][0]["id"]


def test_every_placeholder_of_the_samples_questions_and_rubrics_is_filled() -> None:
    for item in DIRECT.import_release(SAMPLE):
        assert item.payload["unfilled"] == {"question": [], "rubric": []}, item.id
        assert not re.search(
            r"\{[A-Z_0-9]+\}|<[A-Z_0-9]+>", item.payload["question"] + json.dumps(item.payload["criteria"])
        )


def test_placeholders_with_digits_and_angle_brackets_are_filled_and_unknown_ones_and_notation_are_left() -> None:
    key = {"VARIABLE_X1": "dose", "GROUP_2": "adults", "TRUE_CONFOUNDERS": ["Age", "SES"], "TOLERANCE": 0.02}
    text = "{VARIABLE_X1} in {GROUP_2}, adjust for <TRUE_CONFOUNDERS> within {TOLERANCE}; {UNKNOWN}; Y_{x=1}"
    filled = fill(text, key)
    assert filled == "dose in adults, adjust for (Age, SES) within 0.02; {UNKNOWN}; Y_{x=1}"
    assert unfilled(filled) == ["{UNKNOWN}"] and unfilled({"a": [filled, "<B>"]}) == ["<B>", "{UNKNOWN}"]


@pytest.fixture
def quirks(tmp_path: Path) -> list:
    return list(iter_items(write_release(tmp_path / "release")))


def by_id(items: list, item_id: str):
    return next(item for item in items if item.id == item_id)


def test_the_fixture_with_the_real_release_quirks_imports_every_dataset_with_a_key(quirks: list) -> None:
    # 6 CSVs with an answer-key entry x 5 difficulties; dag_sem.csv has none (the released
    # dag_structure_markequi_sem.csv); stimulus.csv is matched by stimulus_interaction.csv
    assert len(quirks) == 30
    assert {i.payload["dataset"] for i in quirks} == {"drift", "naps", "tea", "clinic", "stimulus", "sleep"}
    stimulus = by_id(quirks, "treatment_mediator/stimulus/very_hard")
    assert stimulus.payload["criteria"][0]["desc"] == "Separates grant from hiring; effect 1.5"


def test_what_an_easy_level_gives_away_reaches_the_question(quirks: list) -> None:
    very_easy = by_id(quirks, "casual_effect/clinic/very_easy")
    assert very_easy.payload["question"] == (
        "Estimate the ATE of pill on cured, adjusting for (age, severity) and ignoring "
        "(noise); the answer lies within ±0.05 of 0.25."
    )
    assert (
        by_id(quirks, "casual_effect/clinic/easy").payload["question"]
        == "Estimate the ATE of pill on cured; confounders: (age, severity); irrelevant: (noise)."
    )
    assert (
        by_id(quirks, "observational_vs_experimental_reasoning/tea/very_easy").payload["question"]
        == "Does tea affect calm? Adjust for (age)."
    )
    dag = by_id(quirks, "dag_structure_markequi/sleep/hard")
    assert dag.payload["question"] == "Which graphs over sleep, alert and work fit? Compare Y_{x=1} with Y_{x=0}."
    assert all(item.payload["unfilled"]["question"] == [] for item in quirks)


def test_the_as_released_setting_sends_the_placeholders_unfilled(quirks: list) -> None:
    item = by_id(quirks, "casual_effect/clinic/very_easy")
    as_released = DIRECT.configured({"placeholders": "as_released"})
    sent = as_released.build_requests(item, {})[0].messages[0]["content"]
    assert sent.startswith(
        "Estimate the {CAUSAL_ESTIMAND} of {TREATMENT} on {OUTCOME}, adjusting for {TRUE_CONFOUNDERS}"
    )
    assert DIRECT.build_requests(item, {})[0].messages[0]["content"].startswith("Estimate the ATE of pill on cured")
    assert (
        CODE.configured({"placeholders": "as_released"})
        .build_requests(item, {})[0]
        .messages[0]["content"]
        .startswith("Estimate the {CAUSAL_ESTIMAND}")
    )
    for bad, message in (
        ({"placeholders": "hidden"}, "is not one of filled, as_released"),
        ({"rows": 5}, "unknown setting"),
    ):
        with pytest.raises(SettingsRefused, match=message):
            DIRECT.configured(bad)


def test_the_rubric_resolves_the_keys_own_naming_and_whats_left_is_named(quirks: list) -> None:
    temporal = by_id(quirks, "temporal_stability/drift/medium")
    assert temporal.payload["criteria"][0] == {
        "id": "PERIODS",
        "type": "keyword",
        "desc": "Separates period 1 from period 2",
        "keywords": ["period 1", "period 2"],
    }
    assert temporal.payload["criteria"][1]["keywords"] == ["EFFECT_A"]  # a bare name is no placeholder, as released
    assert temporal.payload["aliases"] == {"VARIABLE_T": "period"} and temporal.payload["unfilled"]["rubric"] == []
    naps = by_id(quirks, "observational_vs_experimental_reasoning/naps/easy")
    tea = by_id(quirks, "observational_vs_experimental_reasoning/tea/easy")
    assert naps.payload["criteria"][1]["desc"] == "Concludes no_effect" and naps.payload["unfilled"]["rubric"] == []
    assert tea.payload["criteria"][1]["desc"] == "Concludes {ADJUSTED_DIRECTION}"
    assert tea.payload["unfilled"]["rubric"] == ["{ADJUSTED_DIRECTION}"]
    points = DIRECT.presentation().dataset_notes(quirks)[0].points
    assert points[0].startswith("30 items: 6 datasets of 5 challenges, each asked at 5 difficulties")
    assert "Skipped: dag_structure_markequi/dag_sem.csv, a CSV without an answer-key entry." in points
    assert (
        "temporal_stability: {VARIABLE_T} filled with the dataset's column 'period' (the answer key names no "
        "VARIABLE_T)."
    ) in points
    assert "Placeholders left unfilled in questions: none." in points
    assert (
        "Left unfilled in rubrics: {ADJUSTED_DIRECTION} in observational_vs_experimental_reasoning (5 items; "
        "datasets tea), its answer-key entry has no such field."
    ) in points
    assert (
        "dag_structure_markequi: the rubric says max_score 4 over 3 criteria; scores are out of the criteria, as "
        "the released scorer's."
    ) in points


def test_an_answer_key_entry_without_its_csv_is_skipped_and_named(tmp_path: Path) -> None:
    root = write_release(tmp_path / "release")
    (root / "challenges" / "casual_effect" / "clinic.csv").rename(root / "challenges" / "casual_effect" / "other.csv")
    items = list(iter_items(root))
    points = DIRECT.presentation().dataset_notes(items)[0].points
    assert "Skipped: casual_effect/answer_key.json entry 'clinic.csv', an answer-key entry without its CSV." in points
    assert "Skipped: casual_effect/other.csv, a CSV without an answer-key entry." in points and len(items) == 25


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
    notes = DIRECT.presentation().dataset_notes(items)
    assert "Skipped: simpson_paradox/orphan.csv, a CSV without an answer-key entry." in notes[0].points


@pytest.mark.parametrize(
    "edit, message",
    [
        (lambda f: (f / "questions.json").unlink(), "simpson_paradox/questions.json: missing"),
        (
            lambda f: (f / "questions.json").write_text('[{"difficulty": "trivial", "prompt": "x"}]'),
            "questions.json entry 0, field 'difficulty': 'trivial' is not one of",
        ),
        (
            lambda f: (f / "questions.json").write_text('[{"difficulty": "easy", "prompt": ""}]'),
            "questions.json entry 0, field 'prompt': missing or empty",
        ),
        (
            lambda f: (f / "answer_key.json").write_text('[{"TREATMENT": "x"}]'),
            "answer_key.json entry 0, field 'dataset': missing",
        ),
        (
            lambda f: (f / "rubric.json").write_text('{"max_score": 3}'),
            "rubric.json, field 'criteria': expected a non-empty list",
        ),
        (
            lambda f: (f / "rubric.json").write_text('{"criteria": [{"id": "A"}]}'),
            "rubric.json criterion 0, field 'desc'",
        ),
        (lambda f: (f / "rubric.json").write_text("{not json"), "simpson_paradox/rubric.json: not valid JSON"),
        (
            lambda f: (f / "simpson_paradox_variant2.csv").write_text("a,b\n1,2,3\n"),
            "simpson_paradox_variant2.csv line 2: 3 fields",
        ),
        (lambda f: f.rename(f.parent / "unknown_challenge"), "unknown_challenge: not a CausalPitfalls challenge"),
    ],
)
def test_malformed_files_are_refused_naming_file_and_field(release: Path, edit, message: str) -> None:
    edit(folder(release))
    with pytest.raises(DatasetError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        list(iter_items(release))
