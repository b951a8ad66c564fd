"""What a Multi-LCB sample's detail keeps for the per-item page: the program it ran (capped) and, for a
wrong answer on a public test, the expected and the actual output cut around their first difference.

Hidden (private) tests keep only the line-level reason (``compare.first_mismatch``), so their data never
reaches a page.
"""

from __future__ import annotations

from dataclasses import dataclass

#: the most of a program a sample's detail keeps, in UTF-8 bytes
PROGRAM_LIMIT = 20 * 1024
#: characters kept on each side of the first difference
CONTEXT = 120
TRUNCATED = "\n... (truncated)"


def kept_program(code: str, limit: int = PROGRAM_LIMIT) -> tuple[str, bool]:
    """The program as stored (at most ``limit`` bytes, cut on a character boundary) and whether it was cut."""
    data = code.encode("utf-8", errors="replace")
    if len(data) <= limit:
        return code, False
    return data[: limit - len(TRUNCATED)].decode("utf-8", errors="ignore") + TRUNCATED, True


@dataclass(frozen=True)
class Difference:
    """Both outputs around their first differing character: ``at`` is its offset in each text, and the
    excerpts start ``start`` characters in (an ellipsis marks a cut on either side)."""

    at: int
    start: int
    expected: str
    got: str

    def to_dict(self) -> dict[str, object]:
        return {"at": self.at, "start": self.start, "expected": self.expected, "got": self.got}


def first_difference(expected: str, got: str, context: int = CONTEXT) -> Difference:
    """The two texts cut to ``context`` characters either side of where they first differ (the shorter
    one's end when one is a prefix of the other)."""
    at = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b), min(len(expected), len(got)))
    start = max(0, at - context)

    def cut(text: str) -> str:
        end = at + context
        return ("…" if start else "") + text[start:end] + ("…" if len(text) > end else "")

    return Difference(at, start, cut(expected), cut(got))
