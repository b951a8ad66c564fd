"""The arena's plain-chat setting: contestants answer from what they know, with no search and no citations.

The Search Arena paper compares search-augmented and plain models across two arenas (a search-augmented
model in the general Text Arena, a plain model in the Search Arena). Our arena runs both settings itself:
a battle is fought in the ``search`` setting (each contestant answers as configured: searching and citing,
or, for a plain ``chat`` contestant, without search) or in the ``chat`` setting (every contestant answers
without search). Which contestants can take part in which setting follows from their configuration
(:func:`settings_of`):

- ``extractive``: only ``search`` (it is not a model: it can only quote what it finds);
- ``search_tool``: both; in ``chat`` the same model is asked without the search results;
- ``hosted``: ``search``, and ``chat`` only when the configuration names the provider's non-search way
  of asking (``without_search``: ``{"model": ..., "extra": {...}}``; for example Gemini without the
  ``google_search`` tool), because some providers' search models always search;
- ``chat`` (a plain model on an OpenAI-compatible endpoint): both, never searching.

:class:`PlainChatResponder` is the responder of a contestant answering without search. Like the other
responders it never raises: a failure is in ``Answer.error``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from evaluators.arena.conversation import begin_turn, failed_answer
from evaluators.arena.streaming import AnswerStream
from evaluators.llm.client import ChatClient
from evaluators.llm.types import Answer, DeltaCallback, Message, ModelError

#: the two settings, the default first
SETTINGS: tuple[str, ...] = ("search", "chat")

PLAIN_CHAT_PROMPT = (
    "You are a helpful assistant in a chat. Answer the user's question from your own knowledge; you have no web "
    "access.\n"
    "Do not cite sources with numbers in brackets. Do not mention your own name, your maker or these instructions."
)


def settings_of(config: Mapping[str, Any]) -> tuple[str, ...]:
    """The settings a contestant with this responder configuration can take part in (see the module docstring)."""
    kind = config.get("kind")
    if kind in ("search_tool", "chat"):
        return SETTINGS
    if kind == "hosted" and isinstance(config.get("without_search"), Mapping):
        return SETTINGS
    return ("search",)


def check_setting(setting: str) -> str:
    if setting not in SETTINGS:
        raise ValueError(f"setting: must be one of {', '.join(SETTINGS)}, got {setting!r}")
    return setting


class PlainChatResponder:
    """A model answering without search: the conversation with a short system prompt, streamed; the
    answer has no sources and no search calls."""

    def __init__(
        self,
        name: str,
        client: ChatClient,
        *,
        max_tokens: int = 1024,
        temperature: float = 0.3,
        extra: dict[str, Any] | None = None,
        description: str | None = None,
    ):
        self.name = name
        self.client = client
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.extra = dict(extra or {})
        self.description = (
            description or f"model {client.endpoint.model} without search (answers from its own knowledge)"
        )

    def respond(
        self,
        messages: Sequence[Message],
        *,
        on_delta: DeltaCallback | None = None,
        citation_style: str = "standardized",
    ) -> Answer:
        started, conversation, refused = begin_turn(messages, citation_style)
        if refused is not None:
            return refused
        stream = AnswerStream(on_delta)
        system: Message = {"role": "system", "content": PLAIN_CHAT_PROMPT}
        try:
            result = self.client.chat(
                [system, *conversation],
                max_tokens=self.max_tokens,
                temperature=self.temperature,
                on_delta=stream.feed,
                extra=self.extra or None,
            )
        except ModelError as exc:
            return failed_answer(
                f"{exc.kind}: {exc}", started=started, text=stream.received, citation_style=citation_style
            )
        stream.finish(result.text)
        return Answer(
            text=result.text,
            sources=[],
            searches=[],
            citation_style=citation_style,
            finish_reason=result.finish_reason or "stop",
            latency_s=time.monotonic() - started,
            usage=result.usage,
            error="" if result.text.strip() else "the model returned an empty answer",
        )
