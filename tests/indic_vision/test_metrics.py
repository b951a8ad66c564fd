"""IndicVisionBench's metrics against values computed independently here (a hand-written Levenshtein,
BLEU and RIBES by their formulas), the per-sentence BLEU case where the paper's definition and
sacreBLEU's sentence_bleu differ, and the answer normalization tables of every language."""

from __future__ import annotations

import math
from collections import Counter

import pytest
import sacrebleu

from evaluators.indic_vision.languages import (
    LANGUAGES,
    LETTERS,
    choice_letter,
    language_named,
    normalize_answer,
    truth_value,
)
from evaluators.indic_vision.metrics import corpus_bleu, corpus_bleu_with_ci, ocr_scores, ribes, translation_scores


def levenshtein(a, b) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


@pytest.mark.parametrize(
    "reference, hypothesis",
    [
        ("नदी पुराने मंदिर के पास बहती है।", "नदी पुराने मन्दिर के पास बहती है"),
        ("ஆறு பழைய கோயிலின் அருகே ஓடுகிறது.", "ஆறு பழைய கோவிலின் அருகில் ஓடுகிறது"),
        ("പുഴ പഴയ ക്ഷേത്രത്തിനരികിലൂടെ ഒഴുകുന്നു.", ""),
        ("The market\nopens at nine.", "The market opens at 9."),
    ],
)
def test_edit_distances_match_a_hand_written_levenshtein(reference, hypothesis):
    ref, hyp = reference.replace("\n", " "), hypothesis
    scores = ocr_scores(reference, hypothesis)
    assert scores["ned_char"] == pytest.approx(100 * levenshtein(ref, hyp) / max(len(ref), len(hyp)))
    assert scores["ned_word"] == pytest.approx(
        100 * levenshtein(ref.split(), hyp.split()) / max(len(ref.split()), len(hyp.split()))
    )
    assert scores["char_edits"] == levenshtein(ref, hyp) and scores["ref_chars"] == len(ref)


def test_edit_distance_edge_cases_and_normalization():
    assert ocr_scores("", "")["ned_char"] == 0.0 and ocr_scores("", "")["ned_word"] == 0.0  # not a division by zero
    assert ocr_scores("", "text")["ned_char"] == 100.0
    # NFC and zero-width joiners: the same text written two ways is a distance of 0
    assert ocr_scores("क़िला", "क\u093cि\u200dला")["ned_char"] == 0.0
    assert ocr_scores("line one\nline two", "line one line two")["ned_char"] == 0.0


def _ngrams(words, n):
    return Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def paper_bleu(reference: str, hypothesis: str) -> float:
    """BLEU of one sentence by the formula, no effective order, sacreBLEU's 'exp' smoothing of zero counts."""
    ref, hyp = reference.split(), hypothesis.split()
    logs, smooth = [], 1.0
    for n in range(1, 5):
        total = max(0, len(hyp) - n + 1)
        if total == 0:
            return 0.0
        matched = sum((_ngrams(hyp, n) & _ngrams(ref, n)).values())
        if matched == 0:
            smooth *= 2
            logs.append(math.log(1 / (smooth * total)))
        else:
            logs.append(math.log(matched / total))
    penalty = 1.0 if len(hyp) > len(ref) else math.exp(1 - len(ref) / len(hyp))
    return 100 * penalty * math.exp(sum(logs) / 4)


@pytest.mark.parametrize(
    "reference, hypothesis",
    [
        ("सफ़ेद पृष्ठभूमि पर तीन लाल वृत्त", "सफ़ेद पृष्ठभूमि पर तीन लाल गोले"),
        ("வெள்ளை பின்னணியில் மூன்று சிவப்பு வட்டங்கள்", "வெள்ளை பின்னணியில் மூன்று சிவப்பு வட்டங்கள்"),
        ("ಬಿಳಿ ಹಿನ್ನೆಲೆಯಲ್ಲಿ ಎರಡು ನೀಲಿ ಚೌಕಗಳು", "ಎರಡು ನೀಲಿ ಚೌಕಗಳು ಬಿಳಿ ಹಿನ್ನೆಲೆಯಲ್ಲಿ"),
    ],
)
def test_per_sentence_bleu_is_the_papers_definition(reference, hypothesis):
    assert translation_scores(reference, hypothesis)["bleu"] == pytest.approx(paper_bleu(reference, hypothesis))


def test_a_three_word_pair_scores_zero_as_the_paper_computes_it_unlike_sentence_bleu():
    reference, hypothesis = "मैं घर गया", "मैं घर गई"
    assert translation_scores(reference, hypothesis)["bleu"] == 0.0  # no 4-gram at all: the paper's 0
    assert sacrebleu.sentence_bleu(hypothesis, [reference]).score == pytest.approx(55.03, abs=0.01)  # effective order
    assert translation_scores("लाल गोला है", "लाल गोला है")["bleu"] == 0.0  # even when exactly right


def test_corpus_bleu_from_summed_statistics_equals_sacrebleus_corpus_bleu():
    pairs = [
        ("सफ़ेद पृष्ठभूमि पर तीन लाल वृत्त", "सफ़ेद पृष्ठभूमि पर तीन लाल गोले"),
        ("मैं घर गया", "मैं घर गई"),
        ("यह एक बड़ा लाल घर है", "यह एक लाल घर है"),
    ]
    stats = [translation_scores(r, h)["bleu_stats"] for r, h in pairs]
    expected = sacrebleu.corpus_bleu([h for _, h in pairs], [[r for r, _ in pairs]]).score
    assert corpus_bleu(stats) == pytest.approx(expected)
    value, low, high = corpus_bleu_with_ci(stats)
    assert value == pytest.approx(expected) and low is not None and low <= value <= high
    assert corpus_bleu_with_ci(stats[:1])[1:] == (None, None) and corpus_bleu([]) == 0.0


