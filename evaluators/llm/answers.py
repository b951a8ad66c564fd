"""Reading a chat-completions answer (``evaluators.llm.client`` sends the requests): a JSON body's texts
(one per sample, in index order), first finish reason, token usage and the body itself
(``answer_of_body``), and a stream's chunks as they arrive (``StreamedAnswer``: each sample's pieces
and finish reason, the usage, the annotations and any field a server adds, the first sample's text
handed on as it comes)."""

from __future__ import annotations

from typing import Any

from evaluators.llm.types import DeltaCallback, ModelError, Usage

#: (texts per sample, the first sample's finish reason, usage, the body or the stream's extra fields)
Answer = tuple[list[str], str, Usage, dict[str, Any]]


def answer_of_body(data: Any, where: str) -> Answer:
    """A whole JSON answer; a body without choices is the endpoint's failure (``where`` names it)."""
    choices = data.get("choices") if isinstance(data, dict) else None
    if not choices or not isinstance(choices, list):
        raise ModelError("endpoint", f"{where} answered without choices: {str(data)[:200]}")
    ordered = sorted(choices, key=lambda c: c.get("index", 0))
    texts = [_content_text((c.get("message") or {}).get("content")) for c in ordered]
    finish = str(ordered[0].get("finish_reason") or "")
    return texts, finish, _usage(data.get("usage")), data


class StreamedAnswer:
    """A streamed answer, one chunk at a time (``take``); ``delivered[0]`` is set once the first sample's
    text has been handed to ``on_delta``."""

    def __init__(self, on_delta: DeltaCallback, delivered: list[bool]) -> None:
        self.on_delta, self.delivered = on_delta, delivered
        self.pieces: dict[int, list[str]] = {}
        self.finishes: dict[int, str] = {}
        self.annotations: list[Any] = []
        self.raw: dict[str, Any] = {}
        self.usage = Usage()

    def take(self, chunk: dict[str, Any]) -> None:
        for key, value in chunk.items():
            if key not in ("choices", "usage", "id", "object", "created"):
                self.raw[key] = value
        if chunk.get("usage"):
            self.usage = _usage(chunk["usage"])
        for choice in chunk.get("choices") or []:
            index = int(choice.get("index", 0))
            delta = choice.get("delta") or {}
            text = delta.get("content")
            if text:
                self.pieces.setdefault(index, []).append(text)
                if index == 0:
                    self.delivered[0] = True
                    self.on_delta(text)
            self.annotations.extend(delta.get("annotations") or [])
            if choice.get("finish_reason"):
                self.finishes[index] = str(choice["finish_reason"])

    def finished(self) -> bool:
        """Whether every sample has its finish reason (some servers end a stream without [DONE])."""
        return bool(self.finishes) and all(i in self.finishes for i in self.pieces)

    def result(self) -> Answer:
        count = max([*self.pieces, *self.finishes, 0]) + 1
        if self.annotations:
            self.raw["message"] = {"annotations": self.annotations}
        texts = ["".join(self.pieces.get(i, [])) for i in range(count)]
        return texts, self.finishes.get(0, ""), self.usage, self.raw


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some servers answer with content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content)


def _usage(data: Any) -> Usage:
    if not isinstance(data, dict):
        return Usage()
    return Usage(int(data.get("prompt_tokens") or 0), int(data.get("completion_tokens") or 0))
