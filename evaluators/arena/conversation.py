"""What every arena responder reads from a conversation, and how it starts and fails a turn.

The search query is the last user prompt (with the previous one prepended when it is a short
follow-up); the conversation a chat endpoint is sent is the user and assistant turns as plain text.
A turn that cannot be answered becomes a failed :class:`Answer` (``finish_reason`` "error"), never
an exception.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from evaluators.arena import citations
from evaluators.arena.search import query_terms
from evaluators.llm.types import Answer, Message, SearchCall, Source, Usage


def message_text(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, Mapping) and p.get("type") == "text")
    return ""


def search_query(messages: Sequence[Message]) -> str:
    """The last user prompt; when it is short (a follow-up like "and on Windows?"), the previous
    user prompt is prepended for context."""
    prompts = [message_text(m).strip() for m in messages if m.get("role") == "user"]
    prompts = [p for p in prompts if p]
    if not prompts:
        return ""
    if len(prompts) > 1 and len(query_terms(prompts[-1])) < 4:
        return f"{prompts[-2][:1000]} {prompts[-1]}"
    return prompts[-1]


def plain_conversation(messages: Sequence[Message]) -> list[Message]:
    """User and assistant turns as plain text (what a chat endpoint is sent)."""
    return [
        {"role": m["role"], "content": message_text(m)}
        for m in messages
        if m.get("role") in ("user", "assistant") and message_text(m)
    ]


def failed_answer(
    message: str,
    *,
    searches: Sequence[SearchCall] = (),
    started: float,
    text: str = "",
    sources: Sequence[Source] = (),
    citation_style: str = "standardized",
    usage: Usage = Usage(),
) -> Answer:
    """An answer that failed with ``message``, keeping whatever text and sources it had."""
    return Answer(
        text=text,
        sources=list(sources),
        searches=list(searches),
        citation_style=citation_style,
        finish_reason="error",
        latency_s=time.monotonic() - started,
        usage=usage,
        error=message,
    )


def begin_turn(messages: Sequence[Message], citation_style: str) -> tuple[float, list[Message], Answer | None]:
    """Start answering a turn: the clock, the conversation, and a failed Answer when the
    conversation does not end with a user prompt."""
    started = time.monotonic()
    citations.check_style(citation_style)
    conversation = plain_conversation(messages)
    if not conversation or conversation[-1]["role"] != "user":
        return (
            started,
            conversation,
            failed_answer(
                "the conversation does not end with a user prompt", started=started, citation_style=citation_style
            ),
        )
    return started, conversation, None
