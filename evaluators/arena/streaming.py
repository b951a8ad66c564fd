"""Streaming an arena answer as it is produced, without sending a citation marker half-written.

:class:`AnswerStream` passes text on to a responder's ``on_delta`` callback. Given a ``normalize``
function (citation markers renumbered), it re-normalizes the text received so far and sends only the
part that can no longer change: :func:`stable_cut` says where the text can be cut without splitting
a marker or an unfinished code span.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from evaluators.llm.types import DeltaCallback


class AnswerStream:
    """Passes text on to ``on_delta`` while keeping what was sent; with ``normalize``, re-normalizes
    the text received so far and sends only the part that can no longer change."""

    def __init__(self, on_delta: DeltaCallback | None, normalize: Callable[[str], str] | None = None):
        self.on_delta = on_delta
        self.normalize = normalize
        self.received = ""
        self.sent = ""

    def _send(self, text: str) -> None:
        if text and self.on_delta is not None:
            self.on_delta(text)
        self.sent += text

    def feed(self, delta: str) -> None:
        self.received += delta
        if self.normalize is None:
            self._send(delta)
            return
        stable = self.normalize(self.received[: stable_cut(self.received)])
        if stable.startswith(self.sent):
            self._send(stable[len(self.sent) :])

    def finish(self, final: str) -> None:
        """Sends the rest of ``final`` when what was sent is its beginning."""
        if final.startswith(self.sent):
            self._send(final[len(self.sent) :])


def stable_cut(text: str) -> int:
    """Where the text received so far can be cut without splitting a citation marker (an open
    ``[`` or ``【`` near the end, or trailing spaces that a dropped marker would take) or an
    unfinished code span (an odd number of backticks)."""
    cut = len(text)
    tail_start = max(0, cut - 40)
    for opener, closer in (("[", "]"), ("【", "】")):
        position = text.rfind(opener, tail_start)
        if position != -1 and closer not in text[position:]:
            cut = min(cut, position)
    if text[:cut].endswith("]"):  # "[1]" could still become a markdown link "[1](url)"
        cut = text.rfind("[", 0, cut)
    cut = len(text[:cut].rstrip(" \t"))
    fences = [m.start() for m in re.finditer(r"```", text[:cut])]
    if len(fences) % 2:
        cut = fences[-1]
    else:
        prose = re.sub(r"```.*?```", lambda m: " " * len(m.group(0)), text[:cut], flags=re.S)
        ticks = [i for i, c in enumerate(prose) if c == "`"]
        if len(ticks) % 2:
            cut = ticks[-1]
    return cut
