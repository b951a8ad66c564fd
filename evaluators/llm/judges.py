"""Judges: a pinned model asked a versioned prompt, every call and raw answer kept.

A judge prompt is versioned text registered under ``(name, version)`` in :data:`JUDGE_PROMPTS`; once
registered a version never changes (a changed prompt is a new version, so scores made with the old
one stay explainable). ``Judge(spec, client).ask(name, variables, choices=..., json_schema=...)``
fills the prompt of the spec's ``prompt_version``, asks the model through :class:`ChatClient`
(constrained to the choices or the schema where the server can, checked where it cannot) and
returns a :class:`JudgeCall` to store with the item result. ``ask_many`` asks several questions
about one answer at once (a vote per party) within the judge's own concurrency bound and returns a
:class:`JudgeBatch`, which stores what the questions share once.

Two kinds of failure are kept apart:

- a **bad answer** (not one of the choices, not JSON) is asked again (``retries`` times, at a small
  temperature with a new seed, since a greedy retry repeats itself), then returned as a call with
  ``error_kind="malformed"``; a request the server refuses for what it holds (400/413/422: too long
  for its context) is ``error_kind="refused"``. The evaluator scores such a call as its documented
  fallback, and :func:`judge_fallbacks` counts them for the leaderboard;
- a **judge outage** (unreachable, timing out, server errors after the client's retries, a wrong key
  or model) raises :class:`JudgeUnavailable`, an infrastructure error: the run is retried, never
  scored with a column of fallbacks.

A missing prompt or variable is a programming error and raises ``KeyError``.

Example::

    judge = Judge(JudgeSpec("qwen-judge", "rev123", "v1"), ChatClient(endpoint))
    call = judge.ask("answer-match", {"question": q, "reference": ref, "answer": a}, choices=["yes", "no"])
    call.parsed  # "yes" / "no", or None with call.error_kind set
"""

from __future__ import annotations

import string
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from evaluators.core.types import InfrastructureError
from evaluators.llm.client import ChatClient
from evaluators.llm.constraints import extract_choice, parse_json_answer
from evaluators.llm.types import JudgeBatch, JudgeCall, JudgeSpec, Message, ModelError


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
        raise ValueError(
            f"judge prompt {prompt.name}@{prompt.version} is already registered with other text; "
            "a changed prompt needs a new version"
        )
    JUDGE_PROMPTS[key] = prompt
    return prompt


register_prompt(
    JudgePrompt(
        "answer-match",
        "v1",
        system="You grade answers against a reference. Judge meaning, not wording.",
        user="Question:\n$question\n\nReference answer:\n$reference\n\nAnswer to grade:\n$answer\n\n"
        "Does the answer to grade say the same as the reference answer? Reply yes or no.",
    )
)
register_prompt(
    JudgePrompt(
        "pairwise-preference",
        "v1",
        system="You compare two answers to the same request impartially; the order they are shown in does not matter.",
        user="Request:\n$question\n\n[Answer A]\n$answer_a\n\n[Answer B]\n$answer_b\n\n"
        "Which answer is better: A, B, or tie?",
    )
)
register_prompt(
    JudgePrompt(
        "rubric-score",
        "v1",
        system="You score an answer with a rubric and explain the score in one sentence.",
        user="Rubric:\n$rubric\n\nRequest:\n$question\n\nAnswer:\n$answer\n\n"
        'Reply with a JSON object {"score": <integer $low to $high>, "reason": "<one sentence>"}.',
    )
)
register_prompt(
    JudgePrompt(
        "arena-intent",
        "v1",
        system="You classify what a user wants from a search assistant.",
        user="Classes: $classes\n\nUser prompt:\n$prompt\n\n"
        'Reply with a JSON object {"primary": <class>, "secondary": <class>}: the main intent and the next one '
        '("Other" when there is none).',
    )
)


class JudgeUnavailable(InfrastructureError):
    """The judge could not answer at all (unreachable, timed out, server errors, wrong key or model):
    the machine's fault, so the run is retried rather than scored."""


#: HTTP statuses with which a judge's server refuses one request for what it holds
REFUSED_STATUSES = frozenset({400, 413, 422})
#: the temperature of a retry after an unusable answer (a greedy retry would repeat it)
RETRY_TEMPERATURE = 0.7
#: the metric every judged benchmark publishes: the share of judge calls scored as a fallback
FALLBACK_METRIC = "judge_fallback_rate"


