"""A time-limit verdict that the machine's load may have caused is run once more: a wall-clock time-out
during which the program got under 90% of a CPU, while the machine had more runnable work than cores.
A program that spins out its CPU limit is never re-checked, nor is anything on an idle machine."""
from __future__ import annotations

import pytest

from evaluators.core.types import Prediction
from evaluators.multi_lcb.evaluator import MultiLCBEvaluator
from tests.multi_lcb.test_solutions import all_items, fenced

pytestmark = pytest.mark.toolchains

SLEEPER = "import time\ntime.sleep(30)\n"
SPINNER = "while True:\n    pass\n"


def score(program: str, busy: bool, monkeypatch) -> dict:
    evaluator = MultiLCBEvaluator(time_limit_seconds=1.0)
    monkeypatch.setattr(MultiLCBEvaluator, "_machine_busy", staticmethod(lambda: busy))
    item = next(item for item in all_items().values() if item.slices["language"] == "python")
    result = evaluator.score_item(item, [Prediction(item_id=item.id, sample_index=0, output=fenced("python", program))])
    return result.detail["samples"][0]


def test_a_starved_time_out_on_a_busy_machine_is_run_once_more(monkeypatch, caplog):
    sample = score(SLEEPER, True, monkeypatch)
    assert sample["verdict"] == "time_limit" and sample["rechecked"] == 1
    assert "time-limit verdict re-checked" in caplog.text


def test_no_recheck_when_idle_or_when_the_program_used_its_cpu(monkeypatch):
    assert "rechecked" not in score(SLEEPER, False, monkeypatch)
    spun = score(SPINNER, True, monkeypatch)
    assert spun["verdict"] == "time_limit" and "rechecked" not in spun
