"""A time-limit verdict that the machine's load may have caused is run once more: a wall-clock time-out
during which the program got under 90% of a CPU but at least half the share of a CPU the load left a program
that never sleeps (cores over the load average), on a machine with more runnable work than cores. A program
that spins out its CPU limit is never re-checked, nor is anything on an idle machine, nor a program that slept
(it used almost no CPU: under load its time limit used to cost twice the limit). The rule on runs built by
hand: under load a spinner is kept off the CPU too, and rightly re-checked."""

from __future__ import annotations

import pytest

from evaluators.core.types import Prediction
from evaluators.multi_lcb.evaluator import MultiLCBEvaluator
from evaluators.sandbox.resident import Session
from tests.multi_lcb.test_solutions import all_items, fenced

pytestmark = pytest.mark.toolchains

SLEEPER = "import time\ntime.sleep(30)\n"
#: the share of a CPU on a machine running four times more work than it has cores
LOADED = 0.25


def score(program: str, share: float, monkeypatch) -> tuple[dict, int]:
    """The sample's result and how many tests the sandbox ran for it."""
    evaluator = MultiLCBEvaluator(time_limit_seconds=1.0)
    monkeypatch.setattr(MultiLCBEvaluator, "_cpu_share", staticmethod(lambda: share))
    runs = []
    real_run = Session.run

    def counted(session: Session, stdin: str):
        result = real_run(session, stdin)
        runs.append(result)
        return result

    monkeypatch.setattr(Session, "run", counted)
    item = next(item for item in all_items().values() if item.slices["language"] == "python")
    result = evaluator.score_item(item, [Prediction(item_id=item.id, sample_index=0, output=fenced("python", program))])
    return result.detail["samples"][0], len(runs)


def test_a_program_that_slept_on_a_busy_machine_gets_its_time_limit_without_a_re_run(monkeypatch, caplog):
    sample, runs = score(SLEEPER, LOADED, monkeypatch)
    assert (sample["verdict"], sample["failed_test"], sample["tests_run"]) == ("time_limit", 0, 1)
    assert "rechecked" not in sample and runs == 1  # the first (public) test, once
    assert "time-limit verdict re-checked" not in caplog.text


def test_no_recheck_on_an_idle_machine(monkeypatch):
    sample, runs = score(SLEEPER, 1.0, monkeypatch)
    assert sample["verdict"] == "time_limit" and "rechecked" not in sample and runs == 1


@pytest.mark.parametrize(
    "status, cpu, wall, share, starved",
    [
        ("timeout", 1.0, 1.4, 0.25, False),  # it reached its CPU limit (1 s): it spun, whatever the load
        ("timeout", 0.95, 1.0, 0.25, False),  # 95% of a CPU: it got its CPU
        ("timeout", 0.5, 1.0, 0.5, True),  # half a CPU where the load left half a CPU: the load's verdict, run again
        ("timeout", 0.2, 1.0, 0.25, True),  # 0.2 s in 1 s, at least half of the 0.25 the load left (0.125 s): run again
        ("timeout", 0.1, 1.0, 0.25, False),  # under half of that share: it slept part of the time, the verdict stands
        ("timeout", 0.02, 1.0, 0.25, False),  # it slept: the load is no excuse
        ("timeout", 0.5, 1.0, 1.0, False),  # half a CPU on an idle machine: it waited on its own
        ("runtime_error", 0.3, 1.0, 0.25, False),  # only a time-out is re-checked
    ],
)
def test_only_a_time_out_kept_off_the_cpu_by_a_busy_machine_is_starved(monkeypatch, status, cpu, wall, share, starved):
    """The rule on runs built by hand (a spinner on this 2-core machine under load really is kept off the CPU,
    and rightly re-checked, so an end-to-end spinner cannot tell the rule from the load)."""
    from evaluators.sandbox.results import RunResult

    evaluator = MultiLCBEvaluator(time_limit_seconds=1.0)
    monkeypatch.setattr(MultiLCBEvaluator, "_cpu_share", staticmethod(lambda: share))
    run = RunResult(status=status, exit_code=None, stdout="", stderr="", wall_seconds=wall, cpu_seconds=cpu)
    assert evaluator._starved(run, evaluator.run_limits()) is starved


def test_the_share_of_a_cpu_is_cores_over_the_load(monkeypatch):
    """On 2 cores: a load of 8 leaves a quarter of a CPU to each runnable program; a load under the cores, a whole
    one."""
    import os

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (8.0, 0.0, 0.0))
    assert MultiLCBEvaluator._cpu_share() == 0.25
    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 0.0, 0.0))
    assert MultiLCBEvaluator._cpu_share() == 1.0
