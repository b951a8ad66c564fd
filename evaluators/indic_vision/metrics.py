"""IndicVisionBench's metrics, from well-kept libraries, computed as the paper computes them.

- OCR: normalized edit distance (rapidfuzz's Levenshtein distance over the longer length, x 100,
  lower is better) at character and at word level, after NFC, zero-width characters removed and
  newlines as spaces; two empty strings are a distance of 0 (the released code divides by zero). CER
  and WER are the corpus rates: edits over reference length, summed over items (:func:`ocr_scores`).
- Translation: both texts normalized first (NFC, zero-width characters removed, stripped; the
  released code scores them raw). BLEU as the released code computes it: sacreBLEU's corpus BLEU of
  one sentence (13a tokenizer, exponential smoothing, no effective order), averaged over sentences.
  Without effective order a sentence shorter than four tokens has no 4-grams and scores 0, however
  right it is (``sentence_bleu``, with effective order, would not); a longer sentence with no
  matching 4-gram is smoothed, not 0 (0 only when no word matches). Beside it, the corpus BLEU
  of a language from the summed n-gram statistics (:func:`corpus_bleu`); chrF++ (sacreBLEU
  ``CHRF(word_order=2)``) per sentence; RIBES (NLTK's, the released formula: alpha 0.25, beta 0.10)
  on lower-cased whitespace tokens as released.
- Headlines over languages: the mean of the languages' own means (:func:`mean_over_languages`), so
  a language with more items (English has about four VQA images for each Indic one) weighs no more.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping, Sequence

import numpy as np

from evaluators.core.stats import BOOTSTRAP_ROUNDS, draw_blocks
from evaluators.indic_vision.languages import normalize_text


def ocr_text(text: str) -> str:
    """A transcription as compared: normalized, newlines as spaces, ends stripped."""
    return normalize_text(text).replace("\r\n", " ").replace("\n", " ").replace("\r", " ").strip()


def ocr_scores(reference: str, hypothesis: str) -> dict[str, float]:
    """One page: NED at character and word level (0-100), and the edit counts behind CER and WER."""
    from rapidfuzz.distance import Levenshtein

    ref, hyp = ocr_text(reference), ocr_text(hypothesis)
    ref_words, hyp_words = ref.split(), hyp.split()
    char_edits = Levenshtein.distance(ref, hyp)
    word_edits = Levenshtein.distance(ref_words, hyp_words)
    return {
        "ned_char": 100.0 * char_edits / max(len(ref), len(hyp)) if (ref or hyp) else 0.0,
        "ned_word": 100.0 * word_edits / max(len(ref_words), len(hyp_words)) if (ref_words or hyp_words) else 0.0,
        "char_edits": float(char_edits), "ref_chars": float(len(ref)),
        "word_edits": float(word_edits), "ref_words": float(len(ref_words)),
    }


@lru_cache(maxsize=1)
def _bleu() -> Any:
    from sacrebleu.metrics.bleu import BLEU

    return BLEU(tokenize="13a")


@lru_cache(maxsize=1)
def _chrf() -> Any:
    from sacrebleu.metrics.chrf import CHRF

    return CHRF(word_order=2)


def translation_scores(reference: str, hypothesis: str) -> dict[str, Any]:
    """One sentence: the paper's BLEU, chrF++ and RIBES, and the BLEU statistics a corpus BLEU sums."""
    ref, hyp = normalize_text(reference).strip(), normalize_text(hypothesis).strip()
    bleu = _bleu().corpus_score([hyp], [[ref]])
    return {
        "bleu": float(bleu.score),
        "chrf_pp": float(_chrf().sentence_score(hyp, [ref]).score),
        "ribes": 100.0 * ribes(ref, hyp),
        "bleu_stats": [bleu.sys_len, bleu.ref_len, *bleu.counts, *bleu.totals],
    }


def ribes(reference: str, hypothesis: str) -> float:
    """RIBES (0-1) on lower-cased whitespace tokens as the released code computes it: NLTK's sentence
    RIBES; a one-word hypothesis equal to a one-word reference is 1; otherwise 0 where it is undefined
    (fewer than two hypothesis words, or fewer than two words matched)."""
    from nltk.translate.ribes_score import sentence_ribes

    ref, hyp = reference.lower().split(), hypothesis.lower().split()
    if len(ref) == 1 and hyp == ref:
        return 1.0
    if len(hyp) < 2 or not ref:
        return 0.0
    try:
        return float(sentence_ribes([ref], hyp))
    except ZeroDivisionError:
        return 0.0


def corpus_bleu(stats: Sequence[Sequence[float]]) -> float:
    """The corpus BLEU of sentences from their summed statistics (sys_len, ref_len, 4 counts, 4 totals)."""
    if not stats:
        return 0.0
    return _summed_bleu([sum(column) for column in zip(*stats)])


def _summed_bleu(summed: Sequence[float]) -> float:
    """The corpus BLEU of summed statistics (sys_len, ref_len, 4 counts, 4 totals: whole numbers)."""
    score = _bleu().compute_bleu(correct=[int(c) for c in summed[2:6]], total=[int(t) for t in summed[6:10]],
                                 sys_len=int(summed[0]), ref_len=int(summed[1]))
    return float(score.score)


def corpus_bleu_with_ci(stats: Sequence[Sequence[float]], *, seed: int = 0,
                        rounds: int = BOOTSTRAP_ROUNDS) -> tuple[float, float | None, float | None]:
    """Corpus BLEU with a percentile-bootstrap 95% interval over sentences (None with one sentence)."""
    value = corpus_bleu(stats)
    if len(stats) < 2:
        return value, None, None
    table = np.asarray(stats, dtype=float)
    rng = np.random.default_rng(seed)
    # each round's statistics summed by numpy: whole numbers, so the same sums as corpus_bleu's
    draws = [_summed_bleu(table[rng.integers(0, len(table), size=len(table))].sum(axis=0)) for _ in range(rounds)]
    low, high = np.percentile(draws, [2.5, 97.5])
    return value, float(low), float(high)


def mean_over_languages(by_language: Mapping[str, tuple[Sequence[float], Sequence[str]]], *, seed: int = 0,
                        rounds: int = BOOTSTRAP_ROUNDS) -> tuple[float, float | None, float | None]:
    """The mean over languages of each language's mean item value, with a percentile-bootstrap 95%
    interval that resamples clusters (images) within each language. ``by_language`` maps a language
    to its (values, clusters); a language without values is left out."""
    tables = []
    for values, clusters in by_language.values():
        if len(values) != len(clusters):
            raise ValueError("values and clusters must have the same length")
        if values:
            keys = sorted(set(clusters))
            index = {key: i for i, key in enumerate(keys)}
            sums, counts = np.zeros(len(keys)), np.zeros(len(keys))
            for value, cluster in zip(values, clusters):
                sums[index[cluster]] += value
                counts[index[cluster]] += 1
            tables.append((sums, counts))
    if not tables:
        return float("nan"), None, None
    value = float(np.mean([sums.sum() / counts.sum() for sums, counts in tables]))
    if all(len(sums) == 1 for sums, _ in tables):
        return value, None, None
    rng = np.random.default_rng(seed)
    draws = np.zeros(rounds)
    for sums, counts in tables:  # a block of rounds at a time: the same draws, flat memory
        draws += np.concatenate([sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
                                 for picks in draw_blocks(rng, len(sums), rounds)])
    low, high = np.percentile(draws / len(tables), [2.5, 97.5])
    return value, float(low), float(high)
