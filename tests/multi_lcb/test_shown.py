"""What a Multi-LCB sample keeps for the per-item page: the program it ran (capped at 20 KB), and for a
wrong answer on a public test both outputs cut around their first difference; a hidden test's outputs
are never kept."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from evaluators.core import Prediction
from evaluators.multi_lcb.evaluator import HIDDEN_TEST_REASON, MultiLCBEvaluator
from evaluators.multi_lcb.sample_detail import PROGRAM_LIMIT, first_difference, kept_program
from tests.multi_lcb.test_metrics import ITEM, FakeProgram, FakeRun, answer


def evaluator_running(program: type[FakeProgram]) -> MultiLCBEvaluator:
    return MultiLCBEvaluator(
        sandbox_factory=lambda: SimpleNamespace(
            program=lambda language, source, compile_limits=None, run_limits=None: program(source, [])
        )
    )


class WrongOnPublic(FakeProgram):
    """Prints a long wrong line on the public test (input "1 2")."""

    def run(self, stdin_text: str, limits: Any = None) -> FakeRun:
        return FakeRun("ok", 0, "a" * 500 + "\n" if stdin_text == "1 2\n" else "30\n")


class WrongOnHidden(FakeProgram):
    def run(self, stdin_text: str, limits: Any = None) -> FakeRun:
        return FakeRun("ok", 0, "3\n" if stdin_text == "1 2\n" else "SECRET-GOT\n")


def test_each_sample_keeps_the_program_it_ran() -> None:
    evaluator = evaluator_running(FakeProgram)
    code = "print(sum(map(int, input().split())))  # GOOD"
    result = evaluator.score_item(ITEM, [Prediction(ITEM.id, answer(code), 0), Prediction(ITEM.id, "no code here", 1)])
    ran, none = result.detail["samples"]
    assert ran["program"] == code + "\n" and ran["program_truncated"] is False
    assert none["verdict"] == "no_code" and "program" not in none


def test_a_long_program_is_kept_to_its_first_20_kb() -> None:
    evaluator = evaluator_running(FakeProgram)
    code = "# GOOD\n" + "x = 'é'\n" * 10_000
    sample = evaluator.score_item(ITEM, [Prediction(ITEM.id, answer(code))]).detail["samples"][0]
    assert sample["program_truncated"] is True and len(sample["program"].encode()) <= PROGRAM_LIMIT
    assert sample["program"].startswith("# GOOD\nx = 'é'\n") and sample["program"].endswith("... (truncated)")


def test_a_public_wrong_answer_keeps_both_outputs_around_the_first_difference() -> None:
    sample = (
        evaluator_running(WrongOnPublic)
        .score_item(ITEM, [Prediction(ITEM.id, answer("print(1)"))])
        .detail["samples"][0]
    )
    assert sample["verdict"] == "wrong_answer" and sample["failed_test"] == 0 and sample["failed_test_public"] is True
    assert sample["reason"] == "line 1 differs"
    difference = sample["difference"]
    assert difference == {"at": 0, "start": 0, "expected": "3\n", "got": "a" * 120 + "…"}


def test_a_hidden_test_keeps_no_output() -> None:
    sample = (
        evaluator_running(WrongOnHidden)
        .score_item(ITEM, [Prediction(ITEM.id, answer("print(1)"))])
        .detail["samples"][0]
    )
    assert sample["verdict"] == "wrong_answer" and sample["failed_test"] == 1 and sample["failed_test_public"] is False
    assert "difference" not in sample and "SECRET" not in repr(sample) and "30" not in sample["reason"]


class CopiesHiddenInput(FakeProgram):
    """Passes the public test; on a hidden one, copies the input into everything it chooses: its stderr, its exit
    code, its CPU time and its output's line count."""

    def run(self, stdin_text: str, limits: Any = None) -> FakeRun:
        if stdin_text == "1 2\n":
            return FakeRun("ok", 0, "3\n")
        a = int(stdin_text.split()[0])
        verdicts = {
            "EXIT": FakeRun("runtime_error", a, "", f"input was {stdin_text!r}"),
            "SLOW": FakeRun("timeout", None, "", f"input was {stdin_text!r}", wall_seconds=15.0, cpu_seconds=a / 100),
            "LINES": FakeRun("ok", 0, "x\n" * a),
        }
        return next(run for key, run in verdicts.items() if key in self.source)


@pytest.mark.parametrize(
    "behaviour, verdict", [("EXIT", "runtime_error"), ("SLOW", "time_limit"), ("LINES", "wrong_answer")]
)
def test_a_failed_hidden_test_keeps_only_its_verdict_and_number(behaviour: str, verdict: str) -> None:
    """The hidden test's input is "10 20": neither it nor anything the program made of it (stderr, exit code 10, 0.10 s
    of CPU, 10 lines) is kept; the reason says only that the test is hidden."""
    sample = (
        evaluator_running(CopiesHiddenInput)
        .score_item(ITEM, [Prediction(ITEM.id, answer(behaviour))])
        .detail["samples"][0]
    )
    assert (sample["verdict"], sample["failed_test"], sample["failed_test_public"], sample["tests_run"]) == (
        verdict,
        1,
        False,
        2,
    )
    assert sample["reason"] == HIDDEN_TEST_REASON and "difference" not in sample
    assert "10" not in repr({k: v for k, v in sample.items() if k not in ("program", "cpu_seconds")})


def test_first_difference_cuts_both_texts_around_it() -> None:
    expected, got = "x" * 500 + "A" + "y" * 500, "x" * 500 + "B" + "y" * 500
    found = first_difference(expected, got, context=10)
    assert (found.at, found.start) == (500, 490)
    assert found.expected == "…" + "x" * 10 + "A" + "y" * 9 + "…" and found.got == "…" + "x" * 10 + "B" + "y" * 9 + "…"
    prefix = first_difference("abc", "abcdef", context=10)  # one output stops early: the difference is its end
    assert (prefix.at, prefix.expected, prefix.got) == (3, "abc", "abcdef")


def test_kept_program_cuts_on_a_character_boundary() -> None:
    kept, cut = kept_program("é" * 100, limit=64)
    assert cut and len(kept.encode()) <= 64 and kept.endswith("(truncated)")
    assert kept_program("short\n") == ("short\n", False)
