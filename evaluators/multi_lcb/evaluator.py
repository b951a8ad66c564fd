"""The Multi-LCB evaluator: LiveCodeBench problems solved as stdin/stdout programs in twelve languages.

Items are (problem, language) pairs imported from LCB's release format (``release.py``). A model
answers with a fenced program (``prompts.py``); ``score_item`` compiles each sample once in the
sandbox and runs every test as a fresh process (public tests first, stopping at the first failure),
comparing stdout by the Multi-LCB rule (``compare.py``). ``aggregate`` reports pass@1 as the mean over
languages of per-language pass@1, with 95% bootstrap intervals that resample problems.
"""
from __future__ import annotations

import logging
import os
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Self, Sequence

import numpy as np

from evaluators.core.evaluator import Aggregation, Evaluator
from evaluators.core.media import MediaSink
from evaluators.core.settings import generation_setting, setting_number
from evaluators.core.stats import BOOTSTRAP_ROUNDS, pass_at_k
from evaluators.core.types import (Item, ItemScore, MethodNote, MetricColumn, MetricValue, ModelRequest, Prediction,
                                   ProtocolRow, SliceDimension)
from evaluators.multi_lcb.card import multi_lcb_card
from evaluators.multi_lcb.compare import RULE_SUMMARY, first_mismatch, outputs_match
from evaluators.multi_lcb.prompts import EXTRACTION_RULES, LANGUAGE_KEYS, LANGUAGE_SPECS, build_messages, extract_code
from evaluators.multi_lcb.release import DIFFICULTIES, PLATFORMS, iter_release_items
from evaluators.multi_lcb.shown import first_difference, kept_program

if TYPE_CHECKING:
    from evaluators.sandbox import Limits, RunResult, Sandbox

#: every verdict a sample can get, in display order
VERDICTS: tuple[str, ...] = ("passed", "wrong_answer", "time_limit", "memory_limit", "runtime_error",
                             "compile_error", "output_limit", "no_code")
PASS_K: tuple[int, ...] = (5, 10)
REASON_LIMIT = 2048

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
_RUN_STATUS_VERDICT = {"timeout": "time_limit", "memory_limit": "memory_limit",
                       "output_limit": "output_limit", "runtime_error": "runtime_error"}


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
        elif key == "n":
            clean[key] = generation_setting(key, value)
        elif key == "temperature":
            clean[key] = generation_setting(key, value)
        elif key == "top_p":
            clean[key] = generation_setting(key, value)
        elif key == "max_tokens":
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
                raise ValueError(f"setting 'languages': unknown language(s) {', '.join(unknown)} "
                                 f"(known: {', '.join(LANGUAGE_KEYS)})")
            clean[key] = tuple(k for k in LANGUAGE_KEYS if k in set(names))
    return clean


def _truncate(text: str, limit: int = REASON_LIMIT) -> str:
    data = text.encode("utf-8", errors="replace")
    if len(data) <= limit:
        return text
    return data[: limit - 20].decode("utf-8", errors="ignore") + "\n... (truncated)"


def _default_sandbox() -> Sandbox:
    from evaluators.sandbox import Sandbox

    return Sandbox()


