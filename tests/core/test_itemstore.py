"""Tests of the items file (evaluators.core.itemstore): a Multi-LCB problem's tests written once for its
twelve language items, items read back whole, only the lines asked for read, old files (every item
whole on its line) read as before, and clear errors for a broken file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from evaluators.core.itemstore import ItemsFile, index_path, open_items, read_items, write_items
from evaluators.core.types import DatasetError, Item
from evaluators.multi_lcb.evaluator import MultiLCBEvaluator
from evaluators.multi_lcb.prompts import LANGUAGE_KEYS
from evaluators.multi_lcb.release import encode_compressed_tests
from tests.conftest import lcb_problem


def big_problem(question_id: str, tests: int = 40, size: int = 10_000) -> tuple[dict, int]:
    """An LCB record whose private tests (compressed, as released) hold ``tests`` cases of about
    ``size`` characters each; also the length of those tests as JSON."""
    cases = [
        {"input": f"{n}\n" + "7 " * (size // 2), "output": f"{n * 7}\n", "testtype": "stdin"} for n in range(tests)
    ]
    record = lcb_problem(question_id)
    record["private_test_cases"] = encode_compressed_tests(cases)
    return record, len(json.dumps(cases, ensure_ascii=False))


def release(tmp_path: Path, *records: dict) -> Path:
    path = tmp_path / "release.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def old_items_file(items: list[Item], path: Path) -> Path:
    """An items file as the site wrote it before shared parts: every item whole, keys sorted."""
    path.write_text("".join(json.dumps(i.to_dict(), ensure_ascii=False, sort_keys=True) + "\n" for i in items))
    return path


def test_a_problems_tests_are_stored_once_for_its_twelve_languages(tmp_path):
    record, tests_bytes = big_problem("abc100_a")
    items = list(MultiLCBEvaluator().import_release(release(tmp_path, record)))
    assert len(items) == 12 and all(len(i.payload["private_test_cases"]) == 40 for i in items)
    new = tmp_path / "items.jsonl"
    assert write_items(items, new) == 12
    old = old_items_file(items, tmp_path / "old.jsonl")
    # 40 tests of about 10 kB: 400 kB once, plus a statement and twelve short item lines
    assert tests_bytes > 400_000
    assert tests_bytes < new.stat().st_size < tests_bytes + 12 * 400 + 5_000, (new.stat().st_size, tests_bytes)
    assert old.stat().st_size > 12 * tests_bytes  # as it was: the tests once per language
    lines = new.read_text().splitlines()
    assert len(lines) == 13 and json.loads(lines[0])["shared"] == "abc100_a"
    assert [json.loads(line)["payload"] for line in lines[1:]] == [{"language": lang} for lang in LANGUAGE_KEYS]


def test_items_read_back_whole_in_order_by_position_and_by_id(tmp_path):
    evaluator = MultiLCBEvaluator()
    items = list(evaluator.import_release(evaluator.presentation().sample_dataset()))
    path = tmp_path / "items.jsonl"
    write_items(items, path)
    assert index_path(path).exists()
    stored = open_items(path)
    assert len(stored) == len(items) == 22 * 12
    assert stored.ids() == [i.id for i in items]
    assert list(stored) == items  # every field, the tests included
    assert stored[13] == items[13] and stored[-1] == items[-1] and stored[5:9] == items[5:9]
    wanted = [items[200].id, items[3].id, items[100].id]
    assert stored.get_many(wanted) == [items[200], items[3], items[100]]
    assert stored.select(wanted).ids() == wanted and list(stored.select(wanted)) == [items[200], items[3], items[100]]


def test_only_the_lines_asked_for_are_read(tmp_path):
    record, _ = big_problem("abc100_a", tests=3, size=100)
    items = list(
        MultiLCBEvaluator(languages=["python", "go"]).import_release(release(tmp_path, record, lcb_problem("abc101_a")))
    )
    path = tmp_path / "items.jsonl"
    write_items(items, path)
    stored = open_items(path)
    # spoil the line of abc101_a/go (same length, same modification time: the index still describes the file)
    data = path.read_bytes()
    start = data.index(b'{"id": "abc101_a/go"')
    end = data.index(b"\n", start)
    stat = path.stat()
    path.write_bytes(data[:start] + b"x" * (end - start) + data[end:])
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    reopened = open_items(path)
    assert reopened.get("abc100_a/go") == items[1] and reopened.get("abc101_a/python") == items[2]
    with pytest.raises(DatasetError, match="not valid JSON"):
        reopened.get("abc101_a/go")
    assert stored.get("abc100_a/python") == items[0]


def test_an_old_items_file_reads_as_before_and_its_index_is_built(tmp_path):
    evaluator = MultiLCBEvaluator(languages=["python", "cpp", "go"])
    items = list(evaluator.import_release(release(tmp_path, lcb_problem("t1_a"), lcb_problem("t2_a"))))
    path = old_items_file(items, tmp_path / "old.jsonl")
    assert not index_path(path).exists()
    stored = open_items(path)
    assert index_path(path).exists()  # built by one pass over the file, kept for the next reader
    # the same contents; an old item has no shared part
    whole = [Item(i.id, i.slices, i.payload) for i in items]
    assert list(stored) == whole == read_items(path)
    assert stored.get("t2_a/go").payload["public_test_cases"] == items[5].payload["public_test_cases"]


def test_a_stale_index_is_rebuilt(tmp_path):
    items = list(MultiLCBEvaluator(languages=["python"]).import_release(release(tmp_path, lcb_problem("t1_a"))))
    path = tmp_path / "items.jsonl"
    write_items(items, path)
    extra = Item("extra", {"language": "python"}, {"note": "added by hand"})
    with path.open("a") as handle:
        handle.write(json.dumps(extra.to_dict()) + "\n")
    os.utime(path, ns=(1, 1))  # whatever the clock's resolution, the file no longer matches its index
    assert open_items(path).ids() == ["t1_a/python", "extra"]
    assert open_items(path).get("extra") == extra


def test_a_broken_items_file_is_named_with_its_line(tmp_path):
    path = tmp_path / "items.jsonl"
    path.write_text('{"id": "a", "shared": "nowhere", "slices": {}, "payload": {}}\n')
    with pytest.raises(DatasetError, match="line 1: item 'a' refers to the shared part 'nowhere'"):
        ItemsFile.open(path)
    path.write_text('{"id": "a", "slices": {}, "payload": {}}\n{"id": "a", "slices": {}, "payload": {}}\n')
    with pytest.raises(DatasetError, match="line 2: item 'a' appears twice"):
        ItemsFile.open(path)
    path.write_text('{"id": "a", "slices": {}, "payload": {}}\nnot json\n')
    with pytest.raises(DatasetError, match="line 2: not valid JSON"):
        ItemsFile.open(path)


def test_the_writer_refuses_shared_parts_out_of_order_or_differing(tmp_path):
    def item(item_id: str, key: str, tests: list) -> Item:
        return Item(item_id, {}, {"tests": tests, "language": item_id}, shared_key=key, shared_fields=("tests",))

    with pytest.raises(ValueError, match="not consecutive"):
        write_items([item("a", "p", [1]), item("b", "q", [2]), item("c", "p", [1])], tmp_path / "x.jsonl")
    with pytest.raises(ValueError, match="differs from the one written before it"):
        write_items([item("a", "p", [1]), item("b", "p", [2])], tmp_path / "y.jsonl")
    assert write_items([item("a", "p", [1]), item("b", "p", [1])], tmp_path / "z.jsonl") == 2
