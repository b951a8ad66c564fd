"""The Multi-LCB evaluator: LiveCodeBench problems solved as stdin/stdout programs in twelve languages.

Items are (problem, language) pairs imported from LCB's release format (``release.py``). A model
answers with a fenced program (``prompts.py``); ``score_item`` compiles each sample once in the
sandbox and runs every test as a fresh process (public tests first, stopping at the first failure),
comparing stdout by the Multi-LCB rule (``compare.py``). ``aggregate`` (``metrics.py``) reports pass@1 as the mean over
languages of per-language pass@1, with 95% bootstrap intervals that resample problems.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from evaluators.core.evaluator import Evaluator, Presentation
from evaluators.core.media import MediaSink
from evaluators.core.settings import generation_setting, setting_number
from evaluators.core.stats import pass_at_k
from evaluators.core.types import (
    Item,
    ItemScore,
    MethodNote,
    MetricColumn,
    MetricValue,
    ModelRequest,
    Prediction,
    ProtocolRow,
    SliceDimension,
)
from evaluators.multi_lcb.card import multi_lcb_card
from evaluators.multi_lcb.compare import RULE_SUMMARY, first_mismatch, outputs_match
from evaluators.multi_lcb.metrics import PASS_K, VERDICT_LABELS, VERDICTS, RunningMetrics, aggregate_scores
from evaluators.multi_lcb.prompts import EXTRACTION_RULES, LANGUAGE_KEYS, LANGUAGE_SPECS, build_messages, extract_code
from evaluators.multi_lcb.release import DIFFICULTIES, PLATFORMS, iter_release_items
from evaluators.multi_lcb.sample_detail import first_difference, kept_program

if TYPE_CHECKING:
    from evaluators.sandbox import Limits, RunResult, Sandbox

REASON_LIMIT = 2048
#: a failed hidden test's whole reason: nothing the program wrote or chose, nothing of the test's data
HIDDEN_TEST_REASON = (
    "a hidden test shows only its verdict: its input, the expected output and what the program "
    "wrote (stdout, stderr, exit code) stay hidden"
)

DEFAULT_SETTINGS: dict[str, Any] = {
    "time_limit_seconds": 15.0,
    "memory_mb": 1024,
    "extraction": "first",
    "languages": LANGUAGE_KEYS,
    "n": 10,
    "temperature": 0.2,
    "top_p": 0.95,
    "max_tokens": 32768,
}
log = logging.getLogger(__name__)
_RUN_STATUS_VERDICT = {
    "timeout": "time_limit",
    "memory_limit": "memory_limit",
    "output_limit": "output_limit",
    "runtime_error": "runtime_error",
}


def validate_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """Check and normalize evaluator settings; ValueError names the bad key."""
    if not isinstance(settings, Mapping):
        raise ValueError("settings must be a mapping")
    clean: dict[str, Any] = {}
    for key, value in settings.items():
        if key not in DEFAULT_SETTINGS:
            raise ValueError(f"unknown setting '{key}' (known: {', '.join(DEFAULT_SETTINGS)})")
        if key == "time_limit_seconds":
            clean[key] = setting_number(key, value, integer=False, low=0.1, high=600.0)
        elif key == "memory_mb":
            clean[key] = setting_number(key, value, integer=True, low=64, high=65536)
        elif key == "n" or key == "temperature" or key == "top_p" or key == "max_tokens":
            clean[key] = generation_setting(key, value)
        elif key == "extraction":
            if value not in EXTRACTION_RULES:
                raise ValueError(f"setting 'extraction': {value!r} is not one of {', '.join(EXTRACTION_RULES)}")
            clean[key] = value
        elif key == "languages":
            names = [part.strip() for part in value.split(",")] if isinstance(value, str) else value
            if not isinstance(names, (list, tuple)) or not names or not all(isinstance(n, str) for n in names):
                raise ValueError("setting 'languages': expected a non-empty list of language keys")
            unknown = [name for name in names if name not in LANGUAGE_KEYS]
            if unknown:
                raise ValueError(
                    f"setting 'languages': unknown language(s) {', '.join(unknown)} (known: {', '.join(LANGUAGE_KEYS)})"
                )
            clean[key] = tuple(k for k in LANGUAGE_KEYS if k in set(names))
    return clean


def _truncate(text: str, limit: int = REASON_LIMIT) -> str:
    data = text.encode("utf-8", errors="replace")
    if len(data) <= limit:
        return text
    return data[: limit - 20].decode("utf-8", errors="ignore") + "\n... (truncated)"


def _default_sandbox() -> Sandbox:
    """The sandbox a Multi-LCB evaluator scores with: a program's session, its tests done, serves the
    next program of its language (``reuse_sessions``), so that an item's tests do not pay for a sandbox
    of their own (bubblewrap, the supervisor, a cgroup: three times a native test's own time).
    LEADERBOARD_REUSE_SESSIONS=0 starts one per program, as before (bench/bench_wholerun.py compares)."""
    from evaluators.sandbox import Sandbox

    return Sandbox(reuse_sessions=os.environ.get("LEADERBOARD_REUSE_SESSIONS", "1") != "0")


#: the column headers of the languages whose names are long, where the language table must fit a desktop window
LANGUAGE_ABBREVIATIONS = {"javascript": "JS", "typescript": "TS"}
PLATFORM_NAMES = {"leetcode": "LeetCode", "codeforces": "Codeforces", "atcoder": "AtCoder"}


class MultiLCBEvaluator(Evaluator):
    """Evaluator for Multi-LCB (key ``multi-lcb``)."""

    key = "multi-lcb"
    metric_columns: tuple[MetricColumn, ...] = (
        MetricColumn(
            "pass@1", "pass@1, mean of languages", higher_is_better=True, format="percent", primary=True, short="Mean"
        ),
        # Python's pass@1 minus the mean of the other languages, shown in percentage points.
        MetricColumn("python_gap", "Python gap", higher_is_better=False, format="percent", short="Py gap"),
        MetricColumn("pass@5", "pass@5", higher_is_better=True, format="percent"),
        MetricColumn("pass@10", "pass@10", higher_is_better=True, format="percent"),
    )

    def __init__(
        self,
        *,
        time_limit_seconds: float = 15.0,
        memory_mb: int = 1024,
        extraction: str = "first",
        languages: Sequence[str] = LANGUAGE_KEYS,
        n: int = 10,
        temperature: float = 0.2,
        top_p: float = 0.95,
        max_tokens: int = 32768,
        sandbox_factory: Callable[[], Any] | None = None,
    ) -> None:
        clean = validate_settings(
            {
                "time_limit_seconds": time_limit_seconds,
                "memory_mb": memory_mb,
                "extraction": extraction,
                "languages": list(languages),
                "n": n,
                "temperature": temperature,
                "top_p": top_p,
                "max_tokens": max_tokens,
            }
        )
        self.settings: dict[str, Any] = clean
        self.time_limit_seconds: float = clean["time_limit_seconds"]
        self.memory_mb: int = clean["memory_mb"]
        self.extraction: str = clean["extraction"]
        self.languages: tuple[str, ...] = clean["languages"]
        self._sandbox_factory: Callable[[], Any] = sandbox_factory or _default_sandbox
        self._sandbox: Any = None
        self._sandbox_lock = threading.Lock()

    # ----------------------------------------------------------------------------- configuration
    def configured(self, settings: Mapping[str, Any]) -> Self:
        """A new evaluator with ``settings`` applied over this one's (ValueError names a bad key)."""
        merged = {**self.settings, **validate_settings(settings)}
        return type(self)(**merged, sandbox_factory=self._sandbox_factory)

    def sandbox(self) -> Any:
        """The shared sandbox, made on first use (raises SandboxUnavailable when it cannot run)."""
        with self._sandbox_lock:
            if self._sandbox is None:
                self._sandbox = self._sandbox_factory()
            return self._sandbox

    def run_limits(self) -> Limits:
        from evaluators.sandbox import Limits

        return Limits(
            wall_seconds=self.time_limit_seconds,
            cpu_seconds=self.time_limit_seconds,
            memory_mb=self.memory_mb,
            processes=64,
            file_size_mb=64,
            output_bytes=8 * 1024 * 1024,
        )

    # ----------------------------------------------------------------------------- dataset
    def import_release(self, path: Path, media: MediaSink | None = None) -> Iterable[Item]:
        return iter_release_items(Path(path), self.languages)

    def build_requests(self, item: Item, settings: dict[str, Any]) -> list[ModelRequest]:
        merged = {**self.settings, **validate_settings(settings or {})}
        language = item.slices.get("language") or item.payload.get("language", "")
        if language not in LANGUAGE_KEYS:
            raise ValueError(f"item {item.id}: unknown language {language!r}")
        return [
            ModelRequest(
                item_id=item.id,
                messages=build_messages(language, item.payload),
                n=merged["n"],
                temperature=merged["temperature"],
                top_p=merged["top_p"],
                max_tokens=merged["max_tokens"],
            )
        ]

    # ----------------------------------------------------------------------------- scoring
    def _tests(self, item: Item) -> list[tuple[dict[str, Any], bool]]:
        public = [(t, True) for t in item.payload.get("public_test_cases") or []]
        private = [(t, False) for t in item.payload.get("private_test_cases") or []]
        return public + private

    def _score_sample(
        self, language: str, tests: list[tuple[dict[str, Any], bool]], prediction: Prediction
    ) -> dict[str, Any]:
        started = time.monotonic()
        code = extract_code(prediction.output, self.extraction)
        result: dict[str, Any] = {
            "sample_index": prediction.sample_index,
            "verdict": "passed",
            "failed_test": None,
            "failed_test_public": None,
            "reason": "",
            "tests_run": 0,
            "compile_seconds": 0.0,
            "wall_seconds": 0.0,
            "cpu_seconds": 0.0,
            "extraction": self.extraction,
        }
        if not code.strip():
            result.update(verdict="no_code", reason="no fenced code block in the answer")
            return result
        code = code.encode("utf-8", errors="replace").decode("utf-8")  # lone surrogates cannot be written
        result["program"], result["program_truncated"] = kept_program(code)  # shown on the per-item page
        limits = self.run_limits()
        with self.sandbox().program(
            language, code, run_limits=limits
        ) as program:  # Python's syntax check in its session
            compiled = program.compile_result
            result["compile_seconds"] = round(float(compiled.seconds), 3)
            if not compiled.ok:
                note = "" if compiled.status == "compile_error" else f"compilation stopped: {compiled.status}\n"
                result.update(verdict="compile_error", reason=_truncate(note + (compiled.output or "")))
                result["wall_seconds"] = round(time.monotonic() - started, 3)
                return result
            with program.session(limits) as session:  # one sandbox, each test its own process
                for index, (test, public) in enumerate(tests):
                    run: RunResult = session.run(test["input"])
                    result["cpu_seconds"] += run.cpu_seconds or 0.0
                    result["tests_run"] = index + 1
                    verdict, reason = self._judge(run, test)
                    if verdict == "time_limit" and self._starved(run, limits):
                        # the wall clock ran out while the program was kept off the CPU by the machine's
                        # load: a verdict of the load, not the program; the test is run once more
                        result["rechecked"] = result.get("rechecked", 0) + 1
                        log.warning(
                            "time-limit verdict re-checked: %s test %d got %.2f s of CPU in %.2f s wall with the load "
                            "at %.1f "
                            "on %d cores",
                            language,
                            index,
                            run.cpu_seconds or 0.0,
                            run.wall_seconds or 0.0,
                            os.getloadavg()[0],
                            os.cpu_count() or 1,
                        )
                        run = session.run(test["input"])
                        result["cpu_seconds"] += run.cpu_seconds or 0.0
                        verdict, reason = self._judge(run, test)
                    if verdict != "passed":
                        # a hidden test's data stays hidden: its input, expected output, and the program's
                        # output, stderr, exit code and times (which the program chooses, so they could carry
                        # the input out) are never kept; only the verdict and the test's number are
                        result.update(
                            verdict=verdict,
                            failed_test=index,
                            failed_test_public=public,
                            reason=_truncate(reason) if public else HIDDEN_TEST_REASON,
                        )
                        if verdict == "wrong_answer" and public:
                            result["difference"] = first_difference(test["output"], run.stdout).to_dict()
                        break
        result["wall_seconds"] = round(time.monotonic() - started, 3)
        result["cpu_seconds"] = round(result["cpu_seconds"], 3)
        return result

    @staticmethod
    def _cpu_share() -> float:
        """The share of a CPU a program that never sleeps got over the last minute: cores over the runnable
        work (1 while the load is under the cores)."""
        cores = os.cpu_count() or 1
        return cores / max(os.getloadavg()[0], cores)

    def _starved(self, run: RunResult, limits: Limits) -> bool:
        """A wall-clock time-out (not the CPU limit) during which the program wanted the CPU but the machine's
        load kept it off: it got under 90% of a CPU, but at least half the share of a CPU the load left a
        program that never sleeps (cores over the load average). A program that spins on an idle machine
        reaches its CPU limit and is never re-checked; one that slept (or waited) used almost no CPU, so
        neither is a load on the machine an excuse for it: it is never run twice, which made a sleeping
        program's time limit cost twice the limit under load."""
        cpu, wall = run.cpu_seconds, float(run.wall_seconds or 0.0)
        if run.status != "timeout" or cpu is None or wall <= 0 or cpu >= limits.cpu_seconds - 0.05:
            return False
        share = self._cpu_share()
        return share < 1.0 and 0.5 * share * wall <= cpu < 0.9 * wall

    @staticmethod
    def _judge(run: RunResult, test: dict[str, Any]) -> tuple[str, str]:
        if run.status in _RUN_STATUS_VERDICT:
            verdict = _RUN_STATUS_VERDICT[run.status]
            if verdict == "runtime_error":
                return verdict, f"exit code {run.exit_code}\n{run.stderr or ''}"
            cpu = f", {run.cpu_seconds:.2f}s cpu" if isinstance(run.cpu_seconds, (int, float)) else ""
            # a fork bomb runs out of time after its forks were refused: say which limit it met first
            from evaluators.sandbox import PROCESS_LIMIT_NOTE

            forks = next((line for line in (run.stderr or "").splitlines() if line.startswith(PROCESS_LIMIT_NOTE)), "")
            return verdict, f"{run.status} after {float(run.wall_seconds or 0.0):.2f}s wall{cpu}" + (
                f"; {forks}" if forks else ""
            )
        if run.status != "ok" or run.exit_code != 0:
            return "runtime_error", f"exit code {run.exit_code}\n{run.stderr or ''}"
        if outputs_match(run.stdout, test["output"]):
            return "passed", ""
        return "wrong_answer", first_mismatch(run.stdout, test["output"]) or "output differs"

    def needs_shared_part(self, predictions: Sequence[Prediction]) -> bool:
        """Only an answer with code is run against the problem's tests (its shared part): an item whose
        answers have none is scored without them, never decoded."""
        return any(extract_code(p.output, self.extraction).strip() for p in predictions)

    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        """Score all samples of one (problem, language); raises only when the sandbox is unavailable. The
        tests are read only when an answer has code (``needs_shared_part``): an item whose answers all
        have none is scored without them, and its detail has no test counts."""
        language = item.slices.get("language") or str(item.payload.get("language", ""))
        with_code = self.needs_shared_part(predictions)
        tests = self._tests(item) if with_code else []
        samples = [self._score_sample(language, tests, p) for p in sorted(predictions, key=lambda p: p.sample_index)]
        n = len(samples)
        c = sum(1 for s in samples if s["verdict"] == "passed")
        scores: dict[str, float] = {"n": float(n), "c": float(c)}
        if n:
            scores["pass@1"] = c / n
            for k in PASS_K:
                if n >= k:
                    scores[f"pass@{k}"] = pass_at_k(n, c, k)
        counts = {"tests": len(tests), "public_tests": sum(1 for _, public in tests if public)} if with_code else {}
        detail = {
            "language": language,
            "extraction": self.extraction,
            **counts,
            "verdicts": dict(Counter(s["verdict"] for s in samples)),
            "samples": samples,
        }
        return ItemScore(item_id=item.id, slices=dict(item.slices), scores=scores, detail=detail)

    def presentation(self) -> MultiLCBPresentation:
        return MultiLCBPresentation(self)

    # ----------------------------------------------------------------------------- metrics
    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        return aggregate_scores(item_scores, seed=seed)

    def aggregation(self, *, seed: int = 0, order: Sequence[str] | None = None) -> RunningMetrics:
        """A few numbers per problem and language kept, never the scores (the metrics do not depend on
        the scores' order)."""
        return RunningMetrics(seed=seed)

    def environment(self) -> dict[str, str]:
        from evaluators.sandbox import toolchain_versions

        versions = toolchain_versions()
        env = {f"toolchain.{lang}": str(versions.get(lang, "unknown")) for lang in self.languages}
        env.update(
            {
                "extraction": self.extraction,
                "time_limit_seconds": f"{self.time_limit_seconds:g}",
                "memory_mb": str(self.memory_mb),
            }
        )
        return env


class MultiLCBPresentation(Presentation["MultiLCBEvaluator"]):
    """Multi-LCB's pages: the language, difficulty and platform filters, the contest-date window, each
    item's verdicts, the submit page's test runs, the reference solutions as an example file."""

    default_samples = 10
    sample_path = "data/sample_release.jsonl"
    #: item slice that leaderboards filter by date (contamination window)
    date_slice = "contest_date"
    slice_dimensions: tuple[SliceDimension, ...] = (
        SliceDimension(
            "language",
            "Language",
            LANGUAGE_KEYS,
            tuple(
                (LANGUAGE_ABBREVIATIONS.get(key, LANGUAGE_SPECS[key].name), LANGUAGE_SPECS[key].name)
                for key in LANGUAGE_KEYS
            ),
        ),
        SliceDimension("difficulty", "Difficulty", DIFFICULTIES, tuple(("", d.capitalize()) for d in DIFFICULTIES)),
        SliceDimension("platform", "Platform", PLATFORMS, tuple(("", PLATFORM_NAMES[p]) for p in PLATFORMS)),
    )
    item_labels = {
        "n": "Samples",
        "c": "Samples passed",
        "contest_date": "Contest date",
        "verdict_share": "Share of samples",
        "verdict": "Verdict",
    }
    item_value_labels = {"verdict": VERDICT_LABELS}

    def item_checks(self, item: Item) -> int:
        """The problem's test cases (public and private): each answer's program runs against all of them."""
        return len(self.evaluator._tests(item))

    def item_passed(self, score: ItemScore) -> bool | None:
        """Full marks: every sample passed every test."""
        n = score.scores.get("n", 0.0)
        return n > 0 and score.scores.get("c") == n

    def example_predictions(self, items: Sequence[Item]) -> bytes:
        """A ready-to-submit file: the shipped reference solutions, fenced as a model answers."""
        from evaluators.multi_lcb.examples import example_predictions

        return example_predictions(items)

    def method_notes(self) -> list[MethodNote]:
        """The comparison rule and each language's toolchain, for the leaderboard page."""
        toolchains = tuple(
            f"{spec.name}: {spec.toolchain}" + (f". {spec.toolchain_limits}." if spec.toolchain_limits else "")
            for spec in (LANGUAGE_SPECS[key] for key in LANGUAGE_KEYS)
        )
        return [
            MethodNote("How outputs are compared", RULE_SUMMARY),
            MethodNote(
                "Toolchains",
                "Every program is compiled once and each test runs as a fresh process "
                "in a sandbox with no network, with these compilers and runtimes (the prompts name "
                "them too). Code written for a newer version than the one listed can fail to compile. "
                "No C# compiler newer than Mono's installs from the registries the platform builds "
                "from, so C# stays at C# 7.",
                toolchains,
            ),
            MethodNote(
                "TypeScript type errors",
                "Type errors are not compile errors here: tsc runs with --noCheck, "
                "so a program with a syntax error fails to compile and one with only type errors runs as "
                "the JavaScript it compiles to. Multi-LCB's own harness type-checks (plain tsc), so its "
                "TypeScript pass rates can be lower than these. Chosen because a type error changes no "
                "output, and type-checking against Node's types makes every compile slower.",
            ),
            MethodNote(
                "Time limits under load",
                "A time-limit verdict is run once more when the wall clock ran out "
                "while the machine had more runnable work than cores and the program was kept off the CPU by "
                "it: it got under 90% of a CPU but at least half of the share the load left it (cores over "
                "the load average). A program that slept used almost no CPU and is not run again. The "
                "re-check is recorded with the item's result.",
            ),
        ]

    def method_card(self) -> list[ProtocolRow]:
        evaluator = self.evaluator
        s = evaluator.settings
        return multi_lcb_card(
            extraction=evaluator.extraction,
            time_limit_seconds=evaluator.time_limit_seconds,
            memory_mb=evaluator.memory_mb,
            n=s["n"],
            temperature=s["temperature"],
            top_p=s["top_p"],
            max_tokens=s["max_tokens"],
        )


__all__ = ["PASS_K", "VERDICTS", "MultiLCBEvaluator", "RunningMetrics", "aggregate_scores", "validate_settings"]
