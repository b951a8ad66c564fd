"""The IndicVisionBench evaluators: three leaderboards over one release, because each task has its own
primary metric and direction.

- ``indic-vision-ocr``: transcribe a page; normalized edit distance (lower is better), CER, WER.
- ``indic-vision-mmt``: translate an image's English caption into ten Indian languages; BLEU (the
  paper's per-sentence definition, and the corpus BLEU per language beside it), chrF++, RIBES.
- ``indic-vision-vqa``: six question types per image in eleven languages; accuracy for multiple choice
  and true/false (normalized per language), a judge's 0-10 for short, long and adversarial answers.

Every request is the prompt, then the image (a stored medium: ``evaluators.core.media``); the server
must allow one image per prompt (``generation().server``). An empty, refused or unparsable answer counts
as wrong (the release leaves an empty one out of every mean and compares an unparsable one as written,
so it is wrong there too) and the coverage column says how many answers could be read; an answer cut off at its token
cap (``error_kind`` "cut_off", from the server's ``finish_reason``) is scored on the text it has and
counted in the "Cut off" column. VQA reports English and Indic apart, each the mean over its
languages. Metric definitions are in ``metrics``, answer tables in ``languages``, prompts and the
judge in ``prompts``, the method card in ``card``, the release's format in ``release``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from evaluators.core.evaluator import (
    Aggregation,
    Evaluator,
    Generation,
    KeptScores,
    ScoredByJudge,
)
from evaluators.core.media import MediaSink, sink_or_hashing
from evaluators.core.settings import generation_settings, item_seed
from evaluators.core.stats import ratio_with_ci
from evaluators.core.types import (
    Item,
    ItemScore,
    MetricColumn,
    MetricValue,
    ModelRequest,
    Prediction,
    ServerOptions,
    SliceDimension,
)
from evaluators.indic_vision import metrics, validation
from evaluators.indic_vision.languages import BY_NAME, INDIC_NAMES, LANGUAGE_NAMES, choice_letter, truth_value
from evaluators.indic_vision.presentation import MMTPresentation, OCRPresentation, VQAPresentation
from evaluators.indic_vision.prompts import (
    GENERATION,
    GRADE_SCHEMA,
    JUDGE_MAX_TOKENS,
    JUDGE_PROMPTS,
    MAX_TOKENS,
    grade_of,
    grade_problem,
    request_messages,
)
from evaluators.indic_vision.release import (
    JUDGED_TYPES,
    QUESTION_LABELS,
    QUESTION_TYPES,
    mmt_items,
    ocr_items,
    vqa_items,
)
from evaluators.llm.judges import FALLBACK_METRIC, judge_fallbacks, judge_fallbacks_kept
from evaluators.llm.validation import KnownAnswerValidation, validate_known_answers

COVERAGE = MetricColumn("coverage", "Answers read")
CUT_OFF = MetricColumn("cut_off", "Cut off", higher_is_better=False)


class _IndicVision(Evaluator):
    """What the three leaderboards share: the sample, the requests, coverage and the statistics."""

    task = ""
    #: the leaderboard's filters, which the per-language statistics also group by
    dimensions: tuple[SliceDimension, ...] = ()
    read_items: Callable[[Path, MediaSink], Iterator[Item]]

    def import_release(self, path: Path, media: MediaSink | None = None) -> Iterable[Item]:
        return type(self).read_items(Path(path), sink_or_hashing(media))

    def build_requests(self, item: Item, settings: dict[str, Any]) -> list[ModelRequest]:
        merged = generation_settings(settings, GENERATION)
        kind = item.payload.get("type", item.payload["task"])
        return [
            ModelRequest(
                item_id=item.id,
                messages=request_messages(item),
                n=merged["n"],
                temperature=merged["temperature"],
                top_p=merged["top_p"],
                max_tokens=merged["max_tokens"] or MAX_TOKENS[kind],
                extra={"seed": item_seed(merged["seed"], item.id)},
            )
        ]

    def generation(self) -> Generation:
        return Generation(modality="image", server=ServerOptions(images_per_prompt=1))

    def aggregation(self, *, seed: int = 0, order: Sequence[str] | None = None) -> Aggregation:
        """The scores kept with ``kept_detail`` of their detail."""
        return KeptScores(self, seed=seed, order=order, keep_detail=self.kept_detail)

    def kept_detail(self, detail: dict[str, Any]) -> dict[str, Any]:
        """What the task's aggregate reads of an item's detail: nothing (OCR), the ids, slices and scores."""
        return {}

    def environment(self) -> dict[str, str]:
        import rapidfuzz
        import sacrebleu

        return {
            "sacrebleu": sacrebleu.__version__,
            "rapidfuzz": rapidfuzz.__version__,
            "ribes": metrics.RIBES_VERSION,
            "images": "RGB, at most 1080 px, JPEG quality 95",
        }

    # ----------------------------------------------------------------------------- helpers
    def _groups(self, scores: Sequence[ItemScore]) -> list[dict[str, str]]:
        groups: list[dict[str, str]] = [{}]
        for dimension in self.dimensions:
            values = list(dimension.values) or sorted({s.slices.get(dimension.key, "") for s in scores} - {""})
            groups += [{dimension.key: v} for v in values if any(s.slices.get(dimension.key) == v for s in scores)]
        return groups

    @staticmethod
    def _cluster(score: ItemScore) -> str:
        return score.item_id

    def _by_language(
        self, scores: Sequence[ItemScore], key: str, languages: Sequence[str], out_key: str, seed: int
    ) -> list[MetricValue]:
        """``key``'s mean over ``languages``, each language weighing the same (its items' mean), as
        ``out_key`` on the headline; nothing when none of the languages has the key."""
        having = [s for s in scores if key in s.scores and s.slices.get("language") in languages]
        if not having:
            return []
        groups = {
            name: (
                [s.scores[key] for s in having if s.slices["language"] == name],
                [self._cluster(s) for s in having if s.slices["language"] == name],
            )
            for name in languages
        }
        value, low, high = metrics.mean_over_languages(groups, seed=seed)
        return [MetricValue(out_key, value, low, high, len(having))]

    def _means(self, scores: Sequence[ItemScore], keys: Sequence[str], seed: int) -> list[MetricValue]:
        """Each key's mean over the items that have it, per group, with a bootstrap over clusters."""
        out = []
        for group in self._groups(scores):
            subset = [s for s in scores if all(s.slices.get(k) == v for k, v in group.items())]
            for key in keys:
                having = [s for s in subset if key in s.scores]
                if having:
                    value, low, high = ratio_with_ci(
                        [s.scores[key] for s in having],
                        [1.0] * len(having),
                        [self._cluster(s) for s in having],
                        seed=seed,
                    )
                    out.append(MetricValue(key, value, low, high, len(having), dict(group)))
        return out


