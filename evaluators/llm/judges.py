"""Judges: a pinned model asked a versioned prompt, every call and raw answer kept.

A judge prompt is versioned text registered under ``(name, version)`` in :data:`JUDGE_PROMPTS`; once
registered a version never changes (a changed prompt is a new version, so scores made with the old
one stay explainable). ``Judge(spec, client).ask(name, variables, choices=..., json_schema=...)``
fills the prompt of the spec's ``prompt_version``, asks the model through :class:`ChatClient`
(constrained to the choices or the schema where the server can, checked where it cannot), and
returns a :class:`JudgeCall` to store with the item result. A failing model never raises: its error
is in ``JudgeCall.error``. A missing prompt or variable is a programming error and does raise.

Example::

    judge = Judge(JudgeSpec("qwen-judge", "rev123", "v1"), ChatClient(endpoint))
    call = judge.ask("answer-match", {"question": q, "reference": ref, "answer": a}, choices=["yes", "no"])
    call.parsed  # "yes" / "no", or None with call.error set
"""
from __future__ import annotations

import string
import time
from dataclasses import dataclass
from typing import Any, Sequence

from evaluators.llm.client import ChatClient, parse_json_answer
from evaluators.llm.types import JudgeCall, JudgeSpec, Message, ModelError


@dataclass(frozen=True)
class JudgePrompt:
    """Versioned prompt text; ``$name`` placeholders are filled from the call's variables."""

    name: str
    version: str
    user: str
    system: str = ""

    def render(self, variables: dict[str, Any]) -> list[Message]:
        try:
            user = string.Template(self.user).substitute(variables)
            system = string.Template(self.system).substitute(variables) if self.system else ""
        except KeyError as exc:
            raise KeyError(f"judge prompt {self.name}@{self.version} needs the variable {exc.args[0]!r}") from None
        return ([{"role": "system", "content": system}] if system else []) + [{"role": "user", "content": user}]


#: Every judge prompt by (name, version).
JUDGE_PROMPTS: dict[tuple[str, str], JudgePrompt] = {}


def register_prompt(prompt: JudgePrompt) -> JudgePrompt:
    """Add a prompt version; registering different text under an existing version is refused."""
    key = (prompt.name, prompt.version)
    if key in JUDGE_PROMPTS and JUDGE_PROMPTS[key] != prompt:
        raise ValueError(f"judge prompt {prompt.name}@{prompt.version} is already registered with other text; "
                         "a changed prompt needs a new version")
    JUDGE_PROMPTS[key] = prompt
    return prompt


register_prompt(JudgePrompt(
    "answer-match", "v1",
    system="You grade answers against a reference. Judge meaning, not wording.",
    user="Question:\n$question\n\nReference answer:\n$reference\n\nAnswer to grade:\n$answer\n\n"
         "Does the answer to grade say the same as the reference answer? Reply yes or no."))
register_prompt(JudgePrompt(
    "pairwise-preference", "v1",
    system="You compare two answers to the same request impartially; the order they are shown in does not matter.",
    user="Request:\n$question\n\n[Answer A]\n$answer_a\n\n[Answer B]\n$answer_b\n\n"
         "Which answer is better: A, B, or tie?"))
register_prompt(JudgePrompt(
    "rubric-score", "v1",
    system="You score an answer with a rubric and explain the score in one sentence.",
    user="Rubric:\n$rubric\n\nRequest:\n$question\n\nAnswer:\n$answer\n\n"
         'Reply with a JSON object {"score": <integer $low to $high>, "reason": "<one sentence>"}.'))
register_prompt(JudgePrompt(
    "arena-intent", "v1",
    system="You classify what a user wants from a search assistant.",
    user="Classes: $classes\n\nUser prompt:\n$prompt\n\n"
         'Reply with a JSON object {"primary": <class>, "secondary": <class>}: the main intent and the next one '
         '("Other" when there is none).'))


class Judge:
    """A pinned judge model with its prompt version (see the module docstring)."""

    def __init__(self, spec: JudgeSpec, client: ChatClient, *, max_tokens: int = 512):
        self.spec = spec
        self.client = client
        self.max_tokens = max_tokens

    def prompt(self, name: str) -> JudgePrompt:
        try:
            return JUDGE_PROMPTS[(name, self.spec.prompt_version)]
        except KeyError:
            versions = sorted(v for n, v in JUDGE_PROMPTS if n == name)
            raise KeyError(f"no judge prompt {name!r} at version {self.spec.prompt_version!r} "
                           f"(registered versions: {versions or 'none'})") from None

    def ask(self, prompt_key: str, variables: dict[str, Any], *, choices: Sequence[str] | None = None,
            json_schema: dict[str, Any] | None = None) -> JudgeCall:
        """Ask the judge; ``parsed`` is the choice, the JSON value, or the stripped text."""
        messages = self.prompt(prompt_key).render(variables)
        record = {**self.spec.to_dict(), "label": self.spec.label, "prompt": prompt_key}
        started = time.monotonic()
        try:
            result = self.client.chat(messages, temperature=0.0, max_tokens=self.max_tokens, choices=choices,
                                      json_schema=json_schema)
        except ModelError as exc:
            return JudgeCall(judge=record, messages=messages, raw_answer="", parsed=None, usage={},
                             latency_s=time.monotonic() - started, error=f"{exc.kind}: {exc}")
        record["constrained"] = result.constrained
        parsed: Any = result.text.strip()
        error = ""
        if json_schema is not None:
            try:
                parsed = parse_json_answer(result.text)
            except ValueError as exc:  # the client checked it; kept for answers that changed in between
                parsed, error = None, f"output: {exc}"
        return JudgeCall(judge=record, messages=messages, raw_answer=result.text, parsed=parsed,
                         usage=result.usage.to_dict(), latency_s=result.latency_s, error=error)
