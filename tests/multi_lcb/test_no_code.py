"""An item whose answers have no code never decodes its problem's tests (issue 47 point 5): the items
file hands it over without its shared part (the problem's statement and tests), on the command line's
path (``score_items``) and a worker's (``read_batch``, which its chunks go through) alike.

Counted by hand: 3 problems x 12 languages, one answer each; only the Python item of the first problem
has code. Its shared part is read once (the reader keeps it for the other items of the problem, which
need none); the other two problems' shared parts are never read, and 35 items score ``no_code`` with
no test counts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from evaluators.core.files import parse_predictions
from evaluators.core.itemstore import ItemsFile, open_items, write_items
from evaluators.core.runner import group_predictions, read_batch, score_items
from evaluators.multi_lcb.evaluator import MultiLCBEvaluator
from evaluators.multi_lcb.prompts import LANGUAGE_KEYS
from evaluators.multi_lcb.synthetic import Shape, write_predictions, write_release


@pytest.fixture()
def release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[ItemsFile, list, Counter[str], list[str]]:
    made = write_release(Shape(problems=3, tests=2, test_bytes=200), tmp_path / "release.jsonl", seed=7)
    assert write_predictions(made, tmp_path / "predictions.jsonl", LANGUAGE_KEYS, made.question_ids[:1]) == 1
    write_items(MultiLCBEvaluator().import_release(made.path), tmp_path / "items.jsonl")
    items = open_items(tmp_path / "items.jsonl")
    predictions = parse_predictions((tmp_path / "predictions.jsonl").read_bytes(), items.ids())
    reads: Counter[str] = Counter()
    original = ItemsFile._shared_part

    def counted(self: ItemsFile, handle: object, key: str) -> dict:
        reads[key] += 1
        return original(self, handle, key)

    monkeypatch.setattr(ItemsFile, "_shared_part", counted)
    return items, predictions, reads, list(made.question_ids)


def test_a_batch_reads_the_shared_part_only_for_answers_with_code(release) -> None:
    items, predictions, reads, qids = release
    batch = read_batch(MultiLCBEvaluator(), items, items.ids(), group_predictions(predictions))
    assert reads == Counter({qids[0]: 1})
    with_tests = [item.id for item in batch if "private_test_cases" in item.payload]
    assert with_tests == [f"{qids[0]}/python"]
    assert all(item.shared_fields == () for item in batch if item.id != with_tests[0])


def test_scoring_never_decodes_the_tests_of_items_without_code(release) -> None:
    items, predictions, reads, qids = release
    scores = {score.item_id: score for score in score_items(MultiLCBEvaluator(), items, predictions, concurrency=2)}
    assert reads == Counter({qids[0]: 1})
    assert len(scores) == 36
    ran = scores.pop(f"{qids[0]}/python")
    assert ran.detail["verdicts"] == {"passed": 1} and ran.detail["tests"] == 3 and ran.detail["public_tests"] == 1
    assert all(score.detail["verdicts"] == {"no_code": 1} and "tests" not in score.detail for score in scores.values())
