"""`make test` hands the test files to its xdist workers longest first (tests/xdist_balance.py): the order of the
files changes, never which tests run nor the order of a file's own tests."""

import json
from pathlib import Path

from tests.xdist_balance import DEFAULT_SECONDS, TABLE, file_seconds, longest_first

IDS = ["tests/a.py::t1", "tests/a.py::t2", "tests/b.py::t1", "tests/c.py::t1[x]", "tests/c.py::t1[y]", "tests/c.py::t2"]


def test_the_longest_file_goes_first_and_each_files_tests_stay_together_in_their_order():
    ordered = longest_first(IDS, {"tests/b.py": 30.0, "tests/a.py": 2.0, "tests/c.py": 5.0})
    assert ordered == [
        "tests/b.py::t1",
        "tests/c.py::t1[x]",
        "tests/c.py::t1[y]",
        "tests/c.py::t2",
        "tests/a.py::t1",
        "tests/a.py::t2",
    ]
    assert sorted(ordered) == sorted(IDS)


def test_a_file_missing_from_the_table_counts_its_tests_and_ties_keep_the_collection_order():
    # c: three tests at the default (1.5 s); a: the table's 0.5 s, tied with b's one test at the default: a first
    ordered = longest_first(IDS, {"tests/a.py": DEFAULT_SECONDS})
    assert ordered == [
        "tests/c.py::t1[x]",
        "tests/c.py::t1[y]",
        "tests/c.py::t2",
        "tests/a.py::t1",
        "tests/a.py::t2",
        "tests/b.py::t1",
    ]


def test_the_shipped_table_names_test_files_that_exist_with_seconds(tmp_path: Path):
    table = file_seconds()
    assert table, f"{TABLE} is missing or empty"
    root = TABLE.parent.parent
    assert all((root / name).is_file() and name.startswith("tests/") for name in table), [
        n for n in table if not (root / n).is_file()
    ]
    assert all(seconds >= 0 for seconds in table.values())
    (tmp_path / "t.json").write_text(json.dumps({"tests/x.py": 3}))
    assert file_seconds(tmp_path / "t.json") == {"tests/x.py": 3.0} and file_seconds(tmp_path / "none.json") == {}
