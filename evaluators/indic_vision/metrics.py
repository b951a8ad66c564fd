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
  ``CHRF(word_order=2)``) per sentence; RIBES as the release computes it (nttcslab's RIBES.py, whose
  algorithm is written out here: words aligned by unique n-gram context, normalized Kendall's tau x
  precision^0.25 x brevity penalty^0.10; a one-word reference found in the answer scores above 0) on
  lower-cased whitespace tokens.
- Headlines over languages: the mean of the languages' own means (:func:`mean_over_languages`), so
  a language with more items (English has about four VQA images for each Indic one) weighs no more.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

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
        "char_edits": float(char_edits),
        "ref_chars": float(len(ref)),
        "word_edits": float(word_edits),
        "ref_words": float(len(ref_words)),
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


#: what computes RIBES, recorded with each run
RIBES_VERSION = "the platform's own, the algorithm of nttcslab RIBES.py 1.03"
#: RIBES's exponents (Isozaki et al. 2010, as the release's ribes_score sets them)
RIBES_ALPHA = 0.25
RIBES_BETA = 0.10


def ribes(reference: str, hypothesis: str) -> float:
    """RIBES (0-1) on lower-cased whitespace tokens, as the released code computes it (nttcslab's RIBES.py
    algorithm, written here from its description): normalized Kendall's tau x unigram precision^0.25 x
    brevity penalty^0.10 (:func:`ribes_parts`). 0 for an empty reference (the release raises there and
    leaves the sentence out of the mean)."""
    ref, hyp = reference.lower().split(), hypothesis.lower().split()
    if not ref:
        return 0.0
    nkt, precision, bp = ribes_parts(ref, hyp)
    return float(nkt * precision**RIBES_ALPHA * bp**RIBES_BETA)


def _starts(words: Sequence[str], gram: Sequence[str]) -> list[int]:
    """Where ``gram`` occurs in ``words`` (overlapping occurrences counted)."""
    size = len(gram)
    return [i for i in range(len(words) - size + 1) if list(words[i : i + size]) == list(gram)]


def aligned_positions(ref: Sequence[str], hyp: Sequence[str]) -> list[int]:
    """For each hypothesis word that can be aligned, in hypothesis order, its position in the reference.

    A word found once in each is aligned to it. Otherwise, for growing context sizes k = 1, 2, ..., the
    word with its k words before it, then with its k words after it, is looked for: the first such n-gram
    found exactly once in the reference and once in the hypothesis aligns the word to the matching
    position. A word absent from the reference, or never made unique, is not aligned."""
    positions: list[int] = []
    for i, word in enumerate(hyp):
        if word not in ref:
            continue
        if ref.count(word) == 1 and hyp.count(word) == 1:
            positions.append(ref.index(word))
            continue
        for k in range(1, max(i + 1, len(hyp) - i + 1)):
            if k <= i:
                before = hyp[i - k : i + 1]
                in_ref = _starts(ref, before)
                if len(in_ref) == 1 and len(_starts(hyp, before)) == 1:
                    positions.append(in_ref[0] + k)
                    break
            if i + k < len(hyp):
                after = hyp[i : i + k + 1]
                in_ref = _starts(ref, after)
                if len(in_ref) == 1 and len(_starts(hyp, after)) == 1:
                    positions.append(in_ref[0])
                    break
    return positions


def ribes_parts(ref: Sequence[str], hyp: Sequence[str]) -> tuple[float, float, float]:
    """(normalized Kendall's tau, unigram precision, brevity penalty) of a non-empty reference and a
    hypothesis, as RIBES defines them: the share of aligned pairs in ascending reference order, the aligned
    words over the hypothesis words, and min(1, exp(1 - |ref| / |hyp|)). An empty hypothesis is (0, 0, 0);
    a single aligned word is (1, 1/|hyp|, bp) when the reference is that one word, else (0, 0, bp)."""
    if not hyp:
        return 0.0, 0.0, 0.0
    bp = min(1.0, math.exp(1.0 - len(ref) / len(hyp)))
    positions = aligned_positions(ref, hyp)
    n = len(positions)
    if n == 1 and len(ref) == 1:
        return 1.0, 1.0 / len(hyp), bp
    if n < 2:
        return 0.0, 0.0, bp
    ascending = sum(positions[a] < positions[b] for a in range(n - 1) for b in range(a + 1, n))
    return ascending / (n * (n - 1) / 2), n / len(hyp), bp


def corpus_bleu(stats: Sequence[Sequence[float]]) -> float:
    """The corpus BLEU of sentences from their summed statistics (sys_len, ref_len, 4 counts, 4 totals)."""
    if not stats:
        return 0.0
    return _summed_bleu([sum(column) for column in zip(*stats)])


def _summed_bleu(summed: Sequence[float]) -> float:
    """The corpus BLEU of summed statistics (sys_len, ref_len, 4 counts, 4 totals: whole numbers)."""
    score = _bleu().compute_bleu(
        correct=[int(c) for c in summed[2:6]],
        total=[int(t) for t in summed[6:10]],
        sys_len=int(summed[0]),
        ref_len=int(summed[1]),
    )
    return float(score.score)


def corpus_bleu_with_ci(
    stats: Sequence[Sequence[float]], *, seed: int = 0, rounds: int = BOOTSTRAP_ROUNDS
) -> tuple[float, float | None, float | None]:
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


def mean_over_languages(
    by_language: Mapping[str, tuple[Sequence[float], Sequence[str]]], *, seed: int = 0, rounds: int = BOOTSTRAP_ROUNDS
) -> tuple[float, float | None, float | None]:
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
        draws += np.concatenate(
            [sums[picks].sum(axis=1) / counts[picks].sum(axis=1) for picks in draw_blocks(rng, len(sums), rounds)]
        )
    low, high = np.percentile(draws / len(tables), [2.5, 97.5])
    return value, float(low), float(high)
