"""Language of a prompt, offline: ISO 639-1 codes from py3langid (a pre-trained model shipped with
the package; no network). The arena's sub-leaderboards by language and the exported dataset's
``languages`` field use it."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

#: The code for text too short or too empty to tell.
UNDETERMINED = "und"
#: Fewer letters than this and a guess is noise.
MIN_LETTERS = 3
#: Characters looked at: the first few thousand are plenty and keep a 30k-character prompt fast.
MAX_CHARS = 4000


@lru_cache(maxsize=1)
def _identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def detect(text: str) -> str:
    """The ISO 639-1 code of ``text``'s language, or ``"und"`` when it has fewer than
    ``MIN_LETTERS`` letters (code, numbers and punctuation do not count)."""
    return detect_with_confidence(text)[0]


def detect_with_confidence(text: str) -> tuple[str, float]:
    """(code, probability); probability 0.0 for ``"und"``."""
    sample = (text or "")[:MAX_CHARS]
    if len(re.findall(r"[^\W\d_]", sample)) < MIN_LETTERS:
        return UNDETERMINED, 0.0
    code, probability = _identifier().classify(sample)
    return str(code), float(probability)
