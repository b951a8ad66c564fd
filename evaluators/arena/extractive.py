"""The arena's extractive responder: no language model, it quotes search results and cites them.

Two strategies that differ in depth and length, so that votes between them mean something:
``"bm25-sentences"`` (the sentences that best match the question, BM25 over the sentences of the top
passages) and ``"lead-passages"`` (the opening snippet of each of the top few results). They make the
embedded default arena work with no GPU and no API key, and say honestly what they are.
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter
from collections.abc import Sequence

from evaluators.arena import citations
from evaluators.arena.conversation import failed_answer, search_query
from evaluators.arena.search import query_terms
from evaluators.arena.streaming import AnswerStream
from evaluators.llm.types import Answer, DeltaCallback, Message, SearchBackend, Source

STRATEGIES = ("bm25-sentences", "lead-passages")

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


def _bm25_rank(
    query: str, candidates: list[tuple[int, str]], *, k1: float = 1.2, b: float = 0.75
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
            tf = counts.get(term, 0) + sum(
                c for w, c in counts.items() if w != term and w.startswith(term) and len(term) >= 4
            )
            if tf:
                idf = math.log(
                    1 + (n - document_frequency.get(term, 0) + 0.5) / (document_frequency.get(term, 0) + 0.5)
                )
                score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(tokens) / average))
        if score > 0:
            scored.append((score, number, sentence))
    return sorted(scored, key=lambda s: -s[0])


class ExtractiveResponder:
    """Answers by quoting search results, no language model (see the module docstring)."""

    def __init__(
        self,
        name: str,
        backend: SearchBackend,
        *,
        strategy: str = "bm25-sentences",
        max_sources: int | None = None,
        max_sentences: int = 4,
        delay_s: float = 0.0,
        piece_words: int = 3,
        description: str | None = None,
    ):
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
            if strategy == "bm25-sentences"
            else f"extractive, no language model: the opening snippet of each of the top {self.max_sources} results "
            f"from the {backend_name} search backend, each cited"
        )

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
            lines = [
                f"- **{(source.title or source.url).replace('*', '')}**: {quote} {marker}"
                for (quote, source), marker in zip(picked, cite)
            ]
            return "Top results:\n\n" + "\n".join(lines), sources
        text = f"{picked[0][0]} {cite[0]}"
        if len(picked) > 1:
            text += "\n\nRelated passages:\n\n" + "\n".join(
                f"- {quote} {marker}" for (quote, _source), marker in zip(picked[1:], cite[1:])
            )
        return text, sorted(sources, key=lambda s: s.number)

    def respond(
        self,
        messages: Sequence[Message],
        *,
        on_delta: DeltaCallback | None = None,
        citation_style: str = "standardized",
    ) -> Answer:
        started = time.monotonic()
        citations.check_style(citation_style)
        query = search_query(messages)
        if not query:
            return failed_answer(
                "the conversation has no user prompt to answer", started=started, citation_style=citation_style
            )
        call = self.backend.search(query, limit=self.max_sources)
        if call.error:
            return failed_answer(
                f"search failed: {call.error}", searches=[call], started=started, citation_style=citation_style
            )
        picked = self._pick(query, call.results)
        if picked:
            text, sources = self._compose(picked, citation_style)
        else:
            text, sources = "I found no passages about this in the search index, so I have no answer to quote.", []
        stream = AnswerStream(on_delta)
        words = re.split(r"(?<=\s)", text)
        for i in range(0, len(words), self.piece_words):
            if i and self.delay_s:
                time.sleep(self.delay_s)
            stream.feed("".join(words[i : i + self.piece_words]))
        return Answer(
            text=text,
            sources=sources,
            searches=[call],
            citation_style=citation_style,
            finish_reason="stop",
            latency_s=time.monotonic() - started,
        )
