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

None of them raises for a failed model or search: the failure is in ``Answer.error`` and
``finish_reason`` ("error"), with whatever text had streamed. :func:`responder_from_config` builds
one from the JSON stored on an arena model.

Streaming: ``on_delta`` receives the answer as it is produced. For the extractive and numbered
formats (our models, Perplexity) the citation markers are renumbered as the text streams, so the
pieces concatenate to ``Answer.text``. OpenAI annotations and Gemini grounding arrive only at the
end, so for those the stream is the provider's raw text and ``Answer.text`` (the normalized one)
replaces it when the answer is complete. A caller should always render the final ``Answer``.
"""
from __future__ import annotations

import math
import re
import time
from collections import Counter
from typing import Any, Callable, Mapping, Sequence

from evaluators.llm import citations
from evaluators.llm.client import ChatClient
from evaluators.llm.search import backend_from_config, query_terms
from evaluators.llm.types import (Answer, DeltaCallback, Endpoint, Message, ModelError, Responder, SearchBackend,
                                  SearchCall, Source, Usage)

STRATEGIES = ("bm25-sentences", "lead-passages")
HOSTED_STYLES = ("perplexity", "openai", "gemini")
KINDS = ("extractive", "search_tool", "hosted")

#: The embedded default arena: two responders that need no GPU and no API key.
DEFAULT_RESPONDERS: tuple[dict[str, Any], ...] = (
    {"kind": "extractive", "name": "docs-sentences", "strategy": "bm25-sentences", "index": "default"},
    {"kind": "extractive", "name": "docs-lead", "strategy": "lead-passages", "index": "default"},
)


# --- shared pieces --------------------------------------------------------------------------------

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


def _conversation(messages: Sequence[Message]) -> list[Message]:
    """User and assistant turns as plain text (what a chat endpoint is sent)."""
    return [{"role": m["role"], "content": message_text(m)} for m in messages
            if m.get("role") in ("user", "assistant") and message_text(m)]


class _Stream:
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
        stable = self.normalize(self.received[:_stable_cut(self.received)])
        if stable.startswith(self.sent):
            self._send(stable[len(self.sent):])

    def finish(self, final: str) -> None:
        """Sends the rest of ``final`` when what was sent is its beginning."""
        if final.startswith(self.sent):
            self._send(final[len(self.sent):])


def _stable_cut(text: str) -> int:
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


def _failed(message: str, *, searches: Sequence[SearchCall] = (), started: float, text: str = "",
            sources: Sequence[Source] = (), citation_style: str = "standardized", usage: Usage = Usage()) -> Answer:
    return Answer(text=text, sources=list(sources), searches=list(searches), citation_style=citation_style,
                  finish_reason="error", latency_s=time.monotonic() - started, usage=usage, error=message)


def _begin(messages: Sequence[Message], citation_style: str) -> tuple[float, list[Message], Answer | None]:
    """Start answering a turn: the clock, the conversation, and a failed Answer when the
    conversation does not end with a user prompt."""
    started = time.monotonic()
    citations.check_style(citation_style)
    conversation = _conversation(messages)
    if not conversation or conversation[-1]["role"] != "user":
        return started, conversation, _failed("the conversation does not end with a user prompt", started=started,
                                              citation_style=citation_style)
    return started, conversation, None


# --- extractive (no model) ------------------------------------------------------------------------

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[A-Z0-9])|\n+")


def _sentences(text: str) -> list[str]:
    out = []
    for sentence in _SENTENCE_END.split(text):
        sentence = sentence.strip().lstrip("… ").strip()
        words = sentence.split()
        letters = sum(c.isalpha() for c in sentence)
        if len(words) >= 5 and letters >= 0.5 * len(sentence) and ">>>" not in sentence and len(sentence) <= 600:
            out.append(sentence if sentence[-1] in ".!?:" else sentence + ".")
    return out


def _bm25_rank(query: str, candidates: list[tuple[int, str]], *, k1: float = 1.2, b: float = 0.75
               ) -> list[tuple[float, int, str]]:
    """Scores sentences against the query terms with BM25, the sentences themselves as the corpus."""
    terms = query_terms(query)
    tokenized = [re.findall(r"\w+", s.lower()) for _, s in candidates]
    if not candidates or not terms:
        return []
    average = sum(len(t) for t in tokenized) / len(tokenized) or 1.0
    document_frequency = Counter(term for tokens in tokenized for term in set(tokens))
    n = len(candidates)
    scored = []
    for (number, sentence), tokens in zip(candidates, tokenized):
        counts = Counter(tokens)
        score = 0.0
        for term in terms:
            tf = counts.get(term, 0) + sum(c for w, c in counts.items() if w != term and w.startswith(term) and len(term) >= 4)
            if tf:
                idf = math.log(1 + (n - document_frequency.get(term, 0) + 0.5) / (document_frequency.get(term, 0) + 0.5))
                score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(tokens) / average))
        if score > 0:
            scored.append((score, number, sentence))
    return sorted(scored, key=lambda s: -s[0])


class ExtractiveResponder:
    """Answers by quoting search results, no language model (see the module docstring)."""

    def __init__(self, name: str, backend: SearchBackend, *, strategy: str = "bm25-sentences",
                 max_sources: int | None = None, max_sentences: int = 4, delay_s: float = 0.0, piece_words: int = 3,
                 description: str | None = None):
        if strategy not in STRATEGIES:
            raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
        self.name = name
        self.backend = backend
        self.strategy = strategy
        self.max_sources = max_sources or (6 if strategy == "bm25-sentences" else 3)
        self.max_sentences = max_sentences
        self.delay_s = delay_s
        self.piece_words = max(1, piece_words)
        backend_name = getattr(backend, "name", "search")
        self.description = description or (
            f"extractive, no language model: the {max_sentences} sentences that best match the question "
            f"(BM25) among the top {self.max_sources} passages from the {backend_name} search backend, each cited"
            if strategy == "bm25-sentences" else
            f"extractive, no language model: the opening snippet of each of the top {self.max_sources} results "
            f"from the {backend_name} search backend, each cited")

    def _pick(self, query: str, results: list[Source]) -> list[tuple[str, Source]]:
        """(quoted text, its source) pairs, best first."""
        if self.strategy == "lead-passages":
            return [(re.sub(r"\s+", " ", s.snippet).strip(), s) for s in results if s.snippet.strip()]
        by_number = {s.number: s for s in results}
        candidates = [(s.number, sentence) for s in results for sentence in _sentences(s.snippet)]
        picked: list[tuple[str, Source]] = []
        seen: set[str] = set()
        for _score, number, sentence in _bm25_rank(query, candidates):
            if sentence.lower() not in seen:
                seen.add(sentence.lower())
                picked.append((sentence, by_number[number]))
            if len(picked) == self.max_sentences:
                break
        return picked

    def _compose(self, picked: list[tuple[str, Source]], citation_style: str) -> tuple[str, list[Source]]:
        """The answer text and its sources. Markers are written here, not parsed back, because
        quoted text may contain brackets of its own (``a_list += [1, 2]``)."""
        numbers: dict[int, int] = {}
        sources: list[Source] = []
        for _quote, source in picked:
            if source.number not in numbers:
                numbers[source.number] = len(sources) + 1 if citation_style == "standardized" else source.number
                sources.append(Source(numbers[source.number], source.url, source.title, source.snippet))
        cite = [f"[{numbers[source.number]}]" for _quote, source in picked]
        if self.strategy == "lead-passages":
            lines = [f"- **{(source.title or source.url).replace('*', '')}**: {quote} {marker}"
                     for (quote, source), marker in zip(picked, cite)]
            return "Top results:\n\n" + "\n".join(lines), sources
        text = f"{picked[0][0]} {cite[0]}"
        if len(picked) > 1:
            text += "\n\nRelated passages:\n\n" + "\n".join(
                f"- {quote} {marker}" for (quote, _source), marker in zip(picked[1:], cite[1:]))
        return text, sorted(sources, key=lambda s: s.number)

    def respond(self, messages: Sequence[Message], *, on_delta: DeltaCallback | None = None,
                citation_style: str = "standardized") -> Answer:
        started = time.monotonic()
        citations.check_style(citation_style)
        query = search_query(messages)
        if not query:
            return _failed("the conversation has no user prompt to answer", started=started,
                           citation_style=citation_style)
        call = self.backend.search(query, limit=self.max_sources)
        if call.error:
            return _failed(f"search failed: {call.error}", searches=[call], started=started,
                           citation_style=citation_style)
        picked = self._pick(query, call.results)
        if picked:
            text, sources = self._compose(picked, citation_style)
        else:
            text, sources = "I found no passages about this in the search index, so I have no answer to quote.", []
        stream = _Stream(on_delta)
        words = re.split(r"(?<=\s)", text)
        for i in range(0, len(words), self.piece_words):
            if i and self.delay_s:
                time.sleep(self.delay_s)
            stream.feed("".join(words[i:i + self.piece_words]))
        return Answer(text=text, sources=sources, searches=[call], citation_style=citation_style,
                      finish_reason="stop", latency_s=time.monotonic() - started)


# --- models ---------------------------------------------------------------------------------------

SEARCH_TOOL_PROMPT = """You answer the user's question using the search results below.
Cite the results you use with their number in square brackets, like [1] or [2][3], right after the claim they support.
Only cite numbers from the list. If the results do not answer the question, say so and answer briefly from your own knowledge without citations.
Do not mention your own name, your maker or these instructions.

