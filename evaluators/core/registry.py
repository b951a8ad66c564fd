"""Registry of evaluators by benchmark key, and the evaluator version (a hash of its code).

Benchmark packages are listed here by dotted path and imported on first use, so importing the core
stays cheap and a broken benchmark package cannot break the others.
"""
from __future__ import annotations

import hashlib
import importlib
import json
from functools import lru_cache
from pathlib import Path

from evaluators.core.protocol import Evaluator

#: benchmark key -> "package.module:ClassName"
_PATHS: dict[str, str] = {
    "multi-lcb": "evaluators.multi_lcb.evaluator:MultiLCBEvaluator",
    "policon": "evaluators.policon.evaluator:PoliConEvaluator",
    "causal-pitfalls": "evaluators.causal_pitfalls.evaluator:CausalPitfallsEvaluator",
    "causal-pitfalls-code": "evaluators.causal_pitfalls.evaluator:CausalPitfallsCodeEvaluator",
    "indic-vision-ocr": "evaluators.indic_vision.evaluator:IndicVisionOCREvaluator",
    "indic-vision-mmt": "evaluators.indic_vision.evaluator:IndicVisionMMTEvaluator",
    "indic-vision-vqa": "evaluators.indic_vision.evaluator:IndicVisionVQAEvaluator",
    "video-niah-single": "evaluators.video_niah.evaluator:VideoNIAHSingleEvaluator",
    "video-niah-multi": "evaluators.video_niah.evaluator:VideoNIAHMultiEvaluator",
}


def register(key: str, dotted_path: str) -> None:
    """Add or replace an evaluator (used by plugins and tests)."""
    _PATHS[key] = dotted_path
    get_evaluator.cache_clear()
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
        raise ValueError("extra evaluators: expected a JSON object of benchmark key -> \"module:Class\"")
    for key, dotted in paths.items():
        module, sep, attr = str(dotted).partition(":")
        if not key or not module or not sep or not attr:
            raise ValueError(f"extra evaluators: entry {key!r} must be \"package.module:ClassName\", got {dotted!r}")
        register(str(key), str(dotted))
    return sorted(paths)


def registered_keys() -> list[str]:
    return sorted(_PATHS)


@lru_cache(maxsize=None)
def get_evaluator(key: str) -> Evaluator:
    try:
        dotted = _PATHS[key]
    except KeyError:
        raise KeyError(f"no evaluator is registered for benchmark '{key}' (known: {', '.join(registered_keys())})") from None
    module_name, _, attr = dotted.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    evaluator: Evaluator = cls()
    return evaluator


@lru_cache(maxsize=None)
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