def test_chrf_plus_plus_and_ribes():
    same = translation_scores("വെളുത്ത പശ്ചാത്തലത്തിൽ രണ്ട് നീല ചതുരങ്ങൾ", "വെളുത്ത പശ്ചാത്തലത്തിൽ രണ്ട് നീല ചതുരങ്ങൾ")
    assert same["chrf_pp"] == pytest.approx(100.0) and same["ribes"] == pytest.approx(100.0)
    assert translation_scores("abc def", "xyz uvw")["chrf_pp"] == 0.0
    partial = translation_scores("सफ़ेद पृष्ठभूमि पर तीन लाल वृत्त", "सफ़ेद पृष्ठभूमि पर तीन लाल गोले")["chrf_pp"]
    assert (
        partial
        == pytest.approx(
            sacrebleu.CHRF(word_order=2)
            .sentence_score("सफ़ेद पृष्ठभूमि पर तीन लाल गोले", ["सफ़ेद पृष्ठभूमि पर तीन लाल वृत्त"])
            .score
        )
        and 0 < partial < 100
    )
    # RIBES = normalized Kendall tau x unigram precision^0.25 x brevity penalty^0.10: one swapped pair of 6
    assert ribes("a b c d", "a b d c") == pytest.approx(5 / 6)
    assert ribes("a b c d", "d c b a") == 0.0 and ribes("a b c d", "a") == 0.0 and ribes("", "a b") == 0.0


# RIBES worked out by hand from the algorithm (Isozaki et al. 2010; nttcslab RIBES.py): words aligned by unique
# n-gram context (left context first, then right, growing), score = nkt x precision^0.25 x bp^0.10 with
# bp = min(1, exp(1 - |ref|/|hyp|))
@pytest.mark.parametrize(
    "reference, hypothesis, expected",
    [
        ("a b c d", "a b c d", 1.0),
        ("a b c d", "d c b a", 0.0),  # every pair descending
        ("a b c d", "a b d c", 5 / 6),  # one pair of six descending
        # a one-word reference found in the answer: nkt 1, precision 1/|hyp| (NLTK's sentence_ribes gives 0)
        ("cat", "the cat", 0.5**0.25),
        ("cat", "a black cat sat", 0.25**0.25),
        ("cat", "cat", 1.0),
        ("cat", "dog", 0.0),
        # shorter than the reference: bp = exp(1 - 5/3), so bp^0.10 = exp(-1/15)
        ("a b c d e", "a b c", math.exp(-1 / 15)),
        # "a" twice in the reference: the first "a" aligned by "a b" (ref 1), "b" by "a b" from the left (ref 2), the
        # last "a" by "a b a" from the left (ref 3): nkt 1, precision 1, bp^0.10 = exp(-1/3)^0.10
        ("b a b a", "a b a", math.exp(-1 / 30)),
        # "a a a": the middle word is never unique in context, the first by the 3-gram on its right (ref 0), the last by
        # the 3-gram on its left (ref 2): 2 of 3 aligned, nkt 1, so (2/3)^0.25
        ("a a a", "a a a", (2 / 3) ** 0.25),
        # "the" twice: the first by "the dog" (ref 3), the second by "saw the" (ref 3); positions 3 4 2 3 1 give
        # 2 ascending pairs of 10
        ("the cat saw the dog", "the dog saw the cat", 0.2),
        ("a b", "a x", 0.0),  # one word aligned, a longer reference: 0
        ("a b", "", 0.0),
        ("Red Circle", "red circle", 1.0),  # lower-cased
    ],
)
def test_ribes_as_the_released_algorithm_computes_it(reference, hypothesis, expected):
    assert ribes(reference, hypothesis) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("language", LANGUAGES, ids=lambda language: language.name)
def test_every_languages_letters_and_true_false_words_normalize(language):
    assert language_named(language.name) is language and language_named(language.code) is language
    for index, names in enumerate(language.letters):
        for name in names:
            for written in (name, f"<{name}>", f" ({name}) ", f"{name}।", f"{name}.", f"\u200b{name}\u200c"):
                assert choice_letter(written, language) == LETTERS[index], (language.name, written)
    options = ("alpha", "beta", "gamma", "delta")
    assert choice_letter("Gamma.", language, options) == "C"  # the option's text
    for word in language.true_words:
        assert truth_value(word, language) is True and truth_value(f"{word}।", language) is True
    for word in language.false_words:
        assert truth_value(word, language) is False and truth_value(f" {word} ", language) is False
    assert not {normalize_answer(w) for w in language.true_words} & {normalize_answer(w) for w in language.false_words}
    assert truth_value("True", language) is True and truth_value("false", language) is False  # English words everywhere
    assert choice_letter("", language) is None and truth_value("", language) is None
    assert truth_value("perhaps", language) is None and choice_letter("I cannot tell", language) is None


@pytest.mark.parametrize(
    "answer, letter",
    [
        ("<B>", "B"),
        ("B. blue", "B"),
        ("Option C", "C"),
        ("answer: d", "D"),
        ("(a)", "A"),
        ("The answer is B", "B"),
        ("B or C", "B"),
        ("E", None),
        ("I cannot say", None),
    ],
)
def test_choice_answers_as_models_write_them(answer, letter):
    assert choice_letter(answer, language_named("en")) == letter