class MultiLCBEvaluator(Evaluator):
    """Evaluator for Multi-LCB (key ``multi-lcb``)."""

    key = "multi-lcb"
    default_samples = 10
    sample_path = "data/sample_release.jsonl"
    #: item slice that leaderboards filter by date (contamination window)
    date_slice = "contest_date"
    metric_columns: tuple[MetricColumn, ...] = (
        MetricColumn("pass@1", "pass@1, mean of languages", higher_is_better=True, format="percent", primary=True),
        # Python's pass@1 minus the mean of the other languages, shown in percentage points.
        MetricColumn("python_gap", "Python gap", higher_is_better=False, format="percent"),
        MetricColumn("pass@5", "pass@5", higher_is_better=True, format="percent"),
        MetricColumn("pass@10", "pass@10", higher_is_better=True, format="percent"),
    )
    slice_dimensions: tuple[SliceDimension, ...] = (
        SliceDimension("language", "Language", LANGUAGE_KEYS),
        SliceDimension("difficulty", "Difficulty", DIFFICULTIES),
        SliceDimension("platform", "Platform", PLATFORMS),
    )

    def __init__(self, *, time_limit_seconds: float = 15.0, memory_mb: int = 1024, extraction: str = "first",
                 languages: Sequence[str] = LANGUAGE_KEYS, n: int = 10, temperature: float = 0.2,
                 top_p: float = 0.95, max_tokens: int = 32768,
                 sandbox_factory: Callable[[], Any] | None = None) -> None:
        clean = validate_settings({"time_limit_seconds": time_limit_seconds, "memory_mb": memory_mb,
                                   "extraction": extraction, "languages": list(languages), "n": n,
                                   "temperature": temperature, "top_p": top_p, "max_tokens": max_tokens})
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

        return Limits(wall_seconds=self.time_limit_seconds, cpu_seconds=self.time_limit_seconds,
                      memory_mb=self.memory_mb, processes=64, file_size_mb=64, output_bytes=8 * 1024 * 1024)

    # ----------------------------------------------------------------------------- dataset
    def import_release(self, path: Path, media: MediaSink | None = None) -> Iterable[Item]:
        return iter_release_items(Path(path), self.languages)

    def build_requests(self, item: Item, settings: dict[str, Any]) -> list[ModelRequest]:
        merged = {**self.settings, **validate_settings(settings or {})}
        language = item.slices.get("language") or item.payload.get("language", "")
        if language not in LANGUAGE_KEYS:
            raise ValueError(f"item {item.id}: unknown language {language!r}")
        return [ModelRequest(item_id=item.id, messages=build_messages(language, item.payload), n=merged["n"],
                             temperature=merged["temperature"], top_p=merged["top_p"],
                             max_tokens=merged["max_tokens"])]

    # ----------------------------------------------------------------------------- scoring
    def item_checks(self, item: Item) -> int:
        """The problem's test cases (public and private): each answer's program runs against all of them."""
        return len(self._tests(item))

    def _tests(self, item: Item) -> list[tuple[dict[str, Any], bool]]:
        public = [(t, True) for t in item.payload.get("public_test_cases") or []]
        private = [(t, False) for t in item.payload.get("private_test_cases") or []]
        return public + private

    def _score_sample(self, language: str, tests: list[tuple[dict[str, Any], bool]],
                      prediction: Prediction) -> dict[str, Any]:
        started = time.monotonic()
        code = extract_code(prediction.output, language, self.extraction)
        result: dict[str, Any] = {"sample_index": prediction.sample_index, "verdict": "passed",
                                  "failed_test": None, "failed_test_public": None, "reason": "",
                                  "tests_run": 0, "compile_seconds": 0.0, "wall_seconds": 0.0, "cpu_seconds": 0.0,
                                  "extraction": self.extraction}
        if not code.strip():
            result.update(verdict="no_code", reason="no fenced code block in the answer")
            return result
        code = code.encode("utf-8", errors="replace").decode("utf-8")  # lone surrogates cannot be written
        result["program"], result["program_truncated"] = kept_program(code)  # shown on the per-item page
        limits = self.run_limits()
        with self.sandbox().program(language, code, run_limits=limits) as program:  # Python's syntax check in its session
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
                        log.warning("time-limit verdict re-checked: %s test %d got %.2f s of CPU in %.2f s wall with the load at %.1f "
                                    "on %d cores", language, index, run.cpu_seconds or 0.0, run.wall_seconds or 0.0,
                                    os.getloadavg()[0], os.cpu_count() or 1)
                        run = session.run(test["input"])
                        result["cpu_seconds"] += run.cpu_seconds or 0.0
                        verdict, reason = self._judge(run, test)
                    if verdict != "passed":
                        result.update(verdict=verdict, failed_test=index, failed_test_public=public,
                                      reason=_truncate(reason))
                        if verdict == "wrong_answer" and public:  # a hidden test's data stays hidden
                            result["difference"] = first_difference(test["output"], run.stdout).to_dict()
                        break
        result["wall_seconds"] = round(time.monotonic() - started, 3)
        result["cpu_seconds"] = round(result["cpu_seconds"], 3)
        return result

    @staticmethod
    def _machine_busy() -> bool:
        """More runnable work than cores over the last minute."""
        return os.getloadavg()[0] > (os.cpu_count() or 1)

    def _starved(self, run: RunResult, limits: Limits) -> bool:
        """A wall-clock time-out (not the CPU limit) during which the program got under 90% of a CPU, while
        the machine was overloaded. A program that spins gets its CPU and is never re-checked; one that
        sleeps or waits for input is re-checked only while the machine is overloaded."""
        cpu, wall = run.cpu_seconds, float(run.wall_seconds or 0.0)
        if run.status != "timeout" or cpu is None or wall <= 0 or cpu >= limits.cpu_seconds - 0.05:
            return False
        return cpu < 0.9 * wall and self._machine_busy()

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
            return verdict, f"{run.status} after {float(run.wall_seconds or 0.0):.2f}s wall{cpu}" + (f"; {forks}" if forks else "")
        if run.status != "ok" or run.exit_code != 0:
            return "runtime_error", f"exit code {run.exit_code}\n{run.stderr or ''}"
        functional = test.get("testtype") == "functional"
        if outputs_match(run.stdout, test["output"], functional=functional):
            return "passed", ""
        return "wrong_answer", first_mismatch(run.stdout, test["output"]) or "output differs"

    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        """Score all samples of one (problem, language); raises only when the sandbox is unavailable."""
        language = item.slices.get("language") or str(item.payload.get("language", ""))
        tests = self._tests(item)
        samples = [self._score_sample(language, tests, p) for p in sorted(predictions, key=lambda p: p.sample_index)]
        n = len(samples)
        c = sum(1 for s in samples if s["verdict"] == "passed")
        scores: dict[str, float] = {"n": float(n), "c": float(c)}
        if n:
            scores["pass@1"] = c / n
            for k in PASS_K:
                if n >= k:
                    scores[f"pass@{k}"] = pass_at_k(n, c, k)
        detail = {"language": language, "extraction": self.extraction, "tests": len(tests),
                  "public_tests": sum(1 for _, public in tests if public),
                  "verdicts": dict(Counter(s["verdict"] for s in samples)), "samples": samples}
        return ItemScore(item_id=item.id, slices=dict(item.slices), scores=scores, detail=detail)

    def item_passed(self, score: ItemScore) -> bool | None:
        """Full marks: every sample passed every test."""
        n = score.scores.get("n", 0.0)
        return n > 0 and score.scores.get("c") == n

    # ----------------------------------------------------------------------------- metrics
    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        return aggregate_scores(item_scores, seed=seed)

    def aggregation(self, *, seed: int = 0, order: Sequence[str] | None = None) -> RunningMetrics:
        """A few numbers per problem and language kept, never the scores (the metrics do not depend on
        the scores' order)."""
        return RunningMetrics(seed=seed)

    def example_predictions(self, items: Sequence[Item]) -> bytes:
        """A ready-to-submit file: the shipped reference solutions, fenced as a model answers."""
        from evaluators.multi_lcb.examples import example_predictions

        return example_predictions(items)

    def method_notes(self) -> list[MethodNote]:
        """The comparison rule and each language's toolchain, for the leaderboard page."""
        toolchains = tuple(
            f"{spec.name}: {spec.toolchain}" + (f". {spec.toolchain_limits}." if spec.toolchain_limits else "")
            for spec in (LANGUAGE_SPECS[key] for key in LANGUAGE_KEYS))
        return [
            MethodNote("How outputs are compared", RULE_SUMMARY),
            MethodNote("Toolchains", "Every program is compiled once and each test runs as a fresh process "
                       "in a sandbox with no network, with these compilers and runtimes (the prompts name "
                       "them too). Code written for a newer version than the one listed can fail to compile. "
                       "No C# compiler newer than Mono's installs from the registries the platform builds "
                       "from, so C# stays at C# 7.", toolchains),
            MethodNote("TypeScript type errors", "Type errors are not compile errors here: tsc runs with --noCheck, "
                       "so a program with a syntax error fails to compile and one with only type errors runs as "
                       "the JavaScript it compiles to. Multi-LCB's own harness type-checks (plain tsc), so its "
                       "TypeScript pass rates can be lower than these. Chosen because a type error changes no "
                       "output, and type-checking against Node's types makes every compile slower."),
            MethodNote("Time limits under load", "A time-limit verdict is run once more when the wall clock ran out "
                       "while the program got under 90% of a CPU and the machine had more runnable work than "
                       "cores (the load, not the program); the re-check is recorded with the item's result."),
        ]

    def method_card(self) -> list[ProtocolRow]:
        s = self.settings
        return multi_lcb_card(extraction=self.extraction, time_limit_seconds=self.time_limit_seconds,
                              memory_mb=self.memory_mb, n=s["n"], temperature=s["temperature"], top_p=s["top_p"],
                              max_tokens=s["max_tokens"])

    def environment(self) -> dict[str, str]:
        from evaluators.sandbox import toolchain_versions

        versions = toolchain_versions()
        env = {f"toolchain.{lang}": str(versions.get(lang, "unknown")) for lang in self.languages}
        env.update({"extraction": self.extraction, "time_limit_seconds": f"{self.time_limit_seconds:g}",
                    "memory_mb": str(self.memory_mb)})
        return env


