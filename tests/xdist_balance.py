"""The order in which `make test`'s pytest-xdist workers take the test files: the longest first.

With ``--dist loadfile`` a file's tests run on one worker, and each worker takes the next file of one queue
when it is nearly done with its own. pytest-xdist orders that queue by how many tests a file has, so the
files of many quick tests go first and the files of one or two slow tests (a browser, a whole ``make run``
stop, vLLM's CPU server, a GPU check) go last: one worker then runs the last slow file while the other
waits. Taking the files longest first (the classic longest-processing-time rule) leaves the short files
for the end, so both workers finish at about the same time.

How long a file takes comes from ``tests/file_seconds.json``: seconds per file (setup, call and teardown of
its tests) on a 2-core machine, only their order matters. The shipped table holds the 65 files of the slowest
150 phases of one whole run at load 20-25 (``--durations=150``; each other test of those files counted at
``DEFAULT_SECONDS``), the four files of `transformers serve` scaled by their tests' times with one OpenMP
thread; this plugin records a whole table with ``LEADERBOARD_TEST_FILE_SECONDS_OUT=path
scripts/test``. A file not in the table counts as ``DEFAULT_SECONDS`` per test. Only the order changes: every test still
runs, each file's tests in their own order on one worker. Loaded with ``-p tests.xdist_balance`` together with
``--no-loadscope-reorder`` (so xdist keeps this order); without xdist nothing is reordered.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

TABLE = Path(__file__).resolve().parent / "file_seconds.json"
#: a file missing from the table: seconds per test (the suite's median file is well under a second a test)
DEFAULT_SECONDS = 0.5


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def file_seconds(table: Path = TABLE) -> dict[str, float]:
    if not table.is_file():
        return {}
    return {str(name): float(seconds) for name, seconds in json.loads(table.read_text()).items()}


def longest_first(nodeids: list[str], seconds: dict[str, float]) -> list[str]:
    """``nodeids`` with the files in decreasing expected time (ties in collection order), each file's tests
    together and in their own order."""
    counts: dict[str, int] = defaultdict(int)
    first: dict[str, int] = {}
    for index, nodeid in enumerate(nodeids):
        counts[file_of(nodeid)] += 1
        first.setdefault(file_of(nodeid), index)

    def expected(name: str) -> float:
        return seconds[name] if name in seconds else DEFAULT_SECONDS * counts[name]

    position = {nodeid: index for index, nodeid in enumerate(nodeids)}
    return sorted(nodeids, key=lambda nodeid: (-expected(file_of(nodeid)), first[file_of(nodeid)], position[nodeid]))


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return  # one process: the collection order, as before
    by_id = {item.nodeid: item for item in items}
    items[:] = [by_id[nodeid] for nodeid in longest_first([item.nodeid for item in items], file_seconds())]


_SPENT: dict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _SPENT[file_of(report.nodeid)] += report.duration  # setup, call and teardown


def pytest_sessionfinish(session: pytest.Session) -> None:
    """With LEADERBOARD_TEST_FILE_SECONDS_OUT set, the controller (or the one process) writes the seconds
    each file took, in the table's format."""
    out = os.environ.get("LEADERBOARD_TEST_FILE_SECONDS_OUT")
    if out and not os.environ.get("PYTEST_XDIST_WORKER") and _SPENT:
        Path(out).write_text(
            json.dumps({name: round(spent, 1) for name, spent in sorted(_SPENT.items())}, indent=0) + "\n"
        )
