"""Multi-LCB's metrics: pass@1 as the mean over languages of per-language pass@1 (and pass@k), per
difficulty and platform, the Python gap and the verdict mix, with 95% bootstrap intervals that
resample problems. ``RunningMetrics`` takes the scores one at a time and keeps a few numbers per
problem and language, never an item's detail: a run's scores are streamed into it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator

import numpy as np

from evaluators.core.evaluator import Aggregation
from evaluators.core.stats import BOOTSTRAP_ROUNDS, draw_blocks
from evaluators.core.types import ItemScore, MetricValue
from evaluators.multi_lcb.prompts import LANGUAGE_KEYS
from evaluators.multi_lcb.release import DIFFICULTIES, PLATFORMS

#: every verdict a sample can get, in display order
VERDICTS: tuple[str, ...] = (
    "passed",
    "wrong_answer",
    "time_limit",
    "memory_limit",
    "runtime_error",
    "compile_error",
    "output_limit",
    "no_code",
)
VERDICT_LABELS: dict[str, str] = {
    "passed": "Passed",
    "wrong_answer": "Wrong answer",
    "time_limit": "Time limit exceeded",
    "memory_limit": "Memory limit exceeded",
    "runtime_error": "Runtime error",
    "compile_error": "Compile error",
    "output_limit": "Output limit exceeded",
    "no_code": "No code found",
}
PASS_K: tuple[int, ...] = (5, 10)

#: the scores kept per problem and language: pass@1, then pass@k for each k of PASS_K
_KEPT: tuple[str, ...] = ("pass@1", *(f"pass@{k}" for k in PASS_K))


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
        for drawn in draw_blocks(np.random.default_rng(self.seed), self.problems, self.rounds):
            rounds = drawn.shape[0]
            offsets = drawn + self.problems * np.arange(rounds)[:, None]
            yield (
                np.bincount(offsets.ravel(), minlength=rounds * self.problems)
                .reshape(rounds, self.problems)
                .astype(float)
            )

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
                self._values, self._present, self._verdicts = (
                    np.concatenate([a, np.zeros_like(a)]) for a in (self._values, self._present, self._verdicts)
                )
        column = self._columns.get(language)
        if column is None:
            column = self._columns[language] = len(self._columns)
            if column == self._values.shape[1]:
                self._values, self._present = (
                    np.concatenate([a, np.zeros_like(a)], axis=1) for a in (self._values, self._present)
                )
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
        headline = _Table(values[:, :, 0], present[:, :, 0])
        return [
            *_language_metrics(0, headline, rows, languages, {}, per_language=True, gap=True),
            *_pass_at_k_metrics(values, present, languages, rows, self._usable),
            *_group_metrics(values, present, groups, languages, self.seed, self.rounds),
            *_verdict_shares(np.ascontiguousarray(self._verdicts[order]), rows, self._usable),
        ]


def _language_metrics(
    k: int,
    tab: _Table,
    draws: _Draws | None,
    languages: list[str],
    extra_slice: dict[str, str],
    per_language: bool,
    gap: bool,
) -> list[MetricValue]:
    """The mean over ``languages`` of the ``k``-th kept score (``tab``), and if asked each language's own and
    the Python gap (Python's minus the other languages' mean), with the bootstrap's intervals."""
    key, n = _KEPT[k], int(tab.mask.sum())
    point = tab.language_means()
    boot = tab.boot_means(draws) if draws is not None else None
    present_columns = [j for j, lang in enumerate(languages) if np.isfinite(point[j])]
    if not present_columns:
        return []
    headline = float(np.mean(point[present_columns]))
    low = high = None
    if boot is not None:
        low, high = _interval(_nanmean(boot[:, present_columns]))
    metrics = [MetricValue(key, headline, low, high, n, dict(extra_slice))]
    if per_language:
        for j in present_columns:
            n_items = int(tab.mask[:, j].sum())
            low_j = high_j = None
            if boot is not None and n_items > 1:
                low_j, high_j = _interval(boot[:, j])
            metrics.append(
                MetricValue(key, float(point[j]), low_j, high_j, n_items, {**extra_slice, "language": languages[j]})
            )
    if gap and "python" in languages:
        py = languages.index("python")
        others = [j for j in present_columns if j != py]
        if np.isfinite(point[py]) and others:
            value = float(point[py] - np.mean(point[others]))
            low_g = high_g = None
            if boot is not None:
                low_g, high_g = _interval(boot[:, py] - _nanmean(boot[:, others]))
            metrics.append(MetricValue("python_gap", value, low_g, high_g, n, dict(extra_slice)))
    return metrics


