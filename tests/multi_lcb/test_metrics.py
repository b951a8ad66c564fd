"""Tests of Multi-LCB scores and metrics: pass@k against hand-computed values, aggregation of
hand-made ItemScores (headline, per language, Python gap, slices, verdict mix, intervals), per-item
scores and verdict rules of ``score_item`` (with a scripted stand-in for the sandbox), settings."""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from evaluators.core.stats import pass_at_k
from evaluators.core.types import Item, ItemScore, MetricValue, Prediction
from evaluators.multi_lcb.evaluator import VERDICTS, MultiLCBEvaluator, aggregate_scores

# ------------------------------------------------------------------------------------------ pass@k


def test_pass_at_k_hand_computed() -> None:
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - 21 / 252)
    assert comb(7, 5) == 21 and comb(10, 5) == 252
    assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
    assert pass_at_k(10, 0, 10) == 0.0
    assert pass_at_k(10, 1, 10) == 1.0
    assert pass_at_k(10, 6, 5) == 1.0  # n - c < k
    assert pass_at_k(5, 2, 5) == 1.0
    # the product form given in the spec
    assert pass_at_k(10, 3, 5) == pytest.approx(1 - np.prod([1 - 5 / i for i in range(10 - 3 + 1, 11)]))


# ------------------------------------------------------------------------------------------ aggregate


def score(
    problem: str,
    language: str,
    c: int,
    n: int = 10,
    difficulty: str = "easy",
    platform: str = "atcoder",
    verdicts: list[str] | None = None,
) -> ItemScore:
    scores = {"n": float(n), "c": float(c), "pass@1": c / n}
    for k in (5, 10):
        if n >= k:
            scores[f"pass@{k}"] = pass_at_k(n, c, k)
    verdicts = verdicts or (["passed"] * c + ["wrong_answer"] * (n - c))
    return ItemScore(
        item_id=f"{problem}/{language}",
        slices={"language": language, "difficulty": difficulty, "platform": platform, "contest_date": "2024-01-01"},
        scores=scores,
        detail={"samples": [{"verdict": v} for v in verdicts]},
    )


def find(metrics: list[MetricValue], key: str, **slc: str) -> MetricValue:
    matches = [m for m in metrics if m.key == key and m.slice == slc]
    assert len(matches) == 1, (key, slc, matches)
    return matches[0]


HAND = [
    # P1 easy/atcoder, P2 hard/leetcode, P3 easy/leetcode
    score("P1", "python", 10),
    score("P1", "cpp", 5),
    score("P1", "java", 0),
    score("P2", "python", 5, difficulty="hard", platform="leetcode"),
    score("P2", "cpp", 0, difficulty="hard", platform="leetcode"),
    score("P2", "java", 5, difficulty="hard", platform="leetcode"),
    score("P3", "python", 6, platform="leetcode"),
    score("P3", "cpp", 3, platform="leetcode"),
    score("P3", "java", 3, platform="leetcode"),
]


def test_headline_and_languages_hand_computed() -> None:
    metrics = aggregate_scores(HAND, seed=7)
    # python (1 + .5 + .6)/3 = .7, cpp (.5 + 0 + .3)/3 = 4/15, java (0 + .5 + .3)/3 = 4/15
    assert find(metrics, "pass@1", language="python").value == pytest.approx(0.7)
    assert find(metrics, "pass@1", language="cpp").value == pytest.approx(4 / 15)
    assert find(metrics, "pass@1", language="java").value == pytest.approx(4 / 15)
    headline = find(metrics, "pass@1")
    assert headline.value == pytest.approx((0.7 + 8 / 15) / 3)
    assert headline.n == 9
    gap = find(metrics, "python_gap")
    assert gap.value == pytest.approx(0.7 - 4 / 15)
    for m in (headline, gap, find(metrics, "pass@1", language="cpp")):
        assert m.ci_low is not None and m.ci_high is not None
        assert m.ci_low <= m.value + 1e-12 and m.value - 1e-12 <= m.ci_high