def _answer(predictions: Sequence[Prediction]) -> Prediction | None:
    ordered = sorted(predictions, key=lambda p: p.sample_index)
    return ordered[0] if ordered else None


def _readable(prediction: Prediction | None) -> bool:
    """An answer with text to score: a plain one, or one cut off at its token cap (its text is kept)."""
    return prediction is not None and prediction.error_kind in ("", "cut_off") and bool(prediction.output.strip())


def _cut_off(prediction: Prediction | None) -> bool:
    """The server stopped the answer at its token cap (finish_reason "length": ``error_kind`` "cut_off")."""
    if prediction is None:
        return False
    last = prediction.transcript[-1].finish_reason if prediction.transcript else ""
    return prediction.error_kind == "cut_off" or last == "length"


def _answer_detail(item: Item, answer: Prediction | None, text: str) -> dict[str, Any]:
    return {
        "image": item.payload["image"],
        "answer": text[:4000],
        "error_kind": answer.error_kind if answer else "missing",
        "cut_off": _cut_off(answer),
    }


class IndicVisionOCREvaluator(_IndicVision):
    """OCR (key ``indic-vision-ocr``): lower is better."""

    key = "indic-vision-ocr"
    task = "ocr"
    metric_columns = (
        MetricColumn("ned_char", "Char. edit distance (0-100)", higher_is_better=False, format="number", primary=True),
        MetricColumn("ned_char_indic", "Indic char. edit distance", higher_is_better=False, format="number"),
        MetricColumn("ned_char_english", "English char. edit distance", higher_is_better=False, format="number"),
        MetricColumn("ned_word", "Word edit distance (0-100)", higher_is_better=False, format="number"),
        MetricColumn("cer", "CER", higher_is_better=False),
        MetricColumn("wer", "WER", higher_is_better=False),
        COVERAGE,
        CUT_OFF,
    )
    dimensions = (SliceDimension("language", "Language", LANGUAGE_NAMES),)
    read_items = staticmethod(ocr_items)

    def presentation(self) -> OCRPresentation:
        return OCRPresentation(self, task=self.task, dimensions=self.dimensions)

    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        answer = _answer(predictions)
        text = answer.output if _readable(answer) and answer is not None else ""
        scores = metrics.ocr_scores(item.payload["text"], text)
        scores.update(coverage=float(bool(text)), cut_off=float(_cut_off(answer)))
        return ItemScore(item.id, dict(item.slices), scores, _answer_detail(item, answer, text))

    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        usable = [s for s in item_scores if not s.error]
        out = self._means(usable, ("ned_char", "ned_word", "coverage", "cut_off"), seed)
        out += self._by_language(usable, "ned_char", INDIC_NAMES, "ned_char_indic", seed)
        out += self._by_language(usable, "ned_char", ("English",), "ned_char_english", seed)
        for group in self._groups(usable):
            subset = [s for s in usable if all(s.slices.get(k) == v for k, v in group.items())]
            for key, edits, length in (("cer", "char_edits", "ref_chars"), ("wer", "word_edits", "ref_words")):
                value, low, high = ratio_with_ci(
                    [s.scores[edits] for s in subset],
                    [s.scores[length] for s in subset],
                    [s.item_id for s in subset],
                    seed=seed,
                )
                if value == value:  # not NaN: some reference text
                    out.append(MetricValue(key, value, low, high, len(subset), dict(group)))
        return out


