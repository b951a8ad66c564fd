"""The arena's contestants: things that answer a conversation with cited sources, streaming.

- :class:`ExtractiveResponder`: no model at all. It searches a backend and quotes what it found,
  citing each piece. Two strategies that differ in depth and length, so that votes between them
  mean something: ``"bm25-sentences"`` (the best-matching sentences from the top passages) and
  ``"lead-passages"`` (the opening snippet of each of the top few results). They make the embedded
  default arena work with no GPU and no API key, and say honestly what they are.
- :class:`SearchToolResponder`: a model we serve (vLLM, ``transformers serve``) given search as a
  tool: we search, put numbered sources in the system prompt, ask for ``[n]`` citations, stream
  the answer and parse the citations back.
- :class:`HostedSearchResponder`: a hosted search API (Perplexity Sonar, OpenAI search models,
  Gemini grounding) reached through its OpenAI-compatible endpoint, its citations normalized.
- :class:`PlainChatResponder`: a model answering without search (a plain ``chat`` contestant, or any
  model contestant in the plain-chat setting: :mod:`evaluators.arena.plain_chat`).

None of them raises for a failed model or search: the failure is in ``Answer.error`` and
``finish_reason`` ("error"), with whatever text had streamed. :func:`responder_from_config` builds
one from the JSON stored on an arena model.

Streaming: ``on_delta`` receives the answer as it is produced. For the extractive and numbered
formats (our models, Perplexity) the citation markers are renumbered as the text streams, so the
pieces concatenate to ``Answer.text``. OpenAI annotations and Gemini grounding arrive only at the
end, so for those the stream is the provider's raw text and ``Answer.text`` (the normalized one)
replaces it when the answer is complete. A caller should always render the final ``Answer``.

The extractive responder is in :mod:`evaluators.arena.extractive`, the model-backed ones in
:mod:`evaluators.arena.model_responders`, what they share in :mod:`evaluators.arena.conversation` and
:mod:`evaluators.arena.streaming`; this module builds one from configuration and names them all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from evaluators.arena.conversation import search_query
from evaluators.arena.extractive import STRATEGIES, ExtractiveResponder
from evaluators.arena.model_responders import HOSTED_STYLES, HostedSearchResponder, SearchToolResponder
from evaluators.arena.plain_chat import PlainChatResponder, check_setting, settings_of
from evaluators.arena.search import backend_from_config
from evaluators.llm.client import ChatClient
from evaluators.llm.types import Endpoint, Responder, SearchBackend

__all__ = [
    "DEFAULT_RESPONDERS",
    "HOSTED_STYLES",
    "KINDS",
    "STRATEGIES",
    "ExtractiveResponder",
    "HostedSearchResponder",
    "PlainChatResponder",
    "SearchToolResponder",
    "responder_from_config",
    "search_query",
    "settings_of",
]

KINDS = ("extractive", "search_tool", "hosted", "chat")

#: The embedded default arena: two responders that need no GPU and no API key.
DEFAULT_RESPONDERS: tuple[dict[str, Any], ...] = (
    {"kind": "extractive", "name": "docs-sentences", "strategy": "bm25-sentences", "index": "default"},
    {"kind": "extractive", "name": "docs-lead", "strategy": "lead-passages", "index": "default"},
)


# --- configuration --------------------------------------------------------------------------------

_KEYS = {
    "extractive": {
        "kind",
        "name",
        "strategy",
        "index",
        "search",
        "max_sources",
        "max_sentences",
        "delay_s",
        "description",
    },
    "search_tool": {
        "kind",
        "name",
        "base_url",
        "model",
        "api_key_ref",
        "search",
        "max_sources",
        "max_tokens",
        "temperature",
        "timeout_s",
        "rewrite_query",
        "description",
        "max_concurrency",
    },
    "hosted": {
        "kind",
        "name",
        "style",
        "base_url",
        "model",
        "api_key_ref",
        "max_tokens",
        "temperature",
        "timeout_s",
        "extra",
        "description",
        "max_concurrency",
        "without_search",
    },
    "chat": {
        "kind",
        "name",
        "base_url",
        "model",
        "api_key_ref",
        "max_tokens",
        "temperature",
        "timeout_s",
        "extra",
        "description",
        "max_concurrency",
    },
}


def _require(config: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str, default: Any = ...) -> Any:
    if key not in config:
        if default is ...:
            raise ValueError(f"responder config: '{key}' is required ({what})")
        return default
    value = config[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, float, (int, float))):
        raise ValueError(f"responder config: '{key}' must be {what}, got {value!r}")
    return value


def _client(config: Mapping[str, Any], secrets: Callable[[str], str] | None) -> ChatClient:
    base_url = _require(config, "base_url", str, "the endpoint's OpenAI-compatible base URL ending in /v1")
    if not base_url.startswith(("http://", "https://")):
        raise ValueError(f"responder config: 'base_url' must be an http(s) URL, got {base_url!r}")
    model = _require(config, "model", str, "the model name the endpoint expects")
    ref = _require(config, "api_key_ref", str, "the name of a stored secret", default="")
    if ref and secrets is None:
        raise ValueError(f"responder config: 'api_key_ref' is {ref!r} but no secret store was given to resolve it")
    try:
        api_key = secrets(ref) if ref and secrets is not None else ""
    except KeyError:
        raise ValueError(f"responder config: 'api_key_ref' names the secret {ref!r}, which does not exist") from None
    timeout = _require(config, "timeout_s", (int, float), "a positive number of seconds", default=120.0)
    concurrency = _require(config, "max_concurrency", int, "a positive integer", default=8)
    if timeout <= 0 or concurrency < 1:
        raise ValueError("responder config: 'timeout_s' and 'max_concurrency' must be positive")
    return ChatClient(
        Endpoint(base_url, model, api_key), max_concurrency=concurrency, timeout_s=float(timeout), max_retries=2
    )


def responder_from_config(
    config: Mapping[str, Any],
    *,
    secrets: Callable[[str], str] | None = None,
    name: str | None = None,
    setting: str = "search",
) -> Responder:
    """A responder from an arena model's JSON configuration (see :data:`DEFAULT_RESPONDERS`):

    - ``{"kind": "extractive", "strategy": "bm25-sentences" | "lead-passages", "index": "default" | path}``
      (or ``"search": {...}`` for another backend);
    - ``{"kind": "search_tool", "base_url": ..., "model": ..., "api_key_ref": ..., "search":
      {"backend": "local" | "searxng", ...}, "max_sources": 5}``;
    - ``{"kind": "hosted", "style": "perplexity" | "openai" | "gemini", "base_url": ..., "model": ...,
      "api_key_ref": ..., "extra": {request fields, e.g. web_search_options},
      "without_search": {"model": ..., "extra": {...}} (optional: how to ask it without search)}``;
    - ``{"kind": "chat", "base_url": ..., "model": ..., "api_key_ref": ..., "extra": {...}}``: a plain model.

    ``setting`` is the arena setting of the battle ("search" or "chat"): in "chat" a model contestant
    answers without search (:mod:`evaluators.arena.plain_chat`); a contestant that cannot is refused.

    ``secrets`` resolves ``api_key_ref`` to the key. A bad config raises ValueError naming the key.
    """
    kind = _kind(config)
    label = name or _require(config, "name", str, "a display name", default=str(config.get("model") or kind))
    description = _require(config, "description", str, "text", default=None)
    search = _require(config, "search", Mapping, 'an object like {"backend": "local"}', default=None)
    max_sources = _require(config, "max_sources", int, "a positive integer", default=None)
    if max_sources is not None and not 1 <= max_sources <= 20:
        raise ValueError(f"responder config: 'max_sources' must be between 1 and 20, got {max_sources}")
    if setting not in settings_of(config):
        raise ValueError(
            f"setting: a {kind!r} contestant cannot answer in the {check_setting(setting)!r} setting"
            + (" (give 'without_search' to name its non-search model)" if kind == "hosted" else "")
        )

    if kind == "extractive":
        return _extractive(config, label, search, max_sources, description)
    max_tokens = _require(config, "max_tokens", int, "a positive integer", default=1024)
    temperature = float(_require(config, "temperature", (int, float), "a number", default=0.3))
    if kind == "chat" or setting == "chat":
        plain, extra = _without_search(config)
        return PlainChatResponder(
            label,
            _client(plain, secrets),
            max_tokens=max_tokens,
            temperature=temperature,
            extra=extra,
            description=description if kind == "chat" else None,
        )
    client = _client(config, secrets)
    if kind == "search_tool":
        return SearchToolResponder(
            label,
            client,
            _backend(search or {"backend": "local"}),
            max_sources=max_sources or 5,
            max_tokens=max_tokens,
            temperature=temperature,
            rewrite_query=bool(_require(config, "rewrite_query", bool, "true or false", default=False)),
            description=description,
        )
    style = _require(config, "style", str, f"one of {HOSTED_STYLES}")
    if style not in HOSTED_STYLES:
        raise ValueError(f"responder config: 'style' must be one of {HOSTED_STYLES}, got {style!r}")
    return HostedSearchResponder(
        label,
        client,
        style,
        max_tokens=max_tokens,
        temperature=temperature,
        extra=dict(_require(config, "extra", Mapping, "an object of request fields", default={})),
        description=description,
    )


def _kind(config: Mapping[str, Any]) -> str:
    """The config's ``kind``, once it is an object of that kind's keys only (ValueError naming the key)."""
    if not isinstance(config, Mapping):
        raise ValueError(f"responder config must be a JSON object, got {type(config).__name__}")
    kind = config.get("kind")
    if kind not in _KEYS:
        raise ValueError(f"responder config: 'kind' must be one of {KINDS}, got {kind!r}")
    unknown = sorted(set(config) - _KEYS[kind])
    if unknown:
        raise ValueError(
            f"responder config: unknown key(s) {unknown} for kind {kind!r} (allowed: {sorted(_KEYS[kind])})"
        )
    return str(kind)


def _extractive(
    config: Mapping[str, Any],
    label: str,
    search: Mapping[str, Any] | None,
    max_sources: int | None,
    description: str | None,
) -> ExtractiveResponder:
    """An extractive contestant: sentences or lead passages of the search results, no model."""
    strategy = _require(config, "strategy", str, f"one of {STRATEGIES}", default="bm25-sentences")
    if strategy not in STRATEGIES:
        raise ValueError(f"responder config: 'strategy' must be one of {STRATEGIES}, got {strategy!r}")
    if search is not None and "index" in config:
        raise ValueError("responder config: give either 'index' or 'search', not both")
    index = _require(config, "index", str, "'default' or a path to an index", default="default")
    search_config = search if search is not None else {"backend": "local", "index": index}
    # sentences are picked from whole passages; lead snippets are the index's own snippets
    backend = _backend(search_config, snippet_tokens=None if strategy == "bm25-sentences" else 40)
    return ExtractiveResponder(
        label,
        backend,
        strategy=strategy,
        max_sources=max_sources,
        max_sentences=_require(config, "max_sentences", int, "a positive integer", default=4),
        delay_s=float(_require(config, "delay_s", (int, float), "seconds", default=0.0)),
        description=description,
    )


def _without_search(config: Mapping[str, Any]) -> tuple[Mapping[str, Any], dict[str, Any]]:
    """The endpoint configuration and request fields of a model contestant asked without search: a plain
    model's own; a search tool's model without the results; a hosted model's ``without_search``."""
    if config["kind"] == "chat":
        return config, dict(_require(config, "extra", Mapping, "an object of request fields", default={}))
    if config["kind"] == "search_tool":
        return config, {}
    overrides = _require(config, "without_search", Mapping, 'an object like {"model": ..., "extra": {...}}')
    unknown = sorted(set(overrides) - {"model", "extra"})
    if unknown:
        raise ValueError(
            f"responder config: unknown key(s) {unknown} in 'without_search' (allowed: ['extra', 'model'])"
        )
    model = _require(overrides, "model", str, "the model name to ask without search", default=config.get("model"))
    return {**config, "model": model}, dict(
        _require(overrides, "extra", Mapping, "an object of request fields", default={})
    )


def _backend(config: Mapping[str, Any], *, snippet_tokens: int | None = 40) -> SearchBackend:
    try:
        return backend_from_config(config, snippet_tokens=snippet_tokens)
    except ValueError as exc:
        raise ValueError(f"responder config: {exc}") from None