def test_bootstrap_resamples_problems_for_all_languages_together() -> None:
    metrics = aggregate_scores(HAND, seed=3)
    # independent recomputation: the same problem draws for every language
    values = {"P1": [1.0, 0.5, 0.0], "P2": [0.5, 0.0, 0.5], "P3": [0.6, 0.3, 0.3]}
    table = np.array([values[p] for p in ("P1", "P2", "P3")])
    rows = np.random.default_rng(3).integers(0, 3, size=(1000, 3))
    per_language = table[rows].mean(axis=1)  # rounds x languages
    low, high = np.percentile(per_language.mean(axis=1), [2.5, 97.5])
    headline = find(metrics, "pass@1")
    assert (headline.ci_low, headline.ci_high) == pytest.approx((low, high))
    gap_low, gap_high = np.percentile(per_language[:, 0] - per_language[:, 1:].mean(axis=1), [2.5, 97.5])
    gap = find(metrics, "python_gap")
    assert (gap.ci_low, gap.ci_high) == pytest.approx((gap_low, gap_high))


def test_same_seed_same_intervals() -> None:
    a, b = aggregate_scores(HAND, seed=11), aggregate_scores(list(reversed(HAND)), seed=11)
    assert [m.to_dict() for m in a] == [m.to_dict() for m in b]


def test_a_large_release_is_bootstrapped_a_block_of_rounds_at_a_time_to_the_same_intervals(monkeypatch) -> None:
    # 300 problems x 3 languages: above DRAW_BLOCK's 131 problems, the 1,000 rounds are drawn 436 at a time
    rng = np.random.default_rng(4)
    many = [
        score(
            f"Q{p:03d}",
            language,
            int(rng.integers(0, 11)),
            difficulty=("easy", "hard")[p % 2],
            platform=("atcoder", "leetcode")[p % 2],
        )
        for p in range(300)
        for language in ("python", "cpp", "java")
    ]
    import evaluators.core.stats as module

    blocked = aggregate_scores(many, seed=5)
    monkeypatch.setattr(module, "DRAW_BLOCK", 10**9)  # every round in one block, as for a small release
    whole = aggregate_scores(many, seed=5)
    assert [(m.key, m.slice, m.n) for m in blocked] == [(m.key, m.slice, m.n) for m in whole]
    assert len(blocked) > 20
    for b, w in zip(blocked, whole):  # the same draws; only the sums' grouping may differ, in the last bits
        assert (b.value, b.ci_low, b.ci_high) == pytest.approx((w.value, w.ci_low, w.ci_high), rel=1e-12, abs=1e-15)


def test_difficulty_platform_and_pass_at_k() -> None:
    metrics = aggregate_scores(HAND, seed=0)
    # easy = P1, P3: python .8, cpp .4, java .15 -> mean 1.35/3; hard = P2: (.5 + 0 + .5)/3
    assert find(metrics, "pass@1", difficulty="easy").value == pytest.approx(1.35 / 3)
    hard = find(metrics, "pass@1", difficulty="hard")
    assert hard.value == pytest.approx(1 / 3) and hard.ci_low is None  # one problem: no interval
    assert find(metrics, "pass@1", platform="atcoder").value == pytest.approx(0.5)
    assert find(metrics, "pass@1", platform="leetcode").value == pytest.approx((0.55 + 0.15 + 0.4) / 3)
    python5 = (1.0 + pass_at_k(10, 5, 5) + pass_at_k(10, 6, 5)) / 3
    assert find(metrics, "pass@5", language="python").value == pytest.approx(python5)
    assert find(metrics, "pass@10", language="java").value == pytest.approx((0 + 1 + 1) / 3)
    assert find(metrics, "pass@5").value > find(metrics, "pass@1").value