class IndicVisionMMTEvaluator(_IndicVision):
    """Caption translation (key ``indic-vision-mmt``). A translation is graded, with no full marks (a right
    one shorter than four tokens scores 0 BLEU), so ``item_passed`` keeps the default None."""

    key = "indic-vision-mmt"
    task = "mmt"
    metric_columns = (
        MetricColumn("bleu", "BLEU (paper, per sentence)", format="number", primary=True),
        MetricColumn("corpus_bleu", "Corpus BLEU", format="number"),
        MetricColumn("chrf_pp", "chrF++", format="number"),
        MetricColumn("ribes", "RIBES (0-100)", format="number"),
        COVERAGE,
        CUT_OFF,
    )
    dimensions = (
        SliceDimension("language", "Language", tuple(n for n in LANGUAGE_NAMES if n != "English")),
        SliceDimension("topic", "Topic"),
    )
    read_items = staticmethod(mmt_items)

    def presentation(self) -> MMTPresentation:
        return MMTPresentation(self, task=self.task, dimensions=self.dimensions)

    def kept_detail(self, detail: dict[str, Any]) -> dict[str, Any]:
        """The item's BLEU statistics, what the corpus BLEU is summed from."""
        return {"bleu_stats": detail["bleu_stats"]} if "bleu_stats" in detail else {}

    @staticmethod
    def _cluster(score: ItemScore) -> str:
        return score.item_id.split("/", 2)[2]  # the image: its ten translations are not independent

    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        answer = _answer(predictions)
        text = answer.output if _readable(answer) and answer is not None else ""
        found = metrics.translation_scores(item.payload["reference"], text)
        stats = found.pop("bleu_stats")
        return ItemScore(
            item.id,
            dict(item.slices),
            {**found, "coverage": float(bool(text)), "cut_off": float(_cut_off(answer))},
            {**_answer_detail(item, answer, text), "bleu_stats": stats},
        )

    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        usable = [s for s in item_scores if not s.error]
        out = self._means(usable, ("bleu", "chrf_pp", "ribes", "coverage", "cut_off"), seed)
        for group in self._groups(usable):
            subset = [s for s in usable if all(s.slices.get(k) == v for k, v in group.items())]
            value, low, high = metrics.corpus_bleu_with_ci([s.detail["bleu_stats"] for s in subset], seed=seed)
            out.append(MetricValue("corpus_bleu", value, low, high, len(subset), dict(group)))
        return out


