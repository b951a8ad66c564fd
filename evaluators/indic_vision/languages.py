"""IndicVisionBench's eleven languages and how answers in them are read.

``LANGUAGES`` names each language as the release does (English names), with its code (the OCR
configuration may use wikisource codes), its script and the Noto font that renders it, and the
answer tables of the authors' released code: every form of the option letters A-D in the language's
script and every word for true and false, the released ones first (the first true and false words
are the ones the prompt asks for, as in the release), then forms and synonyms this platform adds
(the script's own alphabet as option labels, common synonyms, English words in any language).

Multiple-choice answers become a letter A-D (:func:`choice_letter`: a Latin letter, a letter form of
the table alone, in brackets or followed by ".", ")", ":" or a danda, or an option's text) and
true/false answers a bool (:func:`truth_value`), after :func:`normalize_answer` strips brackets,
quotes, spaces, the full stop and the danda, and zero-width characters. An answer that maps to
nothing is None: scored as wrong and counted as not read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from evaluators.core.answers import LETTERS, normalize_answer, normalize_text, option_letter


@dataclass(frozen=True)
class Language:
    name: str  # as the release writes it: "Hindi"
    code: str  # ISO 639-1 (wikisource uses the same): "hi"
    script: str  # Unicode script name: "Devanagari"
    font: str  # the Noto font file (Debian's fonts-noto-core) the sample is rendered with
    #: the ways to write each of the letters A-D in the language's script (the release's mcq_a uses them)
    letters: tuple[tuple[str, ...], ...]
    #: words for true and for false; the first of each is the released prompt's word
    true_words: tuple[str, ...]
    false_words: tuple[str, ...]

    @cached_property
    def leading_letter(self) -> re.Pattern[str] | None:
        """A letter form opening an answer, in brackets or followed by a separator ("ए. लाल", "(बी) वर्ग")."""
        forms = sorted({form for forms in self.letters for form in forms if not form.isascii()}, key=len, reverse=True)
        if not forms:
            return None
        alternatives = "|".join(map(re.escape, forms))
        return re.compile(
            rf"^(?:[<(\[]\s*(?P<bracketed>{alternatives})\s*[>)\]]|(?P<marked>{alternatives})\s*[.):।\-])"
            r"(?P<rest>.*)$",
            re.DOTALL,
        )


def _letters(a: str, b: str, c: str, d: str) -> tuple[tuple[str, ...], ...]:
    """Each letter's forms, space-separated, the released ones first."""
    return tuple(tuple(forms.split()) for forms in (a, b, c, d))


def _words(words: str) -> tuple[str, ...]:
    return tuple(words.split())