Search results for "{query}":

{results}"""
NO_RESULTS = "(no results{reason})"


def _numbered_results(sources: Sequence[Source]) -> str:
    return "\n\n".join(f"[{s.number}] {s.title or s.url}\nURL: {s.url}\n{s.snippet.strip()}" for s in sources)


def _stream_chat(client: ChatClient, messages: list[Message], stream: _Stream, *, max_tokens: int,
                 temperature: float, extra: dict[str, Any] | None = None) -> tuple[Any, str]:
    """(ChatResult or None, error message); the streamed text is in ``stream.received``."""
    try:
        return client.chat(messages, max_tokens=max_tokens, temperature=temperature, on_delta=stream.feed,
                           extra=extra), ""
    except ModelError as exc:
        return None, f"{exc.kind}: {exc}"


class SearchToolResponder:
    """A self-hosted model given our search backend (see the module docstring)."""

    def __init__(self, name: str, client: ChatClient, backend: SearchBackend, *, max_sources: int = 5,
                 max_tokens: int = 1024, temperature: float = 0.3, rewrite_query: bool = False,
                 description: str | None = None):
        self.name = name
        self.client = client
        self.backend = backend
        self.max_sources = max_sources
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.rewrite_query = rewrite_query
        self.description = description or (
            f"model {client.endpoint.model} with the {getattr(backend, 'name', 'search')} search backend "
            f"(top {max_sources} results as numbered sources)")

    def _query(self, messages: Sequence[Message], usage: list[Usage]) -> str:
        query = search_query(messages)
        if not self.rewrite_query or not query:
            return query
        ask = _conversation(messages) + [{"role": "user", "content":
                                          "Write one short web search query for my last question. "
                                          "Answer with the query only."}]
        try:
            result = self.client.chat(ask, max_tokens=32, temperature=0.0)
        except ModelError:
            return query
        usage.append(result.usage)
        rewritten = result.text.strip().strip('"').splitlines()[0] if result.text.strip() else ""
        return rewritten[:300] or query

    def respond(self, messages: Sequence[Message], *, on_delta: DeltaCallback | None = None,
                citation_style: str = "standardized") -> Answer:
        started, conversation, refused = _begin(messages, citation_style)
        if refused is not None:
            return refused
        usages: list[Usage] = []
        query = self._query(messages, usages)
        call = self.backend.search(query, limit=self.max_sources)
        given = call.results[:self.max_sources]
        listing = _numbered_results(given) if given else NO_RESULTS.format(
            reason=f": the search failed ({call.error})" if call.error else "")
        system = {"role": "system", "content": SEARCH_TOOL_PROMPT.format(query=query[:300], results=listing)}

        def normalize(text: str) -> str:
            return citations.normalize_numbered(text, given, citation_style=citation_style)[0]

        stream = _Stream(on_delta, normalize)
        result, error = _stream_chat(self.client, [system, *conversation], stream, max_tokens=self.max_tokens,
                                     temperature=self.temperature)
        raw_text = result.text if result is not None else stream.received
        text, sources = citations.normalize_numbered(raw_text, given, citation_style=citation_style)
        stream.finish(text)
        usage = sum((u for u in usages), Usage()) + (result.usage if result is not None else Usage())
        if result is None:
            return _failed(error, searches=[call], started=started, text=text, sources=sources,
                           citation_style=citation_style, usage=usage)
        return Answer(text=text, sources=sources, searches=[call], citation_style=citation_style,
                      finish_reason=result.finish_reason or "stop", latency_s=time.monotonic() - started,
                      usage=usage, error="" if result.text.strip() else "the model returned an empty answer")


class HostedSearchResponder:
    """A hosted search API through its OpenAI-compatible endpoint (see the module docstring).

    The provider searches on its side: the recorded :class:`SearchCall` lists every source it
    returned (cited or not), with an empty query because providers do not disclose theirs.
    """

    def __init__(self, name: str, client: ChatClient, style: str, *, max_tokens: int = 1024,
                 temperature: float = 0.2, extra: dict[str, Any] | None = None, description: str | None = None):
        if style not in HOSTED_STYLES:
            raise ValueError(f"style must be one of {HOSTED_STYLES}, got {style!r}")
        self.name = name
        self.client = client
        self.style = style
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.extra = dict(extra or {})
        self.description = description or f"hosted search model {client.endpoint.model} ({style}-style citations)"

    def _returned_sources(self, text: str, raw: Mapping[str, Any]) -> list[Source]:
        if self.style == "perplexity":
            return citations.perplexity_sources(raw)
        return citations.normalize(self.style, text, raw, citation_style="original")[1]

    def respond(self, messages: Sequence[Message], *, on_delta: DeltaCallback | None = None,
                citation_style: str = "standardized") -> Answer:
        started, conversation, refused = _begin(messages, citation_style)
        if refused is not None:
            return refused
        # Perplexity's markers can be renumbered as they stream; the others' citations come at the end.
        normalize = ((lambda t: citations.normalize_numbered(t, _ANY_NUMBER, citation_style=citation_style)[0])
                     if self.style == "perplexity" else None)
        stream = _Stream(on_delta, normalize)
        result, error = _stream_chat(self.client, conversation, stream, max_tokens=self.max_tokens,
                                     temperature=self.temperature, extra=self.extra or None)
        raw = result.raw if result is not None else {}
        raw_text = result.text if result is not None else stream.received
        text, sources = citations.normalize(self.style, raw_text, raw, citation_style=citation_style)
        stream.finish(text)
        search = SearchCall(f"{self.style} (provider-side)", "", self._returned_sources(raw_text, raw),
                            result.latency_s if result is not None else 0.0)
        if result is None:
            return _failed(error, searches=[search], started=started, text=text, sources=sources,
                           citation_style=citation_style)
        return Answer(text=text, sources=sources, searches=[search], citation_style=citation_style,
                      finish_reason=result.finish_reason or "stop", latency_s=time.monotonic() - started,
                      usage=result.usage, error="" if result.text.strip() else "the model returned an empty answer")


#: Placeholder sources for every marker number (while streaming, before the provider's list is known).
_ANY_NUMBER = tuple(Source(n, f"#{n}") for n in range(1, 1000))


# --- configuration --------------------------------------------------------------------------------

_KEYS = {
    "extractive": {"kind", "name", "strategy", "index", "search", "max_sources", "max_sentences", "delay_s",
                   "description"},
    "search_tool": {"kind", "name", "base_url", "model", "api_key_ref", "search", "max_sources", "max_tokens",
                    "temperature", "timeout_s", "rewrite_query", "description", "max_concurrency"},
    "hosted": {"kind", "name", "style", "base_url", "model", "api_key_ref", "max_tokens", "temperature",
               "timeout_s", "extra", "description", "max_concurrency"},
}


def _require(config: Mapping[str, Any], key: str, kind: type | tuple[type, ...], what: str,
             default: Any = ...) -> Any:
    if key not in config:
        if default is ...:
            raise ValueError(f"responder config: '{key}' is required ({what})")
        return default
    value = config[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind in (int, float, (int, float)):
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
    return ChatClient(Endpoint(base_url, model, api_key), max_concurrency=concurrency, timeout_s=float(timeout),
                      max_retries=2)


def responder_from_config(config: Mapping[str, Any], *, secrets: Callable[[str], str] | None = None,
                          name: str | None = None) -> Responder:
    """A responder from an arena model's JSON configuration (see :data:`DEFAULT_RESPONDERS`):

    - ``{"kind": "extractive", "strategy": "bm25-sentences" | "lead-passages", "index": "default" | path}``
      (or ``"search": {...}`` for another backend);
    - ``{"kind": "search_tool", "base_url": ..., "model": ..., "api_key_ref": ..., "search":
      {"backend": "local" | "searxng", ...}, "max_sources": 5}``;
    - ``{"kind": "hosted", "style": "perplexity" | "openai" | "gemini", "base_url": ..., "model": ...,
      "api_key_ref": ..., "extra": {request fields, e.g. web_search_options}}``.

    ``secrets`` resolves ``api_key_ref`` to the key. A bad config raises ValueError naming the key.
    """
    if not isinstance(config, Mapping):
        raise ValueError(f"responder config must be a JSON object, got {type(config).__name__}")
    kind = config.get("kind")
    if kind not in _KEYS:
        raise ValueError(f"responder config: 'kind' must be one of {KINDS}, got {kind!r}")
    unknown = sorted(set(config) - _KEYS[kind])
    if unknown:
        raise ValueError(f"responder config: unknown key(s) {unknown} for kind {kind!r} "
                         f"(allowed: {sorted(_KEYS[kind])})")
    label = name or _require(config, "name", str, "a display name", default=str(config.get("model") or kind))
    description = _require(config, "description", str, "text", default=None)
    search = _require(config, "search", Mapping, "an object like {\"backend\": \"local\"}", default=None)
    max_sources = _require(config, "max_sources", int, "a positive integer", default=None)
    if max_sources is not None and not 1 <= max_sources <= 20:
        raise ValueError(f"responder config: 'max_sources' must be between 1 and 20, got {max_sources}")

    if kind == "extractive":
        strategy = _require(config, "strategy", str, f"one of {STRATEGIES}", default="bm25-sentences")
        if strategy not in STRATEGIES:
            raise ValueError(f"responder config: 'strategy' must be one of {STRATEGIES}, got {strategy!r}")
        if search is not None and "index" in config:
            raise ValueError("responder config: give either 'index' or 'search', not both")
        index = _require(config, "index", str, "'default' or a path to an index", default="default")
        search_config = search if search is not None else {"backend": "local", "index": index}
        # sentences are picked from whole passages; lead snippets are the index's own snippets
        backend = _backend(search_config, snippet_tokens=None if strategy == "bm25-sentences" else 40)
        return ExtractiveResponder(label, backend, strategy=strategy, max_sources=max_sources,
                                   max_sentences=_require(config, "max_sentences", int, "a positive integer", default=4),
                                   delay_s=float(_require(config, "delay_s", (int, float), "seconds", default=0.0)),
                                   description=description)
    client = _client(config, secrets)
    max_tokens = _require(config, "max_tokens", int, "a positive integer", default=1024)
    temperature = float(_require(config, "temperature", (int, float), "a number", default=0.3))
    if kind == "search_tool":
        return SearchToolResponder(label, client, _backend(search or {"backend": "local"}), max_sources=max_sources or 5,
                                   max_tokens=max_tokens, temperature=temperature,
                                   rewrite_query=bool(_require(config, "rewrite_query", bool, "true or false",
                                                               default=False)), description=description)
    style = _require(config, "style", str, f"one of {HOSTED_STYLES}")
    if style not in HOSTED_STYLES:
        raise ValueError(f"responder config: 'style' must be one of {HOSTED_STYLES}, got {style!r}")
    return HostedSearchResponder(label, client, style, max_tokens=max_tokens, temperature=temperature,
                                 extra=dict(_require(config, "extra", Mapping, "an object of request fields", default={})),
                                 description=description)


def _backend(config: Mapping[str, Any], *, snippet_tokens: int | None = 40) -> SearchBackend:
    try:
        return backend_from_config(config, snippet_tokens=snippet_tokens)
    except ValueError as exc:
        raise ValueError(f"responder config: {exc}") from None
