"""Types shared by everything that talks to a model or a search engine.

They cross process boundaries (Celery messages, JSON columns, exported datasets), so each is a plain
dataclass with ``to_dict``. The contracts here are what the client, the server launcher, the judges,
the search backends and the arena responders agree on.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol, runtime_checkable

from evaluators.core.types import InfrastructureError

#: One chat message in the OpenAI format: {"role": ..., "content": str | [content parts]}.
#: Images and video frames are content parts: {"type": "image_url", "image_url": {"url": "data:..."}}.
Message = dict[str, Any]
#: Called with each piece of text as it streams in.
DeltaCallback = Callable[[str], None]


class ModelError(RuntimeError):
    """A model or its server failed. ``kind`` classifies it for the run's failure kind:

    - ``model_load``: weights/config/tokenizer do not load, the model does not exist, no chat template
    - ``out_of_memory``: the server ran out of GPU (or host) memory
    - ``timeout``: a request or the server start took longer than allowed
    - ``endpoint``: the endpoint refused or broke (wrong key, 4xx, 5xx after retries, bad response)
    - ``output``: the response was empty, cut off or not valid for the constraint asked for

    ``retryable`` says whether trying again later could help (rate limits, server errors).
    """

    KINDS = ("model_load", "out_of_memory", "timeout", "endpoint", "output")

    def __init__(self, kind: str, message: str, *, retryable: bool = False, status: int | None = None):
        if kind not in self.KINDS:
            raise ValueError(f"unknown ModelError kind {kind!r}")
        self.kind = kind
        self.retryable = retryable
        self.status = status
        super().__init__(message)

    @property
    def over_limit(self) -> bool:
        """The server refused this request for its length: more tokens than its context or more images
        or videos than it allows per prompt (vLLM's and OpenAI's wording), not for what it says."""
        return self.kind == "endpoint" and self.status in (400, 413, 422) and _OVER_LIMIT.search(str(self)) is not None


#: how servers say a request is too long for them (vLLM, OpenAI, transformers serve)
_OVER_LIMIT = re.compile(
    r"maximum context length|context_length_exceeded|context length exceeded|"
    r"may be provided in one prompt|too many (?:images|videos|tokens)|exceeds the (?:model's )?"
    r"(?:maximum|context)|prompt is too long|input is too long",
    re.IGNORECASE,
)


class ServerUnavailable(InfrastructureError):
    """The machine cannot launch a model server (no GPU, vLLM not installed, port exhausted)."""


#: a URL's scheme and user-info ("user:password@") in a text; the user-info is what redact_userinfo removes
_USERINFO = re.compile(r"\b([a-zA-Z][a-zA-Z0-9+.-]*://)[^\s/?#]*@")


def redact_userinfo(text: str) -> str:
    """``text`` with the user name and password taken out of every URL in it ("http://user:pw@host/v1"
    becomes "http://host/v1"): what a page, a message or a stored record may show of an address."""
    return _USERINFO.sub(r"\1", text)


@dataclass(frozen=True)
class Endpoint:
    """Where a model is served: an OpenAI-compatible base URL (ending in /v1), the model name to
    send, and the API key (never logged, never stored in plain text by the site)."""

    base_url: str
    model: str
    api_key: str = ""
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def shown_url(self) -> str:
        """The base URL as messages and records show it: without any user name or password in it."""
        return redact_userinfo(self.base_url)

    def redacted(self) -> dict[str, Any]:
        return {"base_url": self.shown_url, "model": self.model, "api_key": "***" if self.api_key else ""}


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt_tokens + other.prompt_tokens, self.completion_tokens + other.completion_tokens)

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class ChatResult:
    """One completed chat request. ``texts`` has n entries (n samples); ``text`` is the first.

    ``finish_reason`` is the server's ("stop", "length", ...); ``raw`` is the response JSON without
    the message bodies' duplicates, kept for judges and hosted search APIs (citations live there).
    ``constrained`` says how a constraint was honoured: "server" (guided decoding), "checked"
    (fallback: validated after the fact), "extracted" (an unguided answer holding exactly one of the
    choices as a word, e.g. "The stance scores 9.") or "" (no constraint).
    """

    texts: list[str]
    finish_reason: str
    usage: Usage
    model: str
    latency_s: float
    attempts: int = 1
    constrained: str = ""
    raw: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.texts[0] if self.texts else ""

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["usage"] = self.usage.to_dict()
        return data


@dataclass(frozen=True)
class JudgeSpec:
    """A pinned judge: which model (name and revision or API version), which prompt version, and
    where it is served. Its ``label`` is what a leaderboard prints."""

    name: str
    revision: str
    prompt_version: str
    endpoint: Endpoint | None = None

    @property
    def label(self) -> str:
        return f"{self.name}@{self.revision} (prompt {self.prompt_version})"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "revision": self.revision, "prompt_version": self.prompt_version}


@dataclass(frozen=True)
class JudgeCall:
    """One judge question and its raw answer, stored with the item result.

    ``variables`` are the call's own prompt variables (those it shares with the other calls about the
    same answer are stored once, in its :class:`JudgeBatch`). ``error_kind`` is empty for a usable
    answer, ``malformed`` when the answers stayed unusable after the retries (the answers are in
    ``rejected``) and ``refused`` when the judge's server refused the request for what it holds (too
    long for its context); either way the evaluator scores the call as its documented fallback."""

    judge: dict[str, Any]
    variables: dict[str, Any]
    raw_answer: str
    parsed: Any
    usage: dict[str, int]
    latency_s: float
    error: str = ""
    error_kind: str = ""
    attempts: int = 1
    rejected: list[str] = field(default_factory=list)

    @property
    def fallback(self) -> bool:
        return bool(self.error_kind)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class JudgeBatch:
    """The judge's calls about one answer: the prompt and the variables they share (the background,
    the candidate text) once, then each call with its own variables and raw answer."""

    judge: dict[str, Any]
    prompt: str
    prompt_version: str
    shared: dict[str, Any]
    calls: list[JudgeCall]

    @property
    def fallbacks(self) -> int:
        return sum(call.fallback for call in self.calls)

    def to_dict(self) -> dict[str, Any]:
        calls = [{k: v for k, v in call.to_dict().items() if k != "judge"} for call in self.calls]
        for stored, call in zip(calls, self.calls):
            stored["constrained"] = call.judge.get("constrained", "")
        return {
            "judge": {k: v for k, v in self.judge.items() if k != "constrained"},
            "prompt": self.prompt,
            "prompt_version": self.prompt_version,
            "shared": self.shared,
            "calls": calls,
        }


# --- search and citations (the arena) -------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    """A numbered source an answer cites: ``number`` is the marker shown as [n]."""

    number: int
    url: str
    title: str = ""
    snippet: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SearchCall:
    """One query sent to a search backend and what came back."""

    backend: str
    query: str
    results: list[Source]
    latency_s: float
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "backend": self.backend,
            "query": self.query,
            "results": [r.to_dict() for r in self.results],
            "latency_s": self.latency_s,
            "error": self.error,
        }


@dataclass(frozen=True)
class Answer:
    """A responder's full answer to one turn: text with standardized [n] citation markers, the
    sources those markers point to, the searches behind it, and how it ended.

    ``citation_style`` is "standardized" (markers rewritten to [n]) or "original" (the provider's own
    formatting kept); ``finish_reason`` "stop" means complete, anything else (e.g. "length",
    "error") means the answer is cut off or failed and a vote on it is not counted.
    """

    text: str
    sources: list[Source]
    searches: list[SearchCall]
    citation_style: str
    finish_reason: str
    latency_s: float
    usage: Usage = Usage()
    error: str = ""

    @property
    def complete(self) -> bool:
        return self.finish_reason == "stop" and not self.error

    def to_dict(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "sources": [s.to_dict() for s in self.sources],
            "searches": [s.to_dict() for s in self.searches],
            "citation_style": self.citation_style,
            "finish_reason": self.finish_reason,
            "latency_s": self.latency_s,
            "usage": self.usage.to_dict(),
            "error": self.error,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Answer:
        """The inverse of ``to_dict`` (a stored answer read back)."""
        return cls(
            text=data.get("text", ""),
            sources=[Source(**s) for s in data.get("sources", [])],
            searches=[
                SearchCall(
                    backend=c["backend"],
                    query=c["query"],
                    results=[Source(**r) for r in c.get("results", [])],
                    latency_s=c.get("latency_s", 0.0),
                    error=c.get("error", ""),
                )
                for c in data.get("searches", [])
            ],
            citation_style=data.get("citation_style", "standardized"),
            finish_reason=data.get("finish_reason", ""),
            latency_s=data.get("latency_s", 0.0),
            usage=Usage(**data.get("usage", {})),
            error=data.get("error", ""),
        )


@runtime_checkable
class SearchBackend(Protocol):
    """A search engine: the embedded local index, SearXNG's JSON API, or a commercial API."""

    name: str

    def search(self, query: str, *, limit: int = 5) -> SearchCall:
        """Never raises for a failed search: the error is in ``SearchCall.error``."""
        ...


@runtime_checkable
class Responder(Protocol):
    """An arena contestant: answers a conversation, streaming text through ``on_delta``.

    ``messages`` is the conversation so far (user/assistant turns, plain text). Must not raise for a
    failed model or search: the failure is in ``Answer.error`` / ``finish_reason``.
    """

    name: str
    #: what the model is, honestly ("extractive: top sentences from the local index, no LLM")
    description: str

    def respond(
        self,
        messages: Sequence[Message],
        *,
        on_delta: DeltaCallback | None = None,
        citation_style: str = "standardized",
    ) -> Answer: ...