# --------------------------------------------------------------------------------- aggregation

#: the scores kept per problem and language: pass@1, then pass@k for each k of PASS_K
_KEPT: tuple[str, ...] = ("pass@1", *(f"pass@{k}" for k in PASS_K))
#: most problem draws a bootstrap block holds (rounds x problems): a release of up to 131 problems is
#: drawn in one block, a larger one a block of rounds at a time, so the bootstrap's memory stays flat
DRAW_BLOCK = 1 << 17


def _problem_id(score: ItemScore) -> str:
    return score.item_id.rsplit("/", 1)[0]


class _Draws:
    """A bootstrap over ``problems`` problems with ``rounds`` rounds from ``seed``: how many times each
    round drew each problem, made and applied a block of rounds at a time (``apply``). Each block's
    counts come from one ``integers`` call per block and a ``bincount`` of its draws (never a rounds x
    problems x languages copy of a table, nor the whole draw matrix of a large release)."""

    def __init__(self, seed: int, rounds: int, problems: int) -> None:
        self.seed, self.rounds, self.problems = seed, rounds, problems

    def blocks(self) -> Iterator[np.ndarray]:
        """The draw counts (block rounds x problems), the same numbers whatever the block size (the
        generator's stream of draws does not depend on how it is cut)."""
        rng = np.random.default_rng(self.seed)
        step = max(1, DRAW_BLOCK // self.problems)
        for start in range(0, self.rounds, step):
            rounds = min(step, self.rounds - start)
            drawn = rng.integers(0, self.problems, size=(rounds, self.problems))
            offsets = drawn + self.problems * np.arange(rounds)[:, None]
            yield np.bincount(offsets.ravel(), minlength=rounds * self.problems).reshape(rounds, self.problems).astype(float)

    def apply(self, compute: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``compute`` of each block of draws, the blocks' results stacked (rounds first)."""
        return np.concatenate([compute(block) for block in self.blocks()])


def _draws(seed: int, rounds: int, problems: int) -> _Draws | None:
    """The bootstrap over ``problems`` problems; None for a single problem (no interval)."""
    return _Draws(seed, rounds, problems) if problems > 1 else None


class _Table:
    """Per-problem x per-language values of one score (zero where an item has none) and where items are,
    with problem-resampling bootstrap."""

    def __init__(self, values: np.ndarray, present: np.ndarray) -> None:
        self.values = np.ascontiguousarray(np.where(present, values, 0.0))
        self.mask = np.ascontiguousarray(present.astype(float))

    def language_means(self, draws: np.ndarray | None = None) -> np.ndarray:
        """Per-language means; ``draws`` (rounds x problems: how often each round drew each problem)
        resamples problems. NaN where empty."""
        if draws is None:
            sums, counts = self.values.sum(axis=0), self.mask.sum(axis=0)
        else:
            sums, counts = draws @ self.values, draws @ self.mask
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)

    def boot_means(self, draws: _Draws) -> np.ndarray:
        """Per-language means of every bootstrap round (rounds x languages)."""
        return draws.apply(self.language_means)


def _interval(samples: np.ndarray) -> tuple[float | None, float | None]:
    finite = samples[np.isfinite(samples)]
    if finite.size == 0:
        return None, None
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def _nanmean(values: np.ndarray, axis: int = -1) -> np.ndarray:
    counts = np.isfinite(values).sum(axis=axis)
    sums = np.where(np.isfinite(values), values, 0.0).sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)


