"""A populated site for page-wide checks: every benchmark gets a person's public model and a baseline, each
with a succeeded run whose item results are written by hand in each evaluator's own shape (the OCR and
translation scores from the evaluator's metric functions) and whose scores are the evaluator's own
aggregate of them, stored as the scoring worker stores them, on each evaluator's sample dataset. No model,
judge or worker is run."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.utils import timezone

from evaluators.core import ItemScore, evaluator_for
from evaluators.indic_vision import metrics as indic_metrics
from leaderboard.catalog.models import Benchmark
from leaderboard.catalog.services import benchmarks_sync, model_get_or_create
from leaderboard.chains.board_rows import leaderboard_entry_refresh
from leaderboard.chains.datasets import dataset_version_import
from leaderboard.runs.models import EvaluationRun, ItemResult, Score
from leaderboard.runs.score_keys import slice_key
from leaderboard.runs.services.chunks import item_result_row
from leaderboard.runs.work_kinds import BASELINE_OWNER
from tests.support.factories import run_make

JUDGE = {
    "judge": {
        "name": "SmolLM2-135M-Instruct",
        "revision": "Q4_1-gguf-b179c95",
        "prompt_version": "v1",
        "label": "SmolLM2-135M-Instruct@Q4_1-gguf-b179c95 (prompt v1)",
        "role": "judge",
    }
}
IMAGE = "c" * 64 + ".jpg"


def _ocr(item_id: str, language: str, reference: str, answer: str) -> ItemScore:
    scores = indic_metrics.ocr_scores(reference, answer)
    return ItemScore(
        item_id,
        {"language": language},
        {**scores, "coverage": 1.0, "cut_off": 0.0},
        {"image": IMAGE, "answer": answer, "reference": reference},
    )


def _translation(item_id: str, language: str, reference: str, answer: str) -> ItemScore:
    found = indic_metrics.translation_scores(reference, answer)
    stats = found.pop("bleu_stats")
    return ItemScore(
        item_id,
        {"language": language, "topic": "Daily life"},
        {**found, "coverage": 1.0, "cut_off": 0.0},
        {"image": IMAGE, "answer": answer, "reference": reference, "bleu_stats": stats},
    )


def _vqa(item_id: str, language: str, kind: str, value: float) -> ItemScore:
    overall = 100.0 * value if kind in ("mcq", "true_false") else 10.0 * value
    return ItemScore(
        item_id,
        {"language": language, "question_type": kind, "set": "indic", "topic": "Culture"},
        {kind: value, "overall": overall, "coverage": 1.0, "cut_off": 0.0},
        {
            "image": IMAGE,
            "answer": "A",
            "question": "What is shown?",
            **({"grade": value} if kind not in ("mcq", "true_false") else {"parsed": "A", "gold": "A"}),
        },
    )


def _lcb(item_id: str, ok: bool) -> ItemScore:
    language = item_id.rsplit("/", 1)[1]
    sample = {
        "sample_index": 0,
        "verdict": "passed" if ok else "wrong_answer",
        "failed_test": None if ok else 1,
        "failed_test_public": None if ok else False,
        "reason": "" if ok else "line 1 differs",
        "tests_run": 2,
        "program": "print(sum(map(int, input().split())))\n",
        "program_truncated": False,
    }
    return ItemScore(
        item_id,
        {"language": language, "difficulty": "easy", "platform": "atcoder", "contest_date": "2024-03-01"},
        {"n": 1.0, "c": float(ok), "pass@1": float(ok)},
        {"language": language, "tests": 2, "public_tests": 1, "samples": [sample]},
    )


def _niah(item_id: str, slices: dict[str, str], correct: bool) -> ItemScore:
    return ItemScore(
        item_id,
        slices,
        {"correct": float(correct), "over_limit": 0.0},
        {
            "answer": "a red kite",
            "parsed": "a red kite",
            "gold": "a red kite" if correct else "a blue door",
            "error_kind": "",
            "question": "What did the needle show?",
            "options": ["a red kite", "a blue door", "a green cup", "a white owl"],
        },
    )


def _policon(item_id: str, objective: str, score: float) -> ItemScore:
    key = {"sm": "sm_pass", "two_thirds": "two_thirds_pass", "veto": "veto_pass", "rawls": "rawls", "util": "util"}[
        objective
    ]
    return ItemScore(
        item_id,
        {"parties": "4", "topic": "Climate", "objective": objective},
        {key: score},
        {"resolution": "The parties agree to plant trees.", "votes": {}},
    )


def _causal(item_id: str, category: str, value: float, code: bool) -> ItemScore:
    challenge = item_id.split("/")[1]
    scores = {"causal_reliability": value, **({"code_failure_rate": 0.0, "error_rate": 1.0 - value} if code else {})}
    return ItemScore(
        item_id,
        {"category": category, "difficulty": "very_easy", "challenge": challenge},
        scores,
        {"samples": [{"sample_index": 0, "verdict": "scored", "score": value, "reason": "1 of 2 criteria met"}]},
    )


def _ablation(scenario: str, correct: bool, biased: bool) -> ItemScore:
    conclusion = "Beneficial" if correct else "Harmful"
    return ItemScore(
        f"branding_bias/{scenario}",
        {"study": "branding", "scenario": scenario},
        {"correct": float(correct), "brand_biased": float(biased)},
        {"samples": [{"verdict": conclusion, "conclusion": conclusion, "reason": "truth Beneficial"}]},
    )


def item_scores(slug: str, good: bool) -> list[ItemScore]:
    """Four items of the benchmark, the better answers when ``good``."""
    if slug == "multi-lcb":
        return [_lcb("t1_a/python", True), _lcb("t1_a/cpp", good), _lcb("t1_a/csharp", good), _lcb("t2_a/rust", False)]
    if slug == "indic-vision-ocr":
        return [
            _ocr("ocr/hindi/1", "Hindi", "नमस्ते दुनिया", "नमस्ते दुनिया" if good else "नमस"),
            _ocr("ocr/tamil/1", "Tamil", "வணக்கம்", "வணக்கம்" if good else "வண"),
            _ocr("ocr/english/1", "English", "hello world", "hello world" if good else "hello"),
            _ocr("ocr/hindi/2", "Hindi", "पाठ", "पाट"),
        ]
    if slug == "indic-vision-mmt":
        return [
            _translation(
                "tr/Hindi/img1", "Hindi", "a cat sits on the mat", "a cat sits on the mat" if good else "a dog"
            ),
            _translation("tr/Tamil/img1", "Tamil", "the sun rises in the east", "the sun rises" if good else "sun"),
            _translation("tr/Hindi/img2", "Hindi", "people walk in the market", "people walk in a market"),
            _translation("tr/Tamil/img2", "Tamil", "rain falls on the roof", "rain on the roof"),
        ]
    if slug == "indic-vision-vqa":
        return [
            _vqa("vqa/hindi/1/mcq", "Hindi", "mcq", float(good)),
            _vqa("vqa/hindi/1/true_false", "Hindi", "true_false", 1.0),
            _vqa("vqa/hindi/1/short_1", "Hindi", "short_1", 0.8 if good else 0.2),
            _vqa("vqa/tamil/1/long", "Tamil", "long", 0.5),
        ]
    if slug == "video-niah-single":
        return [
            _niah(f"niah/{n}/{d}", {"frames": str(n), "depth": str(d)}, good or n == 8)
            for n in (8, 32)
            for d in (0, 50)
        ]
    if slug == "video-niah-multi":
        return [
            _niah(f"niah/{n}/{q}", {"frames": str(n), "question": q}, good or q == "q1")
            for n in (8, 32)
            for q in ("q1", "q2")
        ]
    if slug == "policon":
        return [
            _policon(f"pc/t1/{o}", o, s)
            for o, s in (
                ("sm", float(good)),
                ("two_thirds", 1.0),
                ("veto", 0.0),
                ("rawls", 6.0),
                ("util", 7.0 if good else 3.0),
            )
        ]
    if slug in ("causal-pitfalls", "causal-pitfalls-code"):
        code = slug.endswith("code")
        return [
            _causal(f"cp/{c}/1", category, 1.0 if good else 0.25, code)
            for c, category in (
                ("simpson_paradox", "confounding"),
                ("causal_direction_iv", "causal_discovery"),
                ("sequential_mediator", "mediation"),
            )
        ]
    if slug == "causal-pitfalls-ablations":
        return [
            _ablation("aligned_healthy", True, False),
            _ablation("misaligned_unhealthy", good, not good),
            ItemScore(
                "domain_knowledge/real",
                {"study": "domain", "dataset": "real"},
                {},
                {"samples": [{"verdict": "not scored", "reason": "the release scores none"}]},
            ),
        ]
    return []


def scored_run(benchmark: Benchmark, owner: Any, name: str, good: bool, *, reference: bool = False) -> EvaluationRun:
    """A succeeded run of the model ``name`` (made for ``owner``) on ``benchmark`` with item_scores(slug, good)."""
    version = benchmark.dataset_versions.filter(is_current=True).first() or dataset_version_import(
        benchmark=benchmark,
        release_path=evaluator_for(benchmark.evaluator_key).presentation().sample_dataset(),
        tag="sample",
    )
    model = model_get_or_create(owner=owner, name=name, is_public=True)
    if reference:
        type(model).objects.filter(pk=model.pk).update(is_reference=True)
    evaluator = evaluator_for(benchmark.evaluator_key)
    scores = item_scores(benchmark.slug, good)
    run = run_make(
        benchmark,
        owner,
        model,
        dataset_version=version,
        items=len(scores),
        evaluator_version="1",
        environment=JUDGE if evaluator.judging() else {},
    )
    primary = next(c.key for c in evaluator.metric_columns if c.primary)
    ItemResult.objects.bulk_create(
        [
            item_result_row(
                run_id=run.pk, score=s, primary_key=primary, item_passed=evaluator.presentation().item_passed
            )
            for s in scores
        ]
    )
    Score.objects.bulk_create(
        [
            Score(
                run=run,
                key=m.key,
                slice_key=slice_key(m.slice),
                value=m.value,
                ci_low=m.ci_low,
                ci_high=m.ci_high,
                n=m.n,
            )
            for m in evaluator.aggregate(scores, seed=0)
        ]
    )
    EvaluationRun.objects.filter(pk=run.pk).update(finished_at=timezone.now())
    run.refresh_from_db()
    leaderboard_entry_refresh(run=run)
    return run


def populate(owner: Any) -> list[EvaluationRun]:
    """Every benchmark with an evaluator: ``owner``'s public model "Qwen2.5-Coder 7B Instruct" and the baseline
    "No analysis (baseline)" (a reference model); CausalPitfalls (code-assisted) gets baselines only, as a board
    before anyone submitted."""
    benchmarks_sync()
    baselines = get_user_model().objects.get_or_create(
        username=BASELINE_OWNER, defaults={"is_active": False, "is_staff": True}
    )[0]
    runs = []
    for benchmark in Benchmark.objects.order_by("position"):
        if not item_scores(benchmark.slug, True):
            continue
        if benchmark.slug != "causal-pitfalls-code":
            runs.append(scored_run(benchmark, owner, "Qwen2.5-Coder 7B Instruct", True))
        runs.append(scored_run(benchmark, baselines, "No analysis (baseline)", False, reference=True))
        runs.append(scored_run(benchmark, baselines, "Rubric restated (baseline)", True, reference=True))
    return runs