class IndicVisionVQAEvaluator(ScoredByJudge, _IndicVision):
    """Visual question answering (key ``indic-vision-vqa``), judged for free-form answers."""

    key = "indic-vision-vqa"
    task = "vqa"
    metric_columns = (
        MetricColumn("indic", "Indic (0-100)", format="number", primary=True),
        MetricColumn("english", "English (0-100)", format="number"),
        MetricColumn("overall", "Score (0-100)", format="number"),
        MetricColumn("mcq", "Multiple choice"),
        MetricColumn("true_false", "True/false"),
        MetricColumn("short_1", "Short 1 (0-10)", format="number"),
        MetricColumn("short_2", "Short 2 (0-10)", format="number"),
        MetricColumn("long", "Long (0-10)", format="number"),
        MetricColumn("adversarial", "Adversarial (0-10)", format="number"),
        COVERAGE,
        CUT_OFF,
        MetricColumn(FALLBACK_METRIC, "Judge fallbacks", higher_is_better=False),
    )
    dimensions = (
        SliceDimension("language", "Language", LANGUAGE_NAMES),
        SliceDimension(
            "question_type",
            "Question type",
            tuple(k for k, _, _, _ in QUESTION_TYPES),
            tuple(("", label) for _, _, _, label in QUESTION_TYPES),
        ),
        SliceDimension(
            "set", "Set", ("en", "indic", "parallel"), (("", "English set"), ("", "Indic set"), ("", "Parallel set"))
        ),
        SliceDimension("topic", "Topic"),
    )
    read_items = staticmethod(vqa_items)

    def presentation(self) -> VQAPresentation:
        return VQAPresentation(self, task=self.task, dimensions=self.dimensions)

    def kept_detail(self, detail: dict[str, Any]) -> dict[str, Any]:
        """Each judge call's fallback, never the answers or the judge's texts."""
        return judge_fallbacks_kept(detail)

    judge_role = "indic-vision"

    @staticmethod
    def _cluster(score: ItemScore) -> str:
        return score.item_id.rsplit("/", 1)[0]  # the image and language: its six questions are not independent

    def score_item(self, item: Item, predictions: Sequence[Prediction]) -> ItemScore:
        payload = item.payload
        kind = payload["type"]
        language = BY_NAME[payload["language"]]
        answer = _answer(predictions)
        text = answer.output if _readable(answer) and answer is not None else ""
        detail = _answer_detail(item, answer, text)
        if kind in ("mcq", "true_false"):
            parsed: Any = (
                (
                    choice_letter(text, language, tuple(payload["options"]))
                    if kind == "mcq"
                    else truth_value(text, language)
                )
                if text
                else None
            )
            correct = parsed is not None and parsed == payload["gold"]
            detail.update(parsed=parsed, gold=payload["gold"])
            value, normalized, covered = float(correct), 100.0 * correct, parsed is not None
        else:
            grade, judgements = self._grade(item, text)
            detail["judgements"] = judgements
            detail["grade"] = grade
            value, normalized, covered = grade, 10.0 * grade, bool(text)
        return ItemScore(
            item.id,
            dict(item.slices),
            {kind: value, "overall": normalized, "coverage": float(covered), "cut_off": float(_cut_off(answer))},
            detail,
        )

    def _grade(self, item: Item, text: str) -> tuple[float, list[dict[str, Any]]]:
        """The judge's 0-10 for a free-form answer (an empty answer is 0 without asking)."""
        if not text:
            return 0.0, []
        judge = self.require_judge()
        prompt = JUDGE_PROMPTS[item.payload["type"]]
        batch = judge.ask_many(
            prompt.name,
            shared={"question": item.payload["question"], "gold": item.payload["answer"]},
            each=[{"answer": text}],
            json_schema=GRADE_SCHEMA,
            check=grade_problem,
            max_tokens=JUDGE_MAX_TOKENS,
            seed=item_seed(0, item.id),
        )
        call = batch.calls[0]
        return (0.0 if call.fallback else grade_of(call.parsed)), [batch.to_dict()]

    def aggregate(self, item_scores: Sequence[ItemScore], *, seed: int = 0) -> list[MetricValue]:
        usable = [s for s in item_scores if not s.error]
        out = self._means(usable, ("overall", *QUESTION_LABELS, "coverage", "cut_off"), seed)
        out += self._by_language(usable, "overall", INDIC_NAMES, "indic", seed)
        out += self._by_language(usable, "overall", ("English",), "english", seed)
        for language in LANGUAGE_NAMES:  # the heatmap's cells: every question type on one 0-100 scale
            for kind in QUESTION_LABELS:
                cell = {"language": language, "question_type": kind}
                subset = [
                    s for s in usable if s.slices.get("language") == language and s.slices.get("question_type") == kind
                ]
                if subset:
                    value, low, high = ratio_with_ci(
                        [s.scores["overall"] for s in subset],
                        [1.0] * len(subset),
                        [self._cluster(s) for s in subset],
                        seed=seed,
                    )
                    out.append(MetricValue("overall", value, low, high, len(subset), cell))
        counts = [judge_fallbacks(s.detail) for s in usable]
        if any(calls for _, calls in counts):
            value, low, high = ratio_with_ci(
                [f for f, _ in counts], [c for _, c in counts], [self._cluster(s) for s in usable], seed=seed
            )
            out.append(MetricValue(FALLBACK_METRIC, value, low, high, sum(c for _, c in counts)))
        return out

    def validate_judge(
        self, items: Sequence[Item], limit: int | None = None, progress: Callable[[int, int], None] | None = None
    ) -> KnownAnswerValidation:
        """The known-answer check (``validation``): gold answers against constant, off-topic and
        question-restating ones."""
        return validate_known_answers(self, validation.known_set(items, limit), validation.grade, progress)

    def environment(self) -> dict[str, str]:
        return {
            **super().environment(),
            "judge_prompt": ",".join(f"{p.name}@{p.version}" for p in dict.fromkeys(JUDGE_PROMPTS.values())),
        }


__all__ = ["JUDGED_TYPES", "IndicVisionMMTEvaluator", "IndicVisionOCREvaluator", "IndicVisionVQAEvaluator"]