def _pass_at_k_metrics(
    values: np.ndarray, present: np.ndarray, languages: list[str], rows: _Draws | None, usable: int
) -> list[MetricValue]:
    """pass@k for each k of PASS_K: as the headline is when every item has it, else for each language whose
    every item has it."""
    metrics: list[MetricValue] = []
    scored = present[:, :, 0]
    for k in range(1, len(_KEPT)):
        has = present[:, :, k]
        if int(has.sum()) == usable:  # every item has pass@k
            metrics += _language_metrics(
                k, _Table(values[:, :, k], has), rows, languages, {}, per_language=True, gap=False
            )
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
            metrics.append(
                MetricValue(_KEPT[k], float(tab.language_means()[j]), low, high, n_items, {"language": lang})
            )
    return metrics


def _group_metrics(
    values: np.ndarray, present: np.ndarray, groups: list[tuple[str, str]], languages: list[str], seed: int, rounds: int
) -> list[MetricValue]:
    """pass@1 per difficulty and per platform: the mean over languages, a bootstrap over that group's
    problems."""
    metrics: list[MetricValue] = []
    for d, (dimension, known) in enumerate((("difficulty", DIFFICULTIES), ("platform", PLATFORMS))):
        members: dict[str, list[int]] = defaultdict(list)
        for i, group_values in enumerate(groups):
            members[group_values[d]].append(i)
        for group in list(known) + sorted(set(members) - set(known)):
            chosen = members.get(group)
            if not group or not chosen:
                continue
            metrics += _language_metrics(
                0,
                _Table(values[chosen, :, 0], present[chosen, :, 0]),
                _draws(seed, rounds, len(chosen)),
                languages,
                {dimension: group},
                per_language=False,
                gap=False,
            )
    return metrics


def _verdict_shares(counts: np.ndarray, rows: _Draws | None, usable: int) -> list[MetricValue]:
    """The error mix: each verdict's share of all samples (``counts``: problems x verdicts), a bootstrap over
    problems."""
    totals = counts.sum(axis=1)
    if totals.sum() <= 0:
        return []
    share = counts.sum(axis=0) / totals.sum()
    boot_share = None
    if rows is not None:

        def shares(draws: np.ndarray) -> np.ndarray:
            boot_counts, boot_totals = draws @ counts, draws @ totals
            with np.errstate(invalid="ignore", divide="ignore"):
                result: np.ndarray = boot_counts / boot_totals[:, None]
            return result

        boot_share = rows.apply(shares)
    metrics = []
    for v, verdict in enumerate(VERDICTS):
        low = high = None
        if boot_share is not None:
            low, high = _interval(boot_share[:, v])
        metrics.append(MetricValue("verdict_share", float(share[v]), low, high, usable, {"verdict": verdict}))
    return metrics


def aggregate_scores(
    item_scores: Iterable[ItemScore], *, seed: int = 0, rounds: int = BOOTSTRAP_ROUNDS
) -> list[MetricValue]:
    """Multi-LCB metrics of ``item_scores`` (``RunningMetrics`` fed each)."""
    running = RunningMetrics(seed=seed, rounds=rounds)
    for score in item_scores:
        running.add(score)
    return running.metrics()
