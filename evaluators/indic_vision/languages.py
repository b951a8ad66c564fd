"""IndicVisionBench's eleven languages and how answers in them are normalized.

``LANGUAGES`` names each language as the release does (English names), with its code (the OCR
configuration may use wikisource codes), its script and the Noto font that renders it. Multiple-choice
answers become a letter A-D (:func:`choice_letter`: a Latin letter, the letter's name in the
language's script, or an option's text) and true/false answers a bool (:func:`truth_value`: the
language's words for true and false, or the English ones), after :func:`normalize_answer` strips
brackets, quotes, spaces, the full stop and the danda, and zero-width characters. An answer that maps
to nothing is None: scored as wrong and counted as not covered.
"""
from __future__ import annotations

from dataclasses import dataclass

from evaluators.core.answers import LETTERS, normalize_answer, normalize_text, option_letter


@dataclass(frozen=True)
class Language:
    name: str  # as the release writes it: "Hindi"
    code: str  # ISO 639-1 (wikisource uses the same): "hi"
    script: str  # Unicode script name: "Devanagari"
    font: str  # the Noto font file (Debian's fonts-noto-core) the sample is rendered with
    #: the letters A-D as written in the language's script (the release's mcq_a sometimes uses them)
    letters: tuple[tuple[str, ...], ...]
    #: words for true and for false (the first of each is what the prompt asks for)
    true_words: tuple[str, ...]
    false_words: tuple[str, ...]


def _letters(a: str, b: str, c: str, d: str, *extra: tuple[str, str, str, str]) -> tuple[tuple[str, ...], ...]:
    columns = [(a, b, c, d), *extra]
    return tuple(tuple(column[i] for column in columns) for i in range(4))


LANGUAGES: tuple[Language, ...] = (
    Language("English", "en", "Latin", "NotoSans-Regular.ttf", _letters("A", "B", "C", "D"),
             ("True", "Yes", "Correct"), ("False", "No", "Incorrect")),
    Language("Bengali", "bn", "Bengali", "NotoSansBengali-Regular.ttf", _letters("এ", "বি", "সি", "ডি", ("ক", "খ", "গ", "ঘ")),
             ("সত্য", "সঠিক", "ঠিক", "হ্যাঁ"), ("মিথ্যা", "ভুল", "না")),
    Language("Gujarati", "gu", "Gujarati", "NotoSansGujarati-Regular.ttf", _letters("એ", "બી", "સી", "ડી", ("ક", "ખ", "ગ", "ઘ")),
             ("સાચું", "સાચુ", "સત્ય", "હા"), ("ખોટું", "ખોટુ", "અસત્ય", "ના")),
    Language("Hindi", "hi", "Devanagari", "NotoSansDevanagari-Regular.ttf", _letters("ए", "बी", "सी", "डी", ("क", "ख", "ग", "घ")),
             ("सही", "सत्य", "सच", "हाँ", "हां"), ("गलत", "ग़लत", "असत्य", "झूठ", "नहीं")),
    Language("Kannada", "kn", "Kannada", "NotoSansKannada-Regular.ttf", _letters("ಎ", "ಬಿ", "ಸಿ", "ಡಿ", ("ಅ", "ಆ", "ಇ", "ಈ")),
             ("ಸರಿ", "ನಿಜ", "ಹೌದು"), ("ತಪ್ಪು", "ಸುಳ್ಳು", "ಇಲ್ಲ")),
    Language("Malayalam", "ml", "Malayalam", "NotoSansMalayalam-Regular.ttf", _letters("എ", "ബി", "സി", "ഡി", ("അ", "ആ", "ഇ", "ഈ")),
             ("ശരി", "സത്യം", "അതെ"), ("തെറ്റ്", "തെറ്റ", "അസത്യം", "അല്ല")),
    Language("Marathi", "mr", "Devanagari", "NotoSansDevanagari-Regular.ttf", _letters("ए", "बी", "सी", "डी", ("अ", "ब", "क", "ड")),
             ("खरे", "खरं", "बरोबर", "होय"), ("खोटे", "खोटं", "चूक", "नाही")),
    Language("Odia", "or", "Oriya", "NotoSansOriya-Regular.ttf", _letters("ଏ", "ବି", "ସି", "ଡି", ("କ", "ଖ", "ଗ", "ଘ")),
             ("ସତ୍ୟ", "ଠିକ୍", "ସତ", "ହଁ"), ("ମିଥ୍ୟା", "ଭୁଲ୍", "ଭୁଲ", "ନା")),
    Language("Punjabi", "pa", "Gurmukhi", "NotoSansGurmukhi-Regular.ttf", _letters("ਏ", "ਬੀ", "ਸੀ", "ਡੀ", ("ਕ", "ਖ", "ਗ", "ਘ")),
             ("ਸਹੀ", "ਸੱਚ", "ਹਾਂ"), ("ਗਲਤ", "ਗ਼ਲਤ", "ਝੂਠ", "ਨਹੀਂ")),
    Language("Tamil", "ta", "Tamil", "NotoSansTamil-Regular.ttf", _letters("ஏ", "பி", "சி", "டி", ("அ", "ஆ", "இ", "ஈ")),
             ("சரி", "உண்மை", "ஆம்"), ("தவறு", "பொய்", "இல்லை")),
    Language("Telugu", "te", "Telugu", "NotoSansTelugu-Regular.ttf", _letters("ఎ", "బి", "సి", "డి", ("అ", "ఆ", "ఇ", "ఈ")),
             ("నిజం", "సరైనది", "ఒప్పు", "అవును"), ("తప్పు", "అబద్ధం", "కాదు")),
)
BY_NAME = {language.name: language for language in LANGUAGES}
_LOOKUP = {**{language.name.lower(): language for language in LANGUAGES},
           **{language.code: language for language in LANGUAGES}, "oriya": BY_NAME["Odia"]}
INDIC = tuple(language for language in LANGUAGES if language.code != "en")
__all__ = ["BY_NAME", "INDIC", "LANGUAGES", "LETTERS", "Language", "choice_letter", "language_named", "normalize_answer",
           "normalize_text", "truth_value"]


def language_named(value: str) -> Language | None:
    """The language a release calls ``value`` ("Hindi", "hindi", "hi", "Oriya"), or None."""
    return _LOOKUP.get(str(value).strip().lower())


def choice_letter(answer: str, language: Language, options: tuple[str, ...] = ()) -> str | None:
    """The option letter A-D an answer (or a released gold answer) names, or None: a Latin letter,
    the letter's name in the language's script, or an option's text (evaluators.core.answers)."""
    return option_letter(answer, options, names=language.letters)


def truth_value(answer: str, language: Language) -> bool | None:
    """True or False for the language's (or English) words for them, or None."""
    text = normalize_answer(answer).casefold()
    if not text:
        return None
    english = BY_NAME["English"]
    for words, value in ((language.true_words, True), (language.false_words, False),
                         (english.true_words, True), (english.false_words, False)):
        if text in {normalize_answer(w).casefold() for w in words}:
            return value
    return None
