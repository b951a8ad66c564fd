"""A time-limit verdict that the machine's load may have caused is run once more: a wall-clock time-out
during which the program got under 90% of a CPU, while the machine had more runnable work than cores.
A program that spins out its CPU limit is never re-checked, nor is anything on an idle machine (the rule on
runs built by hand: under load a spinner is kept off the CPU too, and rightly re-checked)."""
from __future__ import annotations

import pytest

from evaluators.core.types import Prediction
from evaluators.multi_lcb.evaluator import MultiLCBEvaluator
from tests.multi_lcb.test_solutions import all_items, fenced

pytestmark = pytest.mark.toolchains

SLEEPER = "import time\ntime.sleep(30)\n"


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


def test_no_recheck_on_an_idle_machine(monkeypatch):
    assert "rechecked" not in score(SLEEPER, False, monkeypatch)


@pytest.mark.parametrize("status, cpu, wall, busy, starved", [
    ("timeout", 1.0, 1.4, True, False),    # it reached its CPU limit (1 s): it spun, whatever the load
    ("timeout", 0.95, 1.0, True, False),   # 95% of a CPU: it got its CPU
    ("timeout", 0.5, 1.0, True, True),     # half a CPU on a busy machine: the load's verdict, run again
    ("timeout", 0.5, 1.0, False, False),   # half a CPU on an idle machine: it waited on its own
    ("runtime_error", 0.1, 1.0, True, False),  # only a time-out is re-checked
])
def test_only_a_time_out_kept_off_the_cpu_by_a_busy_machine_is_starved(monkeypatch, status, cpu, wall, busy, starved):
    """The rule on runs built by hand (a spinner on this 2-core machine under load really is kept off the CPU,
    and rightly re-checked, so the end-to-end spinner cannot tell the rule from the load)."""
    from evaluators.sandbox.results import RunResult

    evaluator = MultiLCBEvaluator(time_limit_seconds=1.0)
    monkeypatch.setattr(MultiLCBEvaluator, "_machine_busy", staticmethod(lambda: busy))
    run = RunResult(status=status, exit_code=None, stdout="", stderr="", wall_seconds=wall, cpu_seconds=cpu)
    assert evaluator._starved(run, evaluator.run_limits()) is starved
