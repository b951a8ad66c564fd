"""IndicVisionBench's aggregations keep what each board's metrics read (ids, slices, scores; the BLEU
statistics for translation, each judge call's fallback for VQA), never the answers or the judge's
texts: the same metrics as ``aggregate`` in any order of scores (corpus BLEU's bootstrap draws
sentences by position, so the dataset's order matters), and a peak that grows by a few hundred bytes a
score."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from evaluators.core.types import Item, ItemScore, Prediction
from evaluators.indic_vision.evaluator import IndicVisionMMTEvaluator, IndicVisionOCREvaluator, IndicVisionVQAEvaluator
from evaluators.indic_vision.languages import INDIC
from evaluators.llm.judges import FALLBACK_METRIC
from tests.support.aggregation import assert_flat, assert_same_as_aggregate, bulk, streamed, with_scripted_judge
from tests.support.openai_server import OpenAIServer, Reply

OCR, MMT, VQA = IndicVisionOCREvaluator(), IndicVisionMMTEvaluator(), IndicVisionVQAEvaluator()


def items(evaluator) -> list[Item]:
    return list(evaluator.import_release(evaluator.presentation().sample_dataset()))


def answer(item: Item, n: int) -> Prediction:
    """The gold text, half of it, nothing, or a cut-off half, by ``n``."""
    gold = str(item.payload.get("text") or item.payload.get("reference") or item.payload.get("answer") or "")
    half = gold[: len(gold) // 2]
    return [
        Prediction(item.id, gold),
        Prediction(item.id, half),
        Prediction(item.id, "", error_kind="empty"),
        Prediction(item.id, half, error_kind="cut_off"),
    ][n % 4]


def grade(request: dict[str, Any]) -> Reply:
    """A grade by a hash of the prompt; about one answer in five not a number (a fallback)."""
    h = zlib.crc32(request["messages"][-1]["content"].encode())
    return Reply(text="good answer" if h % 5 == 0 else str(h % 11))


@pytest.mark.parametrize("evaluator", [OCR, MMT, VQA], ids=["ocr", "mmt", "vqa"])
def test_the_sample_scored_gives_the_same_metrics_streamed_in_any_order(evaluator):
    with OpenAIServer(grade) as server:
        scorer = with_scripted_judge(evaluator, server) if evaluator.judging() else evaluator
        scores = [scorer.score_item(item, [answer(item, n)]) for n, item in enumerate(items(evaluator))]
    scores[3] = ItemScore(scores[3].item_id, scores[3].slices, {}, error="the image could not be read")
    if evaluator is VQA:
        assert 0 < {m.key: m.value for m in VQA.aggregate(scores) if not m.slice}[FALLBACK_METRIC] < 1
    for seed in (0, 7):
        assert_same_as_aggregate(evaluator, scores, seed=seed)


def test_a_hand_computed_run():
    # VQA's Indic headline is the mean over Indic languages of each language's mean: Hindi (100 + 0) / 2 = 50,
    # Tamil 70 (a judge's 7): (50 + 70) / 2 = 60, where the item mean would be 56.7; English stands apart
    def hand(item_id: str, language: str, kind: str, value: float, overall: float) -> ItemScore:
        return ItemScore(
            item_id,
            {"language": language, "question_type": kind, "set": "parallel", "topic": "Shapes"},
            {kind: value, "overall": overall, "coverage": 1.0, "cut_off": 0.0},
            {"answer": "long", "judgements": [{"calls": [{"error_kind": ""}]}] if kind == "long" else []},
        )

    scores = [
        hand("vqa/hi/a/mcq", "Hindi", "mcq", 1.0, 100.0),
        hand("vqa/hi/b/mcq", "Hindi", "mcq", 0.0, 0.0),
        hand("vqa/ta/a/long", "Tamil", "long", 7.0, 70.0),
        hand("vqa/en/a/mcq", "English", "mcq", 1.0, 100.0),
    ]
    metrics = {(m.key, tuple(m.slice.items())): m for m in streamed(VQA.aggregation(seed=4), scores[::-1])}
    assert metrics[("indic", ())].value == pytest.approx(60.0) and metrics[("indic", ())].n == 3
    assert metrics[("english", ())].value == 100.0
    assert metrics[(FALLBACK_METRIC, ())].value == 0.0


def synthetic(evaluator):
    """Scores shaped as ``evaluator``'s board gives them, each answer (and judge call) a long text of
    its own."""
    languages = [language.name for language in INDIC] + ["English"]

    def scores(count: int) -> Iterator[ItemScore]:
        for n in range(count):
            image, which = divmod(n, 6)
            language = languages[image % len(languages)]
            item_id = f"{evaluator.task}/{language[:2]}/scene-{image}/q{which}"
            text = bulk(item_id)
            values = {"coverage": float(n % 4 > 0), "cut_off": float(n % 9 == 0)}
            detail: dict[str, Any] = {"image": f"{image:064d}.png", "answer": text}
            if evaluator is OCR:
                values |= {
                    "ned_char": float(n % 100),
                    "ned_word": float(n % 50),
                    "char_edits": float(n % 30),
                    "ref_chars": 40.0,
                    "word_edits": float(n % 5),
                    "ref_words": 8.0,
                }
            elif evaluator is MMT:
                values |= {"bleu": float(n % 60), "chrf_pp": float(n % 70), "ribes": float(n % 80)}
                detail["bleu_stats"] = [12, 11, 9, 6, 4, 2, 12, 11, 10, 9] if n % 3 else [5, 9, 2, 0, 0, 0, 5, 4, 3, 2]
            else:
                kind = ("mcq", "true_false", "short_1", "short_2", "long", "adversarial")[which]
                values |= {kind: float(n % 2) if which < 2 else float(n % 11), "overall": float(n % 101)}
                detail["judgements"] = [
                    {
                        "shared": {"question": text},
                        "calls": [{"raw": text[:300], "error_kind": "malformed" if n % 7 == 0 else ""}],
                    }
                ]
            slices = {"language": language, "topic": f"topic-{image % 4}"}
            if evaluator is VQA:
                slices |= {"question_type": kind, "set": "parallel"}
            yield ItemScore(item_id, slices, values, detail)

    return scores


@pytest.mark.parametrize("evaluator", [OCR, MMT, VQA], ids=["ocr", "mmt", "vqa"])
def test_scoring_ten_times_the_items_holds_a_few_hundred_bytes_more_a_score(evaluator):
    assert_flat(evaluator, synthetic(evaluator))
