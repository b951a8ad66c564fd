"""Constrained outputs for the chat client: a choice among fixed strings or a JSON schema.

A :class:`Constraint` gives the request fields for a server with guided decoding (vLLM's
``structured_outputs``, OpenAI's ``response_format``), the instruction added to the prompt where the
server has none (:func:`with_instruction`), and the check of an answer after the fact
(:func:`extract_choice`, :func:`parse_json_answer`, which judges use too). :func:`answer_format_row` is
the method-card row every judged board shows for it: the released judge prompt goes unchanged where the
judge's server holds the answer to the format, and the appended instruction, word for word, where it
cannot.

What our servers offer (read in their code): vLLM (the GPU build and the CPU build, 0.32-0.33) takes
``structured_outputs`` (a choice) and ``response_format`` with a JSON schema and constrains decoding to
them; ``transformers serve`` (5.x) refuses ``structured_outputs`` (HTTP 422: unexpected field) and
accepts ``response_format`` but ignores it (it logs "Ignoring unsupported fields"), so it has neither
guided decoding nor a JSON mode; hosted OpenAI-style APIs take ``response_format`` with a JSON schema
(an object at the root) and refuse ``structured_outputs``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from evaluators.core.types import ProtocolRow
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
        return {
            "response_format": {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": self.json_schema, "strict": True},
            }
        }

    def instruction(self) -> str:
        if self.choices is not None:
            options = ", ".join(json.dumps(c) for c in self.choices)
            return f"Answer with exactly one of these options and nothing else: {options}."
        kind = "object" if (self.json_schema or {}).get("type") == "object" else "value"
        return (
            f"Answer with one JSON {kind} and nothing else (no prose, no code fence), matching this JSON "
            f"schema: {json.dumps(self.json_schema)}"
        )

    def check(self, text: str) -> str | None:
        """None when ``text`` satisfies the constraint, else what is wrong with it."""
        if self.choices is not None:
            found = extract_choice(text, self.choices)
            return None if found is not None else f"{text.strip()[:80]!r} is not one of {list(self.choices)}"
        try:
            value = parse_json_answer(text)
        except ValueError as exc:
            return str(exc)
        missing = [
            k for k in (self.json_schema or {}).get("required", []) if not isinstance(value, dict) or k not in value
        ]
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


def answer_format_row(
    released: str,
    *,
    choices: Sequence[str] | None = None,
    json_schema: dict[str, Any] | None = None,
    example_note: str = "",
    source: str = "",
) -> ProtocolRow:
    """The method-card row of a judged board saying how the judge's answer is held to its format:
    ``released`` is what the authors' code did; the row shows the instruction the client appends where the
    judge's server has no guided decoding, word for word (``example_note`` says which item's, where the
    schema changes from item to item)."""
    constraint = Constraint(tuple(choices) if choices is not None else None, json_schema)
    what = "one of the choices" if choices is not None else "the JSON schema"
    return ProtocolRow(
        "Judge's answer format",
        released,
        f"The judge prompt is sent as it is, nothing appended, where the judge's server constrains the answer to "
        f"{what} (vLLM's "
        "guided decoding: structured_outputs or a JSON-schema response_format). Where it cannot (transformers serve "
        "has neither guided decoding nor a JSON mode; a server that ignores the guidance is detected by its first "
        "answer) the client appends this paragraph to the prompt's last message"
        f'{" " + example_note if example_note else ""}: "{constraint.instruction()}". Each stored judge call '
        "says which was done (constrained: server, or checked / extracted when the paragraph was appended)",
        "An unconstrained judge often answers with a sentence or a fenced block; the paragraph asks for the format "
        "the released code obtained another way, and is sent only where the server cannot enforce it",
        source,
    )