class RunningMetrics(Aggregation):
    """Multi-LCB's metrics from scores fed one at a time, keeping per problem only what they need: its
    difficulty and platform, each language's pass@1 / pass@k and the count of each verdict among its
    samples (a few hundred bytes a problem, never an item's detail). Any order of ``add`` gives the
    same metrics."""

    def __init__(self, *, seed: int = 0, rounds: int = BOOTSTRAP_ROUNDS) -> None:
        self.seed, self.rounds = seed, rounds
        self._rows: dict[str, int] = {}  # problem id -> its row
        self._groups: list[tuple[str, str]] = []  # each row's (difficulty, platform), from its first item
        self._columns: dict[str, int] = {}  # language -> its column
        self._values = np.zeros((16, len(LANGUAGE_KEYS), len(_KEPT)))
        self._present = np.zeros((16, len(LANGUAGE_KEYS), len(_KEPT)), dtype=bool)
        self._verdicts = np.zeros((16, len(VERDICTS)))
        self._usable = 0
        self._extra_verdicts: Counter[str] = Counter()

    def add(self, score: ItemScore) -> None:
        language = score.slices.get("language")
        if score.error or "pass@1" not in score.scores or not language:
            return
        self._usable += 1
        problem = _problem_id(score)
        row = self._rows.get(problem)
        if row is None:
            row = self._rows[problem] = len(self._rows)
            self._groups.append((score.slices.get("difficulty", ""), score.slices.get("platform", "")))
            if row == self._values.shape[0]:
                self._values, self._present, self._verdicts = (np.concatenate([a, np.zeros_like(a)])
                                                               for a in (self._values, self._present, self._verdicts))
        column = self._columns.get(language)
        if column is None:
            column = self._columns[language] = len(self._columns)
            if column == self._values.shape[1]:
                self._values, self._present = (np.concatenate([a, np.zeros_like(a)], axis=1) for a in (self._values, self._present))
        for k, key in enumerate(_KEPT):
            if key in score.scores:
                self._values[row, column, k] = score.scores[key]
                self._present[row, column, k] = True
        for sample in score.detail.get("samples", []):
            verdict = sample.get("verdict", "")
            if verdict in VERDICTS:
                self._verdicts[row, VERDICTS.index(verdict)] += 1
            else:
                self._extra_verdicts[verdict] += 1

    def metrics(self) -> list[MetricValue]:
        """Headline, per-language, per-difficulty, per-platform, Python gap, verdict mix."""
        if not self._usable:
            return []
        problems = sorted(self._rows)
        order = np.array([self._rows[p] for p in problems])
        languages = [lang for lang in LANGUAGE_KEYS if lang in self._columns]
        languages += sorted(set(self._columns) - set(languages))
        columns = [self._columns[lang] for lang in languages]
        values = self._values[order][:, columns]  # problems (sorted) x languages x kept scores
        present = self._present[order][:, columns]
        groups = [self._groups[row] for row in order]
        rows = _draws(self.seed, self.rounds, len(problems))
        metrics: list[MetricValue] = []

        def emit_language_metrics(k: int, tab: _Table, draws: _Draws | None, extra_slice: dict[str, str],
                                  per_language: bool, gap: bool) -> None:
            key, n = _KEPT[k], int(tab.mask.sum())
            point = tab.language_means()
            boot = tab.boot_means(draws) if draws is not None else None
            present_columns = [j for j, lang in enumerate(languages) if np.isfinite(point[j])]
            if not present_columns:
                return
            headline = float(np.mean(point[present_columns]))
            low = high = None
            if boot is not None:
                low, high = _interval(_nanmean(boot[:, present_columns]))
            metrics.append(MetricValue(key, headline, low, high, n, dict(extra_slice)))
            if per_language:
                for j in present_columns:
                    n_items = int(tab.mask[:, j].sum())
                    low_j = high_j = None
                    if boot is not None and n_items > 1:
                        low_j, high_j = _interval(boot[:, j])
                    metrics.append(MetricValue(key, float(point[j]), low_j, high_j, n_items,
                                               {**extra_slice, "language": languages[j]}))
            if gap and "python" in languages:
                py = languages.index("python")
                others = [j for j in present_columns if j != py]
                if np.isfinite(point[py]) and others:
                    value = float(point[py] - np.mean(point[others]))
                    low_g = high_g = None
                    if boot is not None:
                        low_g, high_g = _interval(boot[:, py] - _nanmean(boot[:, others]))
                    metrics.append(MetricValue("python_gap", value, low_g, high_g, n, dict(extra_slice)))

        # headline, per language and the Python gap
        emit_language_metrics(0, _Table(values[:, :, 0], present[:, :, 0]), rows, {}, per_language=True, gap=True)
        scored = present[:, :, 0]
        for k in range(1, len(_KEPT)):
            has = present[:, :, k]
            if int(has.sum()) == self._usable:  # every item has pass@k
                emit_language_metrics(k, _Table(values[:, :, k], has), rows, {}, per_language=True, gap=False)
                continue
            for j, lang in enumerate(languages):  # else each language whose every item has it
                n_items = int(scored[:, j].sum())
                if not n_items or int(has[:, j].sum()) != n_items:
                    continue
                only = np.zeros_like(has)
                only[:, j] = has[:, j]
                tab = _Table(values[:, :, k], only)
                low = high = None
                if rows is not None and n_items > 1:
                    low, high = _interval(tab.boot_means(rows)[:, j])
                metrics.append(MetricValue(_KEPT[k], float(tab.language_means()[j]), low, high, n_items, {"language": lang}))

        # per difficulty and per platform: mean over languages, bootstrap over that group's problems
        for d, (dimension, known) in enumerate((("difficulty", DIFFICULTIES), ("platform", PLATFORMS))):
            members: dict[str, list[int]] = defaultdict(list)
            for i, group_values in enumerate(groups):
                members[group_values[d]].append(i)
            for group in list(known) + sorted(set(members) - set(known)):
                chosen = members.get(group)
                if not group or not chosen:
                    continue
                emit_language_metrics(0, _Table(values[chosen, :, 0], present[chosen, :, 0]),
                                      _draws(self.seed, self.rounds, len(chosen)), {dimension: group},
                                      per_language=False, gap=False)

        # error mix: share of all samples per verdict, bootstrap over problems
        counts = np.ascontiguousarray(self._verdicts[order])
        totals = counts.sum(axis=1)
        if totals.sum() > 0:
            share = counts.sum(axis=0) / totals.sum()
            boot_share = None
            if rows is not None:
                def shares(draws: np.ndarray) -> np.ndarray:
                    boot_counts, boot_totals = draws @ counts, draws @ totals
                    with np.errstate(invalid="ignore", divide="ignore"):
                        result: np.ndarray = boot_counts / boot_totals[:, None]
                    return result

                boot_share = rows.apply(shares)
            for v, verdict in enumerate(VERDICTS):
                low = high = None
                if boot_share is not None:
                    low, high = _interval(boot_share[:, v])
                metrics.append(MetricValue("verdict_share", float(share[v]), low, high, self._usable, {"verdict": verdict}))
        return metrics


def aggregate_scores(item_scores: Iterable[ItemScore], *, seed: int = 0,
                     rounds: int = BOOTSTRAP_ROUNDS) -> list[MetricValue]:
    """Multi-LCB metrics of ``item_scores`` (``RunningMetrics`` fed each)."""
    running = RunningMetrics(seed=seed, rounds=rounds)
    for score in item_scores:
        running.add(score)
    return running.metrics()