class Judge:
    """A pinned judge model with its prompt version (see the module docstring). ``concurrency``
    bounds the calls in flight across every ``ask_many`` of this judge, whatever the number of
    threads scoring items."""

    def __init__(
        self, spec: JudgeSpec, client: ChatClient, *, max_tokens: int = 512, concurrency: int = 8, retries: int = 1
    ):
        self.spec = spec
        self.client = client
        self.max_tokens = max_tokens
        self.retries = retries
        self.concurrency = max(1, concurrency)
        self._pool: ThreadPoolExecutor | None = None
        self._pool_lock = threading.Lock()
        #: set by the first call that finds the judge unavailable: every later call of this judge
        #: (one run's attempt) raises it at once instead of waiting through its own retries, so an
        #: outage ends the attempt promptly and the run is retried whole
        self._down: JudgeUnavailable | None = None

    def prompt(self, name: str, version: str | None = None) -> JudgePrompt:
        """The prompt ``name`` at ``version``, by default the spec's ``prompt_version``."""
        version = version or self.spec.prompt_version
        try:
            return JUDGE_PROMPTS[(name, version)]
        except KeyError:
            versions = sorted(v for n, v in JUDGE_PROMPTS if n == name)
            raise KeyError(
                f"no judge prompt {name!r} at version {version!r} (registered versions: {versions or 'none'})"
            ) from None

    def record(self, prompt_key: str) -> dict[str, Any]:
        """What a stored call says about the judge (never its endpoint or key)."""
        return {**self.spec.to_dict(), "label": self.spec.label, "prompt": prompt_key}

    def ask(
        self,
        prompt_key: str,
        variables: dict[str, Any],
        *,
        shared: dict[str, Any] | None = None,
        choices: Sequence[str] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        top_p: float = 1.0,
        check: Callable[[Any], str | None] | None = None,
        prompt_version: str | None = None,
        retries: int | None = None,
    ) -> JudgeCall:
        """Ask the judge; ``parsed`` is the choice, the JSON value, or the stripped text. The prompt is
        filled from ``shared`` and ``variables``; the call stores ``variables`` only. ``check`` returns
        what is wrong with a parsed JSON answer beyond the schema's required keys (a rubric's scores of
        the wrong length): such an answer is rejected and asked again like a malformed one. An evaluator
        that fixes its own protocol passes ``prompt_version`` and ``retries`` (else the judge's own), and
        ``top_p`` where its release sets one. The first attempt is sent with ``seed``, a retry with
        ``seed`` plus its number."""
        messages = self.prompt(prompt_key, prompt_version).render({**(shared or {}), **variables})
        record = self.record(prompt_key)
        rejected: list[str] = []
        started = time.monotonic()
        retries = self.retries if retries is None else retries
        for attempt in range(1 + retries):
            if self._down is not None:
                raise JudgeUnavailable(str(self._down))
            try:
                result = self.client.chat(
                    messages,
                    temperature=0.0 if attempt == 0 else RETRY_TEMPERATURE,
                    top_p=top_p,
                    max_tokens=max_tokens or self.max_tokens,
                    choices=choices,
                    json_schema=json_schema,
                    seed=None if seed is None else seed + attempt,
                    checked_tries=1,
                )  # the retry is this loop's, at another temperature
            except ModelError as exc:
                if exc.kind == "output":  # the answer, not the judge: ask again
                    rejected.append(f"output: {exc}")
                    continue
                if exc.kind == "endpoint" and exc.status in REFUSED_STATUSES:
                    return _failed(record, variables, started, "refused", f"refused: {exc}", attempt + 1, rejected)
                down = JudgeUnavailable(f"the judge {self.spec.label} is unavailable ({exc.kind}: {exc})")
                self._down = down
                raise down from exc
            parsed, rejection = _parsed_answer(result.text, choices, json_schema, check)
            if rejection is not None:
                rejected.append(rejection)
                continue
            return JudgeCall(
                judge={**record, "constrained": result.constrained},
                variables=variables,
                raw_answer=result.text,
                parsed=parsed,
                usage=result.usage.to_dict(),
                latency_s=time.monotonic() - started,
                attempts=attempt + 1,
                rejected=rejected,
            )
        error = f"malformed: {rejected[-1] if rejected else ''}"
        return _failed(record, variables, started, "malformed", error, 1 + retries, rejected)

    def ask_many(
        self,
        prompt_key: str,
        *,
        shared: dict[str, Any],
        each: Sequence[dict[str, Any]],
        choices: Sequence[str] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        top_p: float = 1.0,
        same_seed: bool = False,
        check: Callable[[Any], str | None] | None = None,
        prompt_version: str | None = None,
        retries: int | None = None,
    ) -> JudgeBatch:
        """Ask one question per entry of ``each`` about the same ``shared`` context, all at once within
        the judge's concurrency. Each question gets seeds of its own after ``seed`` (``same_seed``: every
        question's first attempt is sent with ``seed`` itself, as a release that fixes one seed does).
        Raises JudgeUnavailable if any call does (the others are dropped)."""
        step = 0 if same_seed else 1 + (self.retries if retries is None else retries)
        futures = [
            self._executor().submit(
                self.ask,
                prompt_key,
                variables,
                shared=shared,
                choices=choices,
                json_schema=json_schema,
                max_tokens=max_tokens,
                top_p=top_p,
                seed=None if seed is None else seed + index * step,
                check=check,
                prompt_version=prompt_version,
                retries=retries,
            )
            for index, variables in enumerate(each)
        ]
        calls: list[JudgeCall] = []
        try:
            for future in futures:
                calls.append(future.result())
        except BaseException:
            for future in futures:
                future.cancel()
            raise
        return JudgeBatch(
            judge=self.record(prompt_key),
            prompt=prompt_key,
            prompt_version=prompt_version or self.spec.prompt_version,
            shared=shared,
            calls=calls,
        )

    def _executor(self) -> ThreadPoolExecutor:
        with self._pool_lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="judge")
            return self._pool

    def close(self) -> None:
        with self._pool_lock:
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
                self._pool = None
        self.client.close()