def test_pass_at_k_absent_when_samples_are_too_few() -> None:
    few = [
        score("P1", "python", 1, n=3),
        score("P1", "cpp", 2, n=3),
        score("P2", "python", 0, n=3),
        score("P2", "cpp", 3, n=3),
    ]
    metrics = aggregate_scores(few)
    assert not [m for m in metrics if m.key in ("pass@5", "pass@10")]
    assert find(metrics, "pass@1").value == pytest.approx(((1 / 3 + 0) / 2 + (2 / 3 + 1) / 2) / 2)
    mixed = few + [score("P1", "java", 5, n=10), score("P2", "java", 2, n=10)]
    metrics = aggregate_scores(mixed)
    assert [m.slice for m in metrics if m.key == "pass@5"] == [{"language": "java"}]


def test_verdict_share() -> None:
    items = [
        score("P1", "python", 2, n=4, verdicts=["passed", "passed", "compile_error", "time_limit"]),
        score("P1", "rust", 0, n=4, verdicts=["no_code", "wrong_answer", "wrong_answer", "runtime_error"]),
    ]
    metrics = aggregate_scores(items)
    shares = {m.slice["verdict"]: m.value for m in metrics if m.key == "verdict_share"}
    assert set(shares) == set(VERDICTS)
    assert shares == pytest.approx(
        {
            "passed": 0.25,
            "compile_error": 0.125,
            "time_limit": 0.125,
            "no_code": 0.125,
            "wrong_answer": 0.25,
            "runtime_error": 0.125,
            "memory_limit": 0.0,
            "output_limit": 0.0,
        }
    )
    assert find(metrics, "python_gap").value == pytest.approx(0.5)


def test_no_python_no_gap_and_empty_input() -> None:
    metrics = aggregate_scores([score("P1", "go", 3), score("P2", "go", 4)])
    assert not [m for m in metrics if m.key == "python_gap"]
    assert find(metrics, "pass@1").value == pytest.approx(0.35)
    assert aggregate_scores([]) == []


# ------------------------------------------------------------------------------------------ score_item


@dataclass
class FakeRun:
    status: str
    exit_code: int | None
    stdout: str
    stderr: str = ""
    wall_seconds: float = 0.01
    cpu_seconds: float | None = 0.01


class FakeProgram:
    """Stands in for a sandboxed program: behaviour chosen by a keyword in the source."""

    def __init__(self, source: str, log: list[str]) -> None:
        self.source, self.log = source, log
        bad = "COMPILE_ERROR" in source
        self.compile_result = SimpleNamespace(
            ok=not bad,
            status="compile_error" if bad else "ok",
            output="main.x:1: error: nope" if bad else "",
            seconds=0.01,
        )

    def __enter__(self) -> FakeProgram:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def session(self, limits: Any) -> FakeProgram:  # one sandbox for all tests: the same fake
        self.limits = limits
        return self

    def run(self, stdin_text: str, limits: Any = None) -> FakeRun:
        self.log.append(stdin_text)
        total = str(sum(int(x) for x in stdin_text.split()))
        if "SUM_THEN_EXIT1" in self.source:
            return FakeRun("runtime_error", 1, total + "\n", "Traceback: boom")
        if "SUM_OK_STATUS_EXIT3" in self.source:
            return FakeRun("ok", 3, total + "\n")
        if "SLOW" in self.source:
            return FakeRun("timeout", None, "", wall_seconds=1.0, cpu_seconds=None)
        if "WRONG_ON_BIG" in self.source and len(stdin_text) > 5:
            return FakeRun("ok", 0, "0\n")
        if "ERROR_WORDS" in self.source:
            return FakeRun("ok", 0, total + "\n", "Error: Exception Traceback warning")
        return FakeRun("ok", 0, total + "\n")


class FakeSandbox:
    def __init__(self) -> None:
        self.log: list[str] = []

    def program(self, language: str, source: str, compile_limits: Any = None, run_limits: Any = None) -> FakeProgram:
        return FakeProgram(source, self.log)


ITEM = Item(
    id="abc/python",
    slices={"language": "python", "difficulty": "easy", "platform": "atcoder", "contest_date": "2024-01-01"},
    payload={
        "public_test_cases": [{"input": "1 2\n", "output": "3\n", "testtype": "stdin"}],
        "private_test_cases": [
            {"input": "10 20\n", "output": "30\n", "testtype": "stdin"},
            {"input": "100 200\n", "output": "300\n", "testtype": "stdin"},
        ],
    },
)