LANGUAGES: tuple[Language, ...] = (
    Language(
        "English",
        "en",
        "Latin",
        "NotoSans-Regular.ttf",
        _letters("A", "B", "C", "D"),
        _words("True Yes Correct"),
        _words("False No Incorrect"),
    ),
    Language(
        "Bengali",
        "bn",
        "Bengali",
        "NotoSansBengali-Regular.ttf",
        _letters("এ ক", "বি খ", "সি গ", "ডি ঘ"),
        _words("ঠিক সত্য সঠিক হ্যাঁ"),
        _words("ভুল মিথ্যা না"),
    ),
    Language(
        "Gujarati",
        "gu",
        "Gujarati",
        "NotoSansGujarati-Regular.ttf",
        _letters("એ ક", "બી ખ", "સી ગ", "ડી ઘ"),
        _words("સાચું સાચુ સત્ય હા"),
        _words("ખોટું ખોટુ અસત્ય ના"),
    ),
    Language(
        "Hindi",
        "hi",
        "Devanagari",
        "NotoSansDevanagari-Regular.ttf",
        _letters("ए अ क", "बी ब ख", "सी स ग", "डी द घ"),
        _words("सही सत्य सच हाँ हां"),
        _words("गलत ग़लत असत्य झूठ नहीं"),
    ),
    Language(
        "Kannada",
        "kn",
        "Kannada",
        "NotoSansKannada-Regular.ttf",
        _letters("ಏ ಎ ಅ", "ಬಿ ಆ", "ಸಿ ಇ", "ಡಿ ಈ"),
        _words("ಸರಿ ನಿಜ ಹೌದು"),
        _words("ತಪ್ಪು ಸುಳ್ಳು ಇಲ್ಲ"),
    ),
    Language(
        "Malayalam",
        "ml",
        "Malayalam",
        "NotoSansMalayalam-Regular.ttf",
        _letters("എ അ", "ബി ആ", "സി ഇ", "ഡി ഈ"),
        _words("ശരി ശരിയാണ് സത്യം അതെ"),
        _words("തെറ്റ് തെറ്റ അസത്യം അല്ല"),
    ),
    Language(
        "Marathi",
        "mr",
        "Devanagari",
        "NotoSansDevanagari-Regular.ttf",
        _letters("ए अ", "बी ब", "सी क", "डी ड"),
        _words("बरोबर खरे खरं होय"),
        _words("चूक चुकीचे खोटे खोटं नाही"),
    ),
    Language(
        "Odia",
        "or",
        "Oriya",
        "NotoSansOriya-Regular.ttf",
        _letters("ଏ ଅ କ", "ବି ଖ", "ସି ଗ", "ଡି ଘ"),
        _words("ଠିକ୍ ସତ୍ୟ ସତ ହଁ"),
        _words("ଭୁଲ୍ ଭୁଲ ମିଥ୍ୟା ନା"),
    ),
    Language(
        "Punjabi",
        "pa",
        "Gurmukhi",
        "NotoSansGurmukhi-Regular.ttf",
        _letters("ਏ ਅ ਕ", "ਬੀ ਖ", "ਸੀ ਗ", "ਡੀ ਘ"),
        _words("ਸਹੀ ਸੱਚ ਹਾਂ"),
        _words("ਗਲਤ ਗ਼ਲਤ ਝੂਠ ਨਹੀਂ"),
    ),
    Language(
        "Tamil",
        "ta",
        "Tamil",
        "NotoSansTamil-Regular.ttf",
        _letters("ஏ அ", "பி ஆ", "சி இ", "டி ஈ"),
        _words("சரி உண்மை ஆம்"),
        _words("தவறு பொய் இல்லை"),
    ),
    Language(
        "Telugu",
        "te",
        "Telugu",
        "NotoSansTelugu-Regular.ttf",
        _letters("ఏ ఎ అ", "బి ఆ", "సి ఇ", "డి ఈ"),
        _words("ఒప్పు నిజం సరైనది అవును"),
        _words("తప్పు అబద్ధం కాదు"),
    ),
)
BY_NAME = {language.name: language for language in LANGUAGES}
_LOOKUP = {
    **{language.name.lower(): language for language in LANGUAGES},
    **{language.code: language for language in LANGUAGES},
    "oriya": BY_NAME["Odia"],
}
INDIC = tuple(language for language in LANGUAGES if language.code != "en")
#: the languages' names, as the boards' language filter lists them
LANGUAGE_NAMES = tuple(language.name for language in LANGUAGES)
INDIC_NAMES = tuple(language.name for language in INDIC)
__all__ = [
    "BY_NAME",
    "INDIC",
    "INDIC_NAMES",
    "LANGUAGES",
    "LANGUAGE_NAMES",
    "LETTERS",
    "Language",
    "choice_letter",
    "language_named",
    "normalize_answer",
    "normalize_text",
    "truth_value",
]


def language_named(value: str) -> Language | None:
    """The language a release calls ``value`` ("Hindi", "hindi", "hi", "Oriya"), or None."""
    return _LOOKUP.get(str(value).strip().lower())


def choice_letter(answer: str, language: Language, options: tuple[str, ...] = ()) -> str | None:
    """The option letter A-D an answer (or a released gold answer) names, or None: a Latin letter, a
    form of the language's table or an option's text (``evaluators.core.answers``), or a form of the
    table opening the answer in brackets or before ".", ")", ":", "-" or a danda, any text after it
    being that option's when the options are known (the core's rule for "B. square"). A form followed
    by a space alone is not read: Bengali এ ("this") opens sentences."""
    found = option_letter(answer, options, names=language.letters)
    pattern = language.leading_letter
    if found is not None or pattern is None:
        return found
    match = pattern.match(normalize_text(answer).strip())
    if match is None:
        return None
    form = match["bracketed"] or match["marked"]
    index = next(i for i, forms in enumerate(language.letters) if form in forms)
    said = normalize_answer(match["rest"]).casefold()
    if said and index < len(options) and not said.startswith(normalize_answer(options[index]).casefold()):
        return None
    return LETTERS[index]


def truth_value(answer: str, language: Language) -> bool | None:
    """True or False for the language's (or English) words for them, or None."""
    text = normalize_answer(answer).casefold()
    if not text:
        return None
    english = BY_NAME["English"]
    for words, value in (
        (language.true_words, True),
        (language.false_words, False),
        (english.true_words, True),
        (english.false_words, False),
    ):
        if text in {normalize_answer(w).casefold() for w in words}:
            return value
    return None
