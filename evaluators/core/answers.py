"""Reading short answers the way models write them: one normalization (NFC, zero-width characters
removed, brackets, quotes, spaces, full stops and dandas stripped from the ends), the option letter an
answer names (:func:`option_letter`), the options a prompt writes out itself (:func:`prompt_options`),
and whether a free answer states a short gold answer (:func:`states_answer`: "Yellow" in "The shape is
yellow.", "200" in "I count 200").

A letter is read only where the answer is one or states one, never guessed from a sentence: "B", "<B>",
"(b)", "B) purple", "B. square" (with options known, the text after the letter must be that option's),
"Option B", "answer: d", "The answer is B", the option's text, or the letter's name in another script.
"A" or "a" opening a sentence is the article ("a square", "A green circle in the last frame", "The
answer is a star" name no letter); a lower-case letter counts alone, bracketed or closing the answer.
Benchmarks build their own rules on these (per-language tables, true/false words)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

LETTERS = ("A", "B", "C", "D")
#: zero-width characters dropped before anything is compared (joiners, non-joiners, spaces, BOM)
ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"), None)
_STRIP = " \t\r\n\"'`“”‘’<>()[]{}.,:;!?*_।॥"
#: a letter token: optionally opened by a bracket, not the start of a longer word ("Dog", "Cat")
_TOKEN = r"(?P<open>[<(\[\"'“‘*]*)(?P<letter>[A-Da-d])(?![A-Za-z0-9])(?=(?P<rest>.*))"
_CLOSING = ")]>\"'”’*"
_LEADING = re.compile(rf"^\s*{_TOKEN}", re.DOTALL)
#: "the answer is B", "answer: d", "Option C", "my choice would be (B)"
_STATED = re.compile(
    rf"\b(?P<word>answer|option|choice)(?P<link>\s+is|\s+would\s+be)?\s*(?P<colon>[:\-]?)\s*{_TOKEN}",
    re.IGNORECASE | re.DOTALL,
)
#: an option written out in a prompt, one a line: "A. text", "(B) text", "Options: (A) text", "C) text"
OPTION_LINE = re.compile(
    r"^(?P<lead>[ \t]*(?:Options?:[ \t]*)?[(\[]?)(?P<letter>[A-D])(?P<mark>[.)\]:])[ \t]*(?P<text>\S.*?)[ \t]*$",
    re.MULTILINE,
)


def normalize_text(text: str) -> str:
    """NFC, zero-width characters removed: the form every comparison starts from."""
    return unicodedata.normalize("NFC", str(text)).translate(ZERO_WIDTH)


def normalize_answer(text: str) -> str:
    """A short answer as compared: normalized, then brackets, quotes, spaces, full stops and dandas
    stripped from both ends."""
    return normalize_text(text).strip(_STRIP).strip()


def option_letter(answer: str, options: Sequence[str] = (), names: Sequence[Sequence[str]] = ()) -> str | None:
    """The option letter A-D an answer names, or None: the letter alone, one of ``names[i]`` (other ways
    to write letter i), an option's text, a letter opening the answer or stated after "answer",
    "option" or "choice" (see the module's rules). Two different letters read: None."""
    text = normalize_answer(answer)
    if not text:
        return None
    if text.upper() in LETTERS:
        return text.upper()
    for index, written in enumerate(names):
        if text in written:
            return LETTERS[index]
    folded = text.casefold()
    for index, option in enumerate(options):
        if option and normalize_answer(option).casefold() == folded:
            return LETTERS[index]
    whole = normalize_text(answer)
    read: set[str] = set()
    leading = _LEADING.match(whole)
    if leading and _is_letter(leading["open"], leading["letter"], leading["rest"], options, after_option=False):
        read.add(leading["letter"].upper())
    for stated in _STATED.finditer(whole):
        after_option = stated["word"].lower() in ("option", "choice") and not stated["link"] and not stated["colon"]
        if _is_letter(stated["open"], stated["letter"], stated["rest"], options, after_option=after_option):
            read.add(stated["letter"].upper())
    return read.pop() if len(read) == 1 else None


def _is_letter(opened: str, letter: str, rest: str, options: Sequence[str], *, after_option: bool) -> bool:
    """Whether ``letter`` followed by ``rest`` is an option letter rather than a word: it ends the answer,
    is bracketed or followed by ")", "." or ":" (then any text after it must be that option's, when the
    options are known), or is an upper-case B-D (or any letter right after the word "option") before a
    space. An "A" or "a" before a word is the article."""
    tail = rest.strip().strip(_STRIP).strip()
    if not tail:
        return True
    closing = rest[:1] in _CLOSING
    if opened or closing or (rest[:1] in (".", ":", "-") and letter.isupper()):
        said = normalize_answer(rest.lstrip(_CLOSING + ".:- \t")).casefold()
        index = LETTERS.index(letter.upper())
        if not options or not said or index >= len(options):
            return True
        return said.startswith(normalize_answer(options[index]).casefold())
    if not letter.isupper() or rest[:1] not in (" ", "\t", "\n", ",", ";"):
        return False
    if after_option or letter != "A":
        return True
    return not rest.lstrip(" \t\n,;")[:1].isalpha() or rest[:1] in (",", ";")


def prompt_options(prompt: str) -> list[str] | None:
    """The four options a prompt writes out itself, one a line ("A. text" ... "D. text", or "(A) text"
    ... as in "Options: (A) white"), in order; None unless exactly A, B, C and D are each written once."""
    found = [(m["letter"], m["text"]) for m in OPTION_LINE.finditer(normalize_text(prompt))]
    if [letter for letter, _ in found] != list(LETTERS):
        return None
    return [text for _, text in found]


def states_answer(answer: str, gold: str) -> bool:
    """Whether ``answer`` gives the short ``gold`` answer: equal once normalized, or containing it as a
    whole word or number (case and punctuation aside)."""
    said, wanted = normalize_answer(answer).casefold(), normalize_answer(gold).casefold()
    if not said or not wanted:
        return False
    return said == wanted or re.search(rf"(?<![\w]){re.escape(wanted)}(?![\w])", said) is not None
