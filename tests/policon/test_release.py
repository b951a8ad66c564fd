"""PoliCon's importer on the released layout: the shipped sample (rebuilt byte for byte by its generator),
topic file names with spaces, commas and '&', scores as numbers or strings, and every refusal naming
the file, the record and the field."""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path

import pytest

from evaluators.core import evaluator_for
from evaluators.core.types import DatasetError
from evaluators.policon.data.make_sample import build
from evaluators.policon.release import OBJECTIVES, iter_items, iter_tasks

SAMPLE = Path(evaluator_for("policon").presentation().sample_dataset())
FILE = "Coastal fisheries, ports & shipping.json"


def test_the_sample_is_twelve_tasks_in_the_released_layout_and_sixty_items():
    tasks = list(iter_tasks(SAMPLE))
    assert len(tasks) == 12 and sorted({len(t.parties) for t in tasks}) == [2, 4, 6]
    assert all(sum(p.seat_tenths for p in t.parties) == 10 for t in tasks)
    items = list(iter_items(SAMPLE))
    assert len(items) == 60 and len({i.id for i in items}) == 60
    assert {i.slices["objective"] for i in items} == set(OBJECTIVES)
    assert any("," in i.slices["topic"] and "&" in i.slices["topic"] for i in items)
    fisheries = [t for t in tasks if t.source == f"2/{FILE}"]
    assert [t.key for t in fisheries] == [
        "2/coastal-fisheries-ports-shipping/1",
        "2/coastal-fisheries-ports-shipping/2",
    ]
    raw = json.loads((SAMPLE / "task_datas" / "2" / FILE).read_text())
    assert isinstance(raw[0]["stances"][0]["score"], str)  # a string score, accepted
    assert fisheries[0].parties[0].score == float(raw[0]["stances"][0]["score"])


def test_the_generator_rebuilds_the_shipped_sample_byte_for_byte(tmp_path: Path):
    build(tmp_path)
    shipped = sorted(p.relative_to(SAMPLE) for p in SAMPLE.rglob("*.json"))
    assert shipped == sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.json"))
    for path in shipped:
        assert (tmp_path / path).read_bytes() == (SAMPLE / path).read_bytes(), path


def test_task_datas_itself_can_be_given():
    assert len(list(iter_tasks(SAMPLE / "task_datas"))) == 12


def _release_with(tmp_path: Path, change) -> Path:
    root = tmp_path / "release"
    shutil.copytree(SAMPLE, root)
    path = root / "task_datas" / "4" / "Digital privacy & data markets.json"
    records = json.loads(path.read_text())
    change(records)
    path.write_text(json.dumps(records))
    return root


def _set(path: str, value):
    def change(records):
        target = records[1]
        *parents, last = path.split(".")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        if value is KeyError:
            del target[last]
        else:
            target[last] = value

    return change


WHERE = "4/Digital privacy & data markets.json: record 2 (id 2)"


@pytest.mark.parametrize(
    "change, message",
    [
        (_set("seat_weights", [0.3, 0.3, 0.3, 0.3]), f"{WHERE}: field 'seat_weights': the weights sum to 1.2, not 1"),
        (
            _set("seat_weights", [0.25, 0.25, 0.25, 0.25]),
            f"{WHERE}: field 'seat_weights[0]': 0.25 is not a multiple of 0.1",
        ),
        (
            _set("seat_weights", [0.5, 0.5]),
            f"{WHERE}: field 'seat_weights': expected 4 weights in the order of the stances, got 2",
        ),
        (
            _set("veto_party_name", "Nobody"),
            f"{WHERE}: field 'veto_party_name': 'Nobody' is not among the stances' parties",
        ),
        (_set("stances.0.choice", 10), f"{WHERE}: field 'stances[0].choice': 10 is outside 0..9"),
        (_set("stances.1.choice", "x"), f"{WHERE}: field 'stances[1].choice': 'x' is not a number"),
        (_set("stances.2.score", "lots"), f"{WHERE}: field 'stances[2].score': 'lots' is not a number"),
        (_set("stances.2.score", 1.5), f"{WHERE}: field 'stances[2].score': 1.5 is outside 0..1"),
        (
            _set("stances.3.party_name", ""),
            f"{WHERE}: field 'stances[3].party_name': missing or not a non-empty string",
        ),
        (_set("party_num", 6), f"{WHERE}: field 'party_num': 6 does not match the directory task_datas/4"),
        (_set("background", KeyError), f"{WHERE}: field 'background': missing or not a non-empty string"),
        (lambda records: records[1]["stances"].pop(), f"{WHERE}: field 'stances': expected a list of 4 parties, got 3"),
        (
            lambda records: records.append(copy.deepcopy(records[0])),
            "4/Digital privacy & data markets.json: id 1 repeats a task of 4/Digital privacy & data markets.json",
        ),
    ],
)
def test_a_bad_record_is_refused_naming_the_file_record_and_field(tmp_path: Path, change, message):
    with pytest.raises(DatasetError) as raised:
        list(iter_items(_release_with(tmp_path, change)))
    assert str(raised.value).startswith(message), str(raised.value)


def test_bad_files_and_layouts_are_refused(tmp_path: Path):
    with pytest.raises(
        DatasetError, match=re.escape("is a directory task_datas/<party count>/<topic>.json, not a file")
    ):
        list(iter_items(SAMPLE / "task_datas" / "2" / FILE))
    with pytest.raises(DatasetError, match="no party-count directories"):
        list(iter_items(tmp_path))
    root = tmp_path / "r" / "task_datas"
    (root / "2").mkdir(parents=True)
    (root / "2" / "Broken, topic & more.json").write_text("[{")
    with pytest.raises(DatasetError, match=r"2/Broken, topic & more.json: not valid JSON"):
        list(iter_items(root.parent))
    (root / "2" / "Broken, topic & more.json").write_text('{"topic": "x"}')
    with pytest.raises(DatasetError, match="expected a JSON list of task records, got dict"):
        list(iter_items(root.parent))
    (root / "2" / "Broken, topic & more.json").unlink()
    (root / "misc").mkdir()
    with pytest.raises(DatasetError, match="misc: a directory under task_datas must be a party count"):
        list(iter_items(root.parent))