def _parsed_answer(
    text: str,
    choices: Sequence[str] | None,
    json_schema: dict[str, Any] | None,
    check: Callable[[Any], str | None] | None,
) -> tuple[Any, str | None]:
    """(the judge's answer parsed, None): the choice, the JSON value or the stripped text; or (None, what
    the call keeps of a rejected answer). The client checked choices and JSON already; this is kept for
    answers that changed in between."""
    if choices is not None:
        parsed = extract_choice(text, choices)  # "The stance scores 9." from an unguided judge
        return (None, text) if parsed is None else (parsed, None)
    if json_schema is not None:
        try:
            parsed = parse_json_answer(text)
        except ValueError:
            return None, text
        problem = check(parsed) if check is not None else None
        return (None, f"{problem}: {text.strip()[:300]}") if problem else (parsed, None)
    return text.strip(), None


def _failed(
    record: dict[str, Any],
    variables: dict[str, Any],
    started: float,
    kind: str,
    error: str,
    attempts: int,
    rejected: list[str],
) -> JudgeCall:
    """A call that got no usable answer: refused by the endpoint, or malformed every time."""
    return JudgeCall(
        judge=record,
        variables=variables,
        raw_answer="",
        parsed=None,
        usage={},
        latency_s=time.monotonic() - started,
        error=error,
        error_kind=kind,
        attempts=attempts,
        rejected=rejected,
    )


def judge_fallbacks(detail: dict[str, Any]) -> tuple[int, int]:
    """(fallback calls, all calls) in an item result's stored ``judgements``."""
    calls = [call for batch in detail.get("judgements", []) for call in batch.get("calls", [])]
    return sum(bool(call.get("error_kind")) for call in calls), len(calls)


def judge_fallbacks_kept(detail: dict[str, Any]) -> dict[str, Any]:
    """What ``judge_fallbacks`` reads of a stored detail, each judge call's ``error_kind`` alone (never its
    prompt or answer): what an aggregation keeps of a judged item (``KeptScores``' ``keep_detail``). Items
    whose calls failed alike share one such detail; it is read, never written."""
    kinds = tuple(
        tuple(call.get("error_kind") for call in batch.get("calls", [])) for batch in detail.get("judgements", [])
    )
    return _judgements_of(kinds)


@lru_cache(maxsize=1024)
def _judgements_of(kinds: tuple[tuple[Any, ...], ...]) -> dict[str, Any]:
    return {"judgements": [{"calls": [{"error_kind": kind} for kind in batch]} for batch in kinds]}
