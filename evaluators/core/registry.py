"""The benchmarks this engine scores, one row each, and the one way to get a configured evaluator.

A row names a benchmark once: its key, the name and summary the site shows, and its evaluator class by
dotted path. Classes are imported on first use, so importing the core stays cheap and a broken
benchmark package cannot break the others. ``evaluator_for`` is how the site, the workers, the
generation planner and the command line all get an instance: the operator's or the run's settings
applied (``Evaluator.configured``), then the judge (``Evaluator.judging().judged``). ``evaluator_version`` is
a hash of the code, so a score names the exact code that made it.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evaluators.core.evaluator import Evaluator, SettingsRefused

if TYPE_CHECKING:
    from evaluators.llm.judges import Judge


@dataclass(frozen=True)
class BenchmarkRow:
    """One hosted benchmark: what the site shows before it imports any evaluator, and the class."""

    key: str
    name: str
    summary: str
    #: "package.module:ClassName"
    evaluator: str


BENCHMARKS: tuple[BenchmarkRow, ...] = (
    BenchmarkRow(
        "multi-lcb",
        "Multi-LCB",
        "LiveCodeBench competitive-programming problems in 12 languages (Python, C++, Java, C#, Go, Rust, "
        "JavaScript, TypeScript, Ruby, PHP, Kotlin, Scala), executed in a sandbox; pass@1 per language "
        "within a contest-date window, with contaminated models flagged.",
        "evaluators.multi_lcb.evaluator:MultiLCBEvaluator",
    ),
    BenchmarkRow(
        "policon",
        "PoliCon",
        "Drafting consensus resolutions from European Parliament deliberations: a model writes a resolution "
        "that parties with given stances and seat weights would support, scored by a judge under simple "
        "majority, two-thirds and veto rules.",
        "evaluators.policon.evaluator:PoliConEvaluator",
    ),
    BenchmarkRow(
        "causal-pitfalls",
        "CausalPitfalls",
        "Statistical causal-inference pitfalls (confounding, intervention, counterfactuals, mediation, causal "
        "discovery, external validity) on generated datasets, answered directly from 100 rows of the data, "
        "graded by a judge against rubrics.",
        "evaluators.causal_pitfalls.evaluator:CausalPitfallsEvaluator",
    ),
    BenchmarkRow(
        "causal-pitfalls-code",
        "CausalPitfalls (code-assisted)",
        "The same challenges answered through code: the model writes a Python program, the platform runs it on "
        "the dataset in a sandbox (pandas, statsmodels, scikit-learn) and the model answers with its output; "
        "graded by a judge against rubrics, with the code-failure rate.",
        "evaluators.causal_pitfalls.evaluator:CausalPitfallsCodeEvaluator",
    ),
    BenchmarkRow(
        "causal-pitfalls-ablations",
        "CausalPitfalls ablations",
        "The release's two ablations: does a product's name (HealthPlus, UltraSugar) sway a model's reading of "
        "confounded data against what the data shows (branding bias, scored as released), and what a model "
        "says of ice cream and drownings on real and on pure-noise data (domain knowledge, shown unscored).",
        "evaluators.causal_pitfalls.ablations:CausalPitfallsAblationsEvaluator",
    ),
    BenchmarkRow(
        "indic-vision-ocr",
        "IndicVisionBench OCR",
        "Transcribing printed pages in English and ten Indian scripts from their image; normalized edit "
        "distance at character and word level (lower is better), CER and WER, per language.",
        "evaluators.indic_vision.evaluator:IndicVisionOCREvaluator",
    ),
    BenchmarkRow(
        "indic-vision-mmt",
        "IndicVisionBench translation",
        "Translating the English caption of a culturally grounded image into ten Indian languages with the image "
        "in view; BLEU as the paper computes it, corpus BLEU, chrF++ and RIBES per language.",
        "evaluators.indic_vision.evaluator:IndicVisionMMTEvaluator",
    ),
    BenchmarkRow(
        "indic-vision-vqa",
        "IndicVisionBench VQA",
        "Questions about culturally grounded images in English and ten Indian languages: multiple choice, "
        "true/false, short and long answers and false-premise questions, with a language x question-type heatmap.",
        "evaluators.indic_vision.evaluator:IndicVisionVQAEvaluator",
    ),
    BenchmarkRow(
        "video-niah-single",
        "Video NIAH (single hop)",
        "Needle-in-a-Video-Haystack: one needle frame inserted at a depth of N frames of a long video (up to "
        "thousands of frames, sent as images), a question about it; accuracy per depth x N cell as a heatmap.",
        "evaluators.video_niah.evaluator:VideoNIAHSingleEvaluator",
    ),
    BenchmarkRow(
        "video-niah-multi",
        "Video NIAH (multi hop)",
        "Multi-hop Needle-in-a-Video-Haystack: a chain of clue frames with decoys spread over N frames; what the "
        "chain's last frame shows and a question about it, plotted against N.",
        "evaluators.video_niah.evaluator:VideoNIAHMultiEvaluator",
    ),
)

#: benchmark key -> "package.module:ClassName": the rows', then whatever ``register`` added or replaced
_PATHS: dict[str, str] = {row.key: row.evaluator for row in BENCHMARKS}


def register(key: str, dotted_path: str) -> None:
    """Add or replace an evaluator class (used by plugins and tests). A new key is scored by the
    engine; the site hosts it once a Benchmark row names it (the admin, or a row above)."""
    _PATHS[key] = dotted_path
    evaluator_class.cache_clear()
    _default_instance.cache_clear()
    evaluator_version.cache_clear()


def register_all(paths: dict[str, str] | str) -> list[str]:
    """Register several evaluators at once from ``{key: "module:Class"}`` or its JSON text (the
    ``LEADERBOARD_EXTRA_EVALUATORS`` setting, read by the site and every worker at start-up).
    Returns the keys registered; a malformed entry raises ValueError naming it."""
    if isinstance(paths, str):
        try:
            paths = json.loads(paths or "{}")
        except json.JSONDecodeError as exc:
            raise ValueError(f"extra evaluators: not valid JSON ({exc})") from None
    if not isinstance(paths, dict):
        raise ValueError('extra evaluators: expected a JSON object of benchmark key -> "module:Class"')
    for key, dotted in paths.items():
        module, sep, attr = str(dotted).partition(":")
        if not key or not module or not sep or not attr:
            raise ValueError(f'extra evaluators: entry {key!r} must be "package.module:ClassName", got {dotted!r}')
        register(str(key), str(dotted))
    return sorted(paths)


def registered_keys() -> list[str]:
    return sorted(_PATHS)


def benchmark_name(key: str) -> str:
    """The name a row gives the benchmark (a key ``register`` added without a row: the key)."""
    return next((row.name for row in BENCHMARKS if row.key == key), key)


@cache
def evaluator_class(key: str) -> type[Evaluator]:
    """The class registered for ``key`` (KeyError naming the known keys; TypeError for a class that
    does not derive from Evaluator)."""
    try:
        dotted = _PATHS[key]
    except KeyError:
        raise KeyError(
            f"no evaluator is registered for benchmark '{key}' (known: {', '.join(registered_keys())})"
        ) from None
    module_name, _, attr = dotted.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    if not (isinstance(cls, type) and issubclass(cls, Evaluator)):
        raise TypeError(f"benchmark '{key}': {dotted} is not a subclass of evaluators.core.evaluator.Evaluator")
    return cls


@cache
def _default_instance(key: str) -> Evaluator:
    return evaluator_class(key)()


def evaluator_for(key: str, *, settings: Mapping[str, Any] | None = None, judge: Judge | None = None) -> Evaluator:
    """The evaluator of benchmark ``key`` with ``settings`` applied (SettingsRefused, a ValueError,
    names a key it does not take) and asking ``judge`` (refused for a benchmark without a judge role).
    Without either, one shared instance per key."""
    evaluator = _default_instance(key)
    if settings:
        evaluator = evaluator.configured(settings)
    if judge is not None:
        judging = evaluator.judging()
        if judging is None:
            raise SettingsRefused(f"benchmark '{key}' is not scored by a judge")
        evaluator = judging.judged(judge)
    return evaluator


def judge_role(key: str) -> str:
    """The key in LEADERBOARD_JUDGES of the judge benchmark ``key`` is scored by ("": none)."""
    judging = evaluator_for(key).judging()
    return judging.role if judging is not None else ""


@cache
def evaluator_version(key: str) -> str:
    """sha256 (first 16 hex digits) over the evaluator package's and the core's Python sources, so
    a score names the exact code that made it and a code change can trigger re-scoring."""
    module_name = _PATHS[key].partition(":")[0]
    package_dir = Path(importlib.import_module(module_name.rsplit(".", 1)[0]).__file__ or "").parent
    core_dir = Path(__file__).parent
    digest = hashlib.sha256()
    for directory in (core_dir, package_dir):
        for path in sorted(directory.rglob("*.py")):
            digest.update(str(path.relative_to(directory.parent)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
