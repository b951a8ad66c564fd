"""What the IndicVisionBench boards' pages show beside the scores (``evaluators.indic_vision.evaluator``
scores them): each task's language filter, protocol card and items per language, which items get full
marks, and how each task is scored, in the method notes. Each page is given its evaluator's task and
filters (``_IndicPresentation``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from evaluators.core.evaluator import Evaluator, Heatmap, Presentation
from evaluators.core.types import Item, ItemScore, MethodNote, ProtocolRow, SliceDimension
from evaluators.indic_vision import card
from evaluators.indic_vision.languages import LANGUAGE_NAMES
from evaluators.indic_vision.prompts import JUDGE_PROMPTS


class _IndicPresentation(Presentation[Evaluator]):
    """What the three boards' pages share: the task's filters, its protocol card and the items per language."""

    def __init__(self, evaluator: Evaluator, *, task: str, dimensions: tuple[SliceDimension, ...]) -> None:
        super().__init__(evaluator)
        self.task = task
        self.slice_dimensions = dimensions

    def method_card(self) -> list[ProtocolRow]:
        return card.rows(self.task)

    def dataset_notes(self, items: Sequence[Item]) -> list[MethodNote]:
        notes = []
        origins = sorted({str(item.payload["origin"]) for item in items if item.payload.get("origin")})
        if origins:
            notes.append(MethodNote("A generated sample", " ".join(origins)))
        counts = Counter(item.slices.get("language", "") for item in items)
        notes.append(
            MethodNote(
                "Items per language",
                f"{len(items)} items in {len(counts)} languages.",
                tuple(f"{name}: {counts[name]}" for name in LANGUAGE_NAMES if counts[name]),
            )
        )
        return notes


class OCRPresentation(_IndicPresentation):
    """The OCR board's pages: words for the edit counts, full marks for an exact page, how it is scored."""

    item_labels = {
        "char_edits": "Character edits",
        "ref_chars": "Reference characters",
        "word_edits": "Word edits",
        "ref_words": "Reference words",
    }

    def item_passed(self, score: ItemScore) -> bool | None:
        """Full marks: a transcription with no character to edit."""
        return score.scores.get("ned_char") == 0.0

    def method_notes(self) -> list[MethodNote]:
        return [
            MethodNote(
                "How a transcription is scored",
                "Normalized before scoring: both texts in Unicode NFC with zero-width characters removed and newlines "
                "as spaces (the released code only turns newlines into spaces). The normalized edit distance is the "
                "Levenshtein distance over the longer length, times 100: 0 is a perfect transcription, 100 shares "
                "nothing. Two empty texts are 0 (the released code divides by zero there). CER and WER are corpus "
                "rates: all edits over all reference characters (or words).",
                (
                    "The headline pools every page as the released report does; beside it, Indic (the mean over the "
                    "ten "
                    "Indic languages, each language's pages averaged first) and English.",
                    'An empty or refused answer scores as an empty transcription and is not counted in "Answers read"; '
                    'an answer cut off at the token cap is scored on its text and counted in "Cut off".',
                ),
            )
        ]


class MMTPresentation(_IndicPresentation):
    """The translation board's pages: how a translation is scored (graded: no full marks)."""

    def method_notes(self) -> list[MethodNote]:
        return [
            MethodNote(
                "How a translation is scored",
                "Normalized before every metric: the reference and the translation in Unicode NFC with zero-width "
                'characters removed and the ends stripped (the released code scores them as written). "BLEU (paper, '
                "per sentence)\" is what the released code computes: sacreBLEU's corpus BLEU of one sentence (13a "
                "tokenizer, exponential smoothing, no effective order), averaged over sentences. Without effective "
                "order a translation shorter than four tokens has no 4-grams and scores 0 however right it is "
                "(sacreBLEU's sentence_bleu would not); a longer one with no matching 4-gram is smoothed, not 0. "
                '"Corpus BLEU" sums the n-gram statistics of all sentences of a language, the usual definition.',
                (
                    "chrF++: sacreBLEU's chrF with word bigrams (word_order=2), per sentence, averaged.",
                    "RIBES as the released code computes it (nttcslab's RIBES.py algorithm, written out here: each "
                    "word "
                    "aligned to the reference by the shortest context that makes it unique, normalized Kendall's tau x "
                    "unigram precision^0.25 x brevity penalty^0.10) on lower-cased whitespace tokens, times 100; a "
                    "one-word "
                    'reference found in the translation scores above 0 ("the cat" for "cat": 84.1).',
                    "Every target language is Indic; the headline is the mean over sentences, which is the mean over "
                    "the "
                    "languages when every caption has its ten translations.",
                    "Intervals resample images: the ten translations of one caption are not independent.",
                ),
            )
        ]


class VQAPresentation(_IndicPresentation):
    """The VQA board's pages: the language x question-type heatmap, full marks, how answers are judged."""

    heatmap = Heatmap("language", "question_type", "overall", 100.0)

    def item_passed(self, score: ItemScore) -> bool | None:
        """Full marks: the right choice, or a judge's 10 (both are 100 on the common 0-100 scale)."""
        return score.scores.get("overall") == 100.0

    def method_notes(self) -> list[MethodNote]:
        short, long, adversarial = (JUDGE_PROMPTS[k] for k in ("short_1", "long", "adversarial"))
        return [
            MethodNote(
                "How answers are scored",
                "Multiple-choice and true/false answers are normalized (Unicode NFC, zero-width characters removed, "
                "brackets, quotes, spaces, full stops and dandas stripped from the ends) and read with the released "
                "answer tables: an option letter in Latin or in any of the language's released letter forms (such as ए "
                "or अ for A in Hindi), or the option's text; the language's released words for true and false and "
                "their "
                "synonyms, or English ones. Short, long and adversarial answers are graded 0-10 by a text-only judge "
                "that sees the question, the gold answer and the model's answer, with one prompt per type as released; "
                "a decimal grade counts as given. Adversarial questions rest on a false premise: 5 points for catching "
                "it or saying it cannot be confirmed, 0-5 for what the image really shows.",
                (
                    "Headlines: Indic is the mean over the ten Indic languages and English the mean over English "
                    "questions "
                    "(the released code scores each set in its own run); each language's questions are averaged first, "
                    "since the English set has about four images for each Indic one.",
                    'Every question on 0-100 (a correct choice 100, a judge grade times 10). "Score" and the per-type '
                    "columns pool all languages; the language x type heatmap shows each cell.",
                    "An empty or refused answer counts as wrong (the released code leaves an empty answer out of every "
                    "mean); an answer that cannot be read counts as wrong, as in the released code, which compares it "
                    "as "
                    'written with the gold letter or word. "Answers read" is the share that could be read. An answer '
                    "cut off at the token cap is scored on its text and counted "
                    'in "Cut off".',
                    "A judge answer that is not a number is asked once more, then counted as 0 and as a fallback.",
                    "Intervals resample images: the six questions about one image in one language are not independent.",
                    f"Judge prompts: {short.name}@{short.version}, {long.name}@{long.version}, "
                    f"{adversarial.name}@{adversarial.version}.",
                ),
            )
        ]