def answer(code: str) -> str:
    return f"Here you go:\n```python\n{code}\n```\n"


@pytest.fixture
def fake() -> tuple[MultiLCBEvaluator, FakeSandbox]:
    sandbox = FakeSandbox()
    return MultiLCBEvaluator(time_limit_seconds=2, sandbox_factory=lambda: sandbox), sandbox


def test_score_item_verdicts_and_scores(fake: tuple[MultiLCBEvaluator, FakeSandbox]) -> None:
    evaluator, _sandbox = fake
    outputs = [
        "GOOD",
        "SUM_THEN_EXIT1",
        "SUM_OK_STATUS_EXIT3",
        "SLOW",
        "WRONG_ON_BIG",
        "COMPILE_ERROR",
        None,
        "ERROR_WORDS",
        "GOOD",
        "GOOD",
    ]
    predictions = [
        Prediction("abc/python", answer(o) if o else "I cannot solve this.", i) for i, o in enumerate(outputs)
    ]
    result = evaluator.score_item(ITEM, list(reversed(predictions)))
    verdicts = [s["verdict"] for s in result.detail["samples"]]
    assert verdicts == [
        "passed",
        "runtime_error",
        "runtime_error",
        "time_limit",
        "wrong_answer",
        "compile_error",
        "no_code",
        "passed",
        "passed",
        "passed",
    ]
    assert result.scores["n"] == 10 and result.scores["c"] == 4
    assert result.scores["pass@1"] == pytest.approx(0.4)
    assert result.scores["pass@5"] == pytest.approx(1 - comb(6, 5) / comb(10, 5))
    assert result.scores["pass@10"] == 1.0
    wrong = result.detail["samples"][4]
    assert wrong["failed_test"] == 1 and wrong["failed_test_public"] is False and wrong["tests_run"] == 2
    slow = result.detail["samples"][3]
    assert slow["failed_test"] == 0 and slow["failed_test_public"] is True
    assert slow["reason"] == "timeout after 1.00s wall"  # no CPU time reported: none shown
    assert "error: nope" in result.detail["samples"][5]["reason"]
    assert "boom" in result.detail["samples"][1]["reason"]
    assert all(s["extraction"] == "first" for s in result.detail["samples"])
    assert result.detail["extraction"] == "first" and result.slices == ITEM.slices


def test_stops_at_first_failure(fake: tuple[MultiLCBEvaluator, FakeSandbox]) -> None:
    evaluator, sandbox = fake
    evaluator.score_item(ITEM, [Prediction("abc/python", answer("SLOW"))])
    assert sandbox.log == ["1 2\n"]


def test_reason_is_truncated(fake: tuple[MultiLCBEvaluator, FakeSandbox]) -> None:
    _evaluator, _sandbox = fake

    class Loud(FakeProgram):
        def run(self, stdin_text: str, limits: Any = None) -> FakeRun:
            return FakeRun("runtime_error", 1, "", "x" * 100_000)

    evaluator2 = MultiLCBEvaluator(
        sandbox_factory=lambda: SimpleNamespace(
            program=lambda lang, src, compile_limits=None, run_limits=None: Loud(src, [])
        )
    )
    result = evaluator2.score_item(ITEM, [Prediction("abc/python", answer("print(1)"))])
    assert len(result.detail["samples"][0]["reason"].encode()) <= 2048


def test_pass_at_k_omitted_for_few_samples(fake: tuple[MultiLCBEvaluator, FakeSandbox]) -> None:
    evaluator, _ = fake
    result = evaluator.score_item(ITEM, [Prediction("abc/python", answer("GOOD"), i) for i in range(3)])
    assert result.scores == {"n": 3.0, "c": 3.0, "pass@1": 1.0}


# ------------------------------------------------------------------------------------------ settings


