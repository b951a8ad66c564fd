"""Reading short answers the way models write them: one normalization (NFC, zero-width characters
removed, brackets, quotes, spaces, full stops and dandas stripped from the ends), the option letter an
answer names (:func:`option_letter`: "B", "<B>", "(b)", "B. red", "Option B", the option's text, or
the letter's name in another script), and whether a free answer states a short gold answer
(:func:`states_answer`: "Yellow" in "The shape is yellow.", "200" in "I count 200").
Benchmarks build their own rules on these (per-language tables, true/false words)."""
from __future__ import annotations

import re
import unicodedata
from typing import Sequence

LETTERS = ("A", "B", "C", "D")
#: zero-width characters dropped before anything is compared (joiners, non-joiners, spaces, BOM)
ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"), None)
_STRIP = " \t\r\n\"'`“”‘’<>()[]{}.,:;!?*_।॥"
_LEADING_LETTER = re.compile(r"^(?:option|answer|ans)?\s*[:\-]?\s*[<(\[]?([A-Da-d])(?:[>)\].:\s-].*)?$",
                             re.IGNORECASE | re.DOTALL)
_STATED_LETTER = re.compile(r"\b(?:answer|option|choice)(?:\s+is)?\s*[:\-]?\s*[<(\[]?([A-D])\b[>)\]]?", re.IGNORECASE)


def normalize_text(text: str) -> str:
    """NFC, zero-width characters removed: the form every comparison starts from."""
    return unicodedata.normalize("NFC", str(text)).translate(ZERO_WIDTH)


def normalize_answer(text: str) -> str:
    """A short answer as compared: normalized, then brackets, quotes, spaces, full stops and dandas
    stripped from both ends."""
    return normalize_text(text).strip(_STRIP).strip()


def option_letter(answer: str, options: Sequence[str] = (), names: Sequence[Sequence[str]] = ()) -> str | None:
    """The option letter A-D an answer names, or None: the letter alone or leading the answer, one of
    ``names[i]`` (other ways to write letter i), an option's text, or "the answer is B"."""
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
    match = _LEADING_LETTER.match(normalize_text(answer).strip())
    if match:
        return match.group(1).upper()
    stated = {m.upper() for m in _STATED_LETTER.findall(normalize_text(answer))}
    return stated.pop() if len(stated) == 1 else None


def states_answer(answer: str, gold: str) -> bool:
    """Whether ``answer`` gives the short ``gold`` answer: equal once normalized, or containing it as a
    whole word or number (case and punctuation aside)."""
    said, wanted = normalize_answer(answer).casefold(), normalize_answer(gold).casefold()
    if not said or not wanted:
        return False
    return said == wanted or re.search(rf"(?<![\w]){re.escape(wanted)}(?![\w])", said) is not None
