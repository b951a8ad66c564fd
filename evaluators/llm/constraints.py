"""Constrained outputs for the chat client: a choice among fixed strings or a JSON schema.

A :class:`Constraint` gives the request fields for a server with guided decoding (vLLM's
``structured_outputs``, OpenAI's ``response_format``), the instruction added to the prompt where the
server has none (:func:`with_instruction`), and the check of an answer after the fact
(:func:`extract_choice`, :func:`parse_json_answer`, which judges use too).
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Sequence

from evaluators.llm.types import Message


@dataclass(frozen=True)
class Constraint:
    """What an answer must be: one of ``choices`` or a JSON value matching ``json_schema`` (one is set)."""

    choices: tuple[str, ...] | None
    json_schema: dict[str, Any] | None

    def server_params(self) -> dict[str, Any]:
        if self.choices is not None:
            # vLLM >= 0.10.2 reads structured_outputs; older vLLM reads guided_choice.
            return {"structured_outputs": {"choice": list(self.choices)}, "guided_choice": list(self.choices)}
        assert self.json_schema is not None
        return {"response_format": {"type": "json_schema",
                                    "json_schema": {"name": "answer", "schema": self.json_schema, "strict": True}}}

    def instruction(self) -> str:
        if self.choices is not None:
            options = ", ".join(json.dumps(c) for c in self.choices)
            return f"Answer with exactly one of these options and nothing else: {options}."
        return ("Answer with one JSON object and nothing else (no prose, no code fence), matching this JSON "
                f"schema: {json.dumps(self.json_schema)}")

    def check(self, text: str) -> str | None:
        """None when ``text`` satisfies the constraint, else what is wrong with it."""
        if self.choices is not None:
            found = extract_choice(text, self.choices)
            return None if found is not None else f"{text.strip()[:80]!r} is not one of {list(self.choices)}"
        try:
            value = parse_json_answer(text)
        except ValueError as exc:
            return str(exc)
        missing = [k for k in (self.json_schema or {}).get("required", []) if not isinstance(value, dict) or k not in value]
        return f"the JSON answer lacks the required keys {missing}" if missing else None


def extract_choice(text: str, choices: Sequence[str]) -> str | None:
    """The choice an answer gives: the answer itself when it is one of ``choices``, else the one choice
    it holds as a standalone word ("The party stance is 9." gives "9"); None when it holds none or
    several ("7 out of 9"). What a server without guided decoding is held to (``constrained`` is then
    "extracted" and the text is kept as written)."""
    answer = text.strip()
    if answer in choices:
        return answer
    found = {c for c in choices if re.search(rf"(?<![\w]){re.escape(c)}(?![\w])", answer)}
    return found.pop() if len(found) == 1 else None


def parse_json_answer(text: str) -> Any:
    """The JSON value in a model's answer, tolerating a surrounding Markdown code fence."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    try:
        return json.loads(body)
    except ValueError as exc:
        raise ValueError(f"the answer is not valid JSON ({exc}): {text.strip()[:80]!r}") from None


def with_instruction(messages: Sequence[Message], instruction: str) -> list[Message]:
    """The messages with ``instruction`` appended to the last user message (content parts kept as
    they are), or as a new user message when the conversation does not end with one."""
    if not messages or messages[-1].get("role") != "user":
        return [*messages, {"role": "user", "content": instruction}]
    *head, last = messages
    content = last.get("content")
    if isinstance(content, list):
        new_content: Any = [*content, {"type": "text", "text": instruction}]
    else:
        new_content = f"{content or ''}\n\n{instruction}"
    return [*head, {**last, "content": new_content}]