def test_configured_validates_settings() -> None:
    base = MultiLCBEvaluator()
    assert base.time_limit_seconds == 15.0 and base.memory_mb == 1024 and base.extraction == "first"
    assert len(base.languages) == 12
    tuned = base.configured({"time_limit_seconds": "4", "extraction": "last", "languages": "rust,python"})
    assert tuned is not base and tuned.time_limit_seconds == 4.0 and tuned.extraction == "last"
    assert tuned.languages == ("python", "rust") and base.extraction == "first"
    for bad, key in [
        ({"time_limit": 3}, "time_limit"),
        ({"extraction": "middle"}, "extraction"),
        ({"languages": ["cobol"]}, "languages"),
        ({"memory_mb": -1}, "memory_mb"),
        ({"time_limit_seconds": "fast"}, "time_limit_seconds"),
        ({"n": 2.5}, "'n'"),
    ]:
        with pytest.raises(ValueError, match=key):
            base.configured(bad)


def test_build_requests_defaults_and_overrides() -> None:
    evaluator = MultiLCBEvaluator()
    item = Item(
        id="P/kotlin", slices={"language": "kotlin"}, payload={"question_content": "Q", "public_test_cases": []}
    )
    (request,) = evaluator.build_requests(item, {})
    assert (request.n, request.temperature, request.top_p, request.max_tokens) == (10, 0.2, 0.95, 32768)
    assert request.messages[0]["content"].startswith("You are an expert Kotlin programmer")
    assert "```kotlin" in request.messages[1]["content"]
    (request,) = evaluator.build_requests(item, {"n": 1, "temperature": 0.0, "max_tokens": 1000})
    assert (request.n, request.temperature, request.max_tokens) == (1, 0.0, 1000)


def test_protocol_attributes() -> None:
    from evaluators.core import Evaluator, evaluator_for

    evaluator = evaluator_for("multi-lcb")
    assert isinstance(evaluator, Evaluator) and isinstance(evaluator, MultiLCBEvaluator)
    assert (
        evaluator.key == "multi-lcb"
        and evaluator.generation().modality == "text"
        and evaluator.presentation().default_samples == 10
    )
    columns = {c.key: c for c in evaluator.metric_columns}
    assert list(columns) == ["pass@1", "python_gap", "pass@5", "pass@10"]
    assert columns["pass@1"].primary and not columns["python_gap"].higher_is_better
    assert sum(c.primary for c in evaluator.metric_columns) == 1
    dims = {d.key: d.values for d in evaluator.presentation().slice_dimensions}
    assert dims["language"] == (
        "python",
        "cpp",
        "java",
        "csharp",
        "go",
        "rust",
        "javascript",
        "typescript",
        "ruby",
        "php",
        "kotlin",
        "scala",
    )
    assert set(dims) == {"language", "difficulty", "platform"}
    assert evaluator.presentation().sample_dataset().is_file()


def test_a_fork_bomb_that_runs_out_of_time_names_the_process_limit() -> None:
    from evaluators.multi_lcb.evaluator import MultiLCBEvaluator
    from evaluators.sandbox import PROCESS_LIMIT_NOTE, RunResult

    bomb = RunResult(
        status="timeout",
        exit_code=None,
        stdout="",
        wall_seconds=15.2,
        cpu_seconds=1.1,
        stderr=f"{PROCESS_LIMIT_NOTE} (64 processes): a new process or thread was refused",
    )
    verdict, reason = MultiLCBEvaluator._judge(bomb, {"input": "", "output": "1", "testtype": "stdin"})
    assert verdict == "time_limit" and reason.startswith("timeout after 15.20s wall, 1.10s cpu")
    assert "the program reached the process limit (64 processes)" in reason
    slow = RunResult(status="timeout", exit_code=None, stdout="", stderr="", wall_seconds=15.2, cpu_seconds=15.1)
    assert "process limit" not in MultiLCBEvaluator._judge(slow, {"input": "", "output": "1", "testtype": "stdin"})[1]
