"""Citations: the hosted search APIs' formats and our own, normalized into one trace, and rendered.

Every function here returns ``(text, sources)``: the answer text and the list of :class:`Source` its
markers point to. Two citation styles are produced (the arena records the choice per side):

- ``"standardized"``: markers rewritten to ``[n]``, numbered 1, 2, ... by first appearance in the
  text; a source cited twice keeps its number; sources renumbered to match and listed in that order.
  Only cited sources are listed (the searches behind an answer keep everything that was retrieved).
- ``"original"``: the provider's own text is kept as it came (Perplexity's ``[n]``, OpenAI's inline
  markdown links, Gemini's unmarked prose); the sources are listed with the provider's numbering.

Formats read:

- **Perplexity**: top-level ``citations`` (URLs) and/or ``search_results`` ({title, url, snippet}),
  markers ``[1]`` in the text pointing at those lists (1-based).
- **OpenAI**: ``message.annotations`` of type ``url_citation`` with ``{url, title, start_index,
  end_index}`` (character offsets). The annotated span is usually an inline markdown link
  ``([title](url))``; it is replaced by the marker. A span that is not a link gets the marker
  inserted at ``end_index``.
- **Gemini**: ``groundingMetadata`` with ``groundingChunks[].web {uri, title}`` and
  ``groundingSupports[] {segment {startIndex, endIndex, text}, groundingChunkIndices}``; the indices
  are UTF-8 *byte* offsets, converted here to character offsets. Markers go at each segment's end.
- **Numbered** (our self-hosted models, given numbered sources in the prompt): ``[n]``, ``[n, m]``,
  ``[n][m]``, ``[n-m]`` ranges, ``【n】`` and ``【n†source】``. Bare ``(n)`` is *not* read as a citation:
  it is far more often list numbering or arithmetic. Markers pointing to no given source are dropped.

Markers inside code (fenced blocks and inline backticks) are never touched: ``a[1]`` is Python.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from evaluators.llm.types import Answer, Source

STYLES = ("standardized", "original")
FORMATS = ("perplexity", "openai", "gemini", "numbered")

# [3] | [1, 2] | [1,2-4] | 【5】 | 【5†source】
_MARKER = re.compile(r"(?P<space>[ \t]*)(?:\[(\d{1,3}(?:\s*[,–-]\s*\d{1,3})*)\](?!\()|【(\d{1,3})(?:†[^】]*)?】)")
_CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]+`", re.S)


def check_style(style: str) -> None:
    if style not in STYLES:
        raise ValueError(f"citation_style must be one of {STYLES}, got {style!r}")


def _prose_segments(text: str) -> Iterator[tuple[str, bool]]:
    """Split text into (piece, is_code) so that markers are only read in prose."""
    pos = 0
    for match in _CODE.finditer(text):
        if match.start() > pos:
            yield text[pos : match.start()], False
        yield match.group(0), True
        pos = match.end()
    if pos < len(text):
        yield text[pos:], False


def _marker_numbers(body: str) -> list[int]:
    numbers: list[int] = []
    for part in re.split(r"\s*,\s*", body):
        bounds = re.split(r"\s*[–-]\s*", part)
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            low, high = int(bounds[0]), int(bounds[1])
            if low <= high and high - low < 20:
                numbers.extend(range(low, high + 1))
        elif part.isdigit():
            numbers.append(int(part))
    return numbers


class _Renumbering:
    """Assigns display numbers by first appearance and collects the cited sources in that order."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}
        self.sources: list[Source] = []

    def number_for(self, source: Source) -> int:
        key = source.url or f"#{source.number}:{source.title}"
        if key not in self.numbers:
            self.numbers[key] = len(self.sources) + 1
            self.sources.append(Source(len(self.sources) + 1, source.url, source.title, source.snippet))
        return self.numbers[key]

    def markers(self, sources: Iterable[Source]) -> str:
        seen: list[int] = []
        for source in sources:
            number = self.number_for(source)
            if number not in seen:
                seen.append(number)
        return "".join(f"[{n}]" for n in seen)


def normalize_numbered(
    text: str, sources: Sequence[Source], *, citation_style: str = "standardized"
) -> tuple[str, list[Source]]:
    """Markers ``[n]`` (and the variants in the module docstring) that point at ``sources`` by their
    ``number``. Unknown numbers are dropped from the text in both styles."""
    check_style(citation_style)
    by_number = {s.number: s for s in sources}
    renumber = _Renumbering()
    cited_original: dict[int, Source] = {}
    out: list[str] = []
    for piece, is_code in _prose_segments(text):
        if is_code:
            out.append(piece)
            continue

        def replace(match: re.Match[str]) -> str:
            numbers = _marker_numbers(match.group(2)) if match.group(2) else [int(match.group(3))]
            known = [by_number[n] for n in numbers if n in by_number]
            if not known:  # a marker pointing to no source goes, with the space before it
                return ""
            for s in known:
                cited_original.setdefault(s.number, s)
            if citation_style == "original":
                return match.group(0)
            return match.group("space") + renumber.markers(known)

        out.append(_MARKER.sub(replace, piece))
    result = "".join(out)
    if citation_style == "original":
        return result, [cited_original[n] for n in sorted(cited_original)]
    return result, renumber.sources


# --- Perplexity -----------------------------------------------------------------------------------


def perplexity_sources(raw: Mapping[str, Any]) -> list[Source]:
    """Sources 1..N from ``search_results`` (preferred: titles and snippets) or ``citations``."""
    results = raw.get("search_results") or []
    if isinstance(results, list) and results:
        return [
            Source(i, str(r.get("url", "")), str(r.get("title") or ""), str(r.get("snippet") or ""))
            for i, r in enumerate(results, 1)
            if isinstance(r, Mapping)
        ]
    citations = raw.get("citations") or []
    return [Source(i, str(url)) for i, url in enumerate(citations, 1) if isinstance(url, str)]


def from_perplexity(
    text: str, raw: Mapping[str, Any], *, citation_style: str = "standardized"
) -> tuple[str, list[Source]]:
    return normalize_numbered(text, perplexity_sources(raw), citation_style=citation_style)


# --- OpenAI ---------------------------------------------------------------------------------------

# a URL may hold one level of parentheses: https://en.wikipedia.org/wiki/Python_(programming_language)
_URL_IN_PARENS = r"\((?:[^()\s]|\([^()\s]*\))+\)"
_MD_LINK = re.compile(r"^\s*\(?\s*\[[^\]]*\]" + _URL_IN_PARENS + r"\s*\)?\s*$")


@dataclass(frozen=True)
class _Insertion:
    start: int
    end: int
    replace: bool
    source: Source


def _apply(text: str, insertions: list[_Insertion], citation_style: str) -> tuple[str, list[Source]]:
    """Replace or insert markers at the given character spans (sorted by position), numbering the
    sources by first appearance."""
    renumber = _Renumbering()
    insertions = sorted(insertions, key=lambda ins: (ins.end, ins.start))
    if citation_style == "original":
        for ins in insertions:
            renumber.number_for(ins.source)
        return text, renumber.sources
    out: list[str] = []
    pos = 0
    i = 0
    while i < len(insertions):
        group = [insertions[i]]
        while (
            i + 1 < len(insertions)
            and insertions[i + 1].end == group[0].end
            and insertions[i + 1].start == group[0].start
        ):
            i += 1
            group.append(insertions[i])
        first = group[0]
        cut = first.start if first.replace else first.end
        if cut >= pos:
            out.append(text[pos:cut])
            # a replaced link usually sits after a space: "claim ([t](u))." -> "claim [1]."
            if first.replace and out and out[-1].endswith(" "):
                out[-1] = out[-1].rstrip(" ")
            pos = first.end
        out.append(renumber.markers(ins.source for ins in group))
        i += 1
    out.append(text[pos:])
    return "".join(out), renumber.sources


def from_openai(
    text: str, annotations: Sequence[Mapping[str, Any]] | None, *, citation_style: str = "standardized"
) -> tuple[str, list[Source]]:
    """OpenAI ``url_citation`` annotations (character offsets into ``text``)."""
    check_style(citation_style)
    insertions: list[_Insertion] = []
    for annotation in annotations or []:
        if not isinstance(annotation, Mapping) or annotation.get("type", "url_citation") != "url_citation":
            continue
        cite = annotation.get("url_citation") or annotation
        url = str(cite.get("url") or "")
        if not url:
            continue
        source = Source(0, url, str(cite.get("title") or ""))
        start, end = cite.get("start_index"), cite.get("end_index")
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(text)):
            start = end = len(text)
        span = text[start:end]
        insertions.append(_Insertion(start, end, bool(span) and bool(_MD_LINK.match(span)), source))
    return _apply(text, insertions, citation_style)


# --- Gemini ---------------------------------------------------------------------------------------


def _get(mapping: Mapping[str, Any], camel: str) -> Any:
    """Gemini's REST API is camelCase; its SDKs and proxies often snake_case the same fields."""
    if camel in mapping:
        return mapping[camel]
    return mapping.get(re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), camel))


def find_grounding_metadata(raw: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """Where grounding metadata sits in a Gemini response (native ``candidates[0]``, top level, or
    an OpenAI-compatible proxy's message)."""
    places: list[Any] = [raw, raw.get("message") or {}]
    candidates = raw.get("candidates")
    if isinstance(candidates, list) and candidates:
        places.insert(0, candidates[0])
    for place in places:
        if isinstance(place, Mapping):
            found = _get(place, "groundingMetadata")
            if isinstance(found, Mapping):
                return found
    return None


def _char_offset(encoded: bytes, byte_offset: int) -> int:
    return len(encoded[: max(0, byte_offset)].decode("utf-8", errors="ignore"))


def from_gemini(
    text: str, metadata: Mapping[str, Any] | None, *, citation_style: str = "standardized"
) -> tuple[str, list[Source]]:
    """Gemini grounding: markers at each supported segment's end (byte offsets -> characters)."""
    check_style(citation_style)
    if not metadata:
        return text, []
    chunks = []
    for chunk in _get(metadata, "groundingChunks") or []:
        web = (_get(chunk, "web") or {}) if isinstance(chunk, Mapping) else {}
        chunks.append(Source(0, str(web.get("uri") or ""), str(web.get("title") or "")))
    encoded = text.encode("utf-8")
    insertions: list[_Insertion] = []
    for support in _get(metadata, "groundingSupports") or []:
        if not isinstance(support, Mapping):
            continue
        segment = _get(support, "segment") or {}
        end_byte = _get(segment, "endIndex")
        segment_text = str(segment.get("text") or "")
        if isinstance(end_byte, int) and 0 <= end_byte <= len(encoded):
            end = _char_offset(encoded, end_byte)
        elif segment_text and segment_text in text:
            end = text.index(segment_text) + len(segment_text)
        else:
            continue
        for index in _get(support, "groundingChunkIndices") or []:
            if isinstance(index, int) and 0 <= index < len(chunks) and chunks[index].url:
                insertions.append(_Insertion(end, end, False, chunks[index]))
    return _apply(text, insertions, citation_style)


def normalize(
    fmt: str,
    text: str,
    raw: Mapping[str, Any] | None = None,
    *,
    sources: Sequence[Source] = (),
    citation_style: str = "standardized",
) -> tuple[str, list[Source]]:
    """One entry point for the four formats: ``raw`` is the provider's response (``ChatResult.raw``);
    ``sources`` the numbered sources we gave a self-hosted model."""
    raw = raw or {}
    if fmt == "perplexity":
        return from_perplexity(text, raw, citation_style=citation_style)
    if fmt == "openai":
        found = raw.get("message")
        message: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
        return from_openai(text, message.get("annotations") or raw.get("annotations"), citation_style=citation_style)
    if fmt == "gemini":
        return from_gemini(text, find_grounding_metadata(raw), citation_style=citation_style)
    if fmt == "numbered":
        return normalize_numbered(text, sources, citation_style=citation_style)
    raise ValueError(f"citation format must be one of {FORMATS}, got {fmt!r}")


# --- HTML -----------------------------------------------------------------------------------------


def safe_url(url: str) -> str | None:
    """The URL if it is an absolute http(s) link, else None (no javascript:, data:, relative...)."""
    url = url.strip()
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc or any(c in url for c in "\x00\n\r\t <>\"'`"):
        return None
    return url


def _link(url: str | None, label_html: str, *, cls: str = "") -> str:
    if url is None:
        return label_html
    klass = f' class="{cls}"' if cls else ""
    return f'<a href="{html.escape(url, quote=True)}"{klass} rel="noopener nofollow" target="_blank">{label_html}</a>'


_INLINE = re.compile(
    r"(?P<code>`[^`\n]+`)"
    r"|\*\*(?P<bold>[^*\n]+?)\*\*"
    r"|\[(?P<label>[^\]\n]+)\](?P<href>" + _URL_IN_PARENS + ")"
    r"|\[(?P<cite>\d{1,3})\]"
)


def _inline(text: str, links: Mapping[int, str | None], *, allow_bold: bool = True) -> str:
    out: list[str] = []
    pos = 0
    for match in _INLINE.finditer(text):
        out.append(html.escape(text[pos : match.start()]))
        pos = match.end()
        if match.group("code"):
            out.append(f"<code>{html.escape(match.group('code')[1:-1])}</code>")
        elif match.group("bold") is not None and allow_bold:
            out.append(f"<strong>{_inline(match.group('bold'), links, allow_bold=False)}</strong>")
        elif match.group("label") is not None:
            out.append(_link(safe_url(match.group("href")[1:-1]), html.escape(match.group("label"))))
        elif match.group("cite") is not None and int(match.group("cite")) in links:
            number = int(match.group("cite"))
            out.append(_link(links[number], f"[{number}]", cls="cite"))
        else:
            out.append(html.escape(match.group(0)))
    out.append(html.escape(text[pos:]))
    return "".join(out)


_LIST_ITEM = re.compile(r"^\s*(?:(?P<bullet>[-*+])|(?P<num>\d{1,3})[.)])\s+(?P<body>.*)$")
_HEADING = re.compile(r"^\s*#{1,6}\s+(?P<body>.*)$")
_FENCE = re.compile(r"```[^\n]*\n?(?P<body>.*?)(?:```|\Z)", re.S)


def _blocks(text: str, links: Mapping[int, str | None]) -> str:
    """Block-level markdown-lite: fenced code, blank-line paragraphs, bullet/numbered lists, headings."""
    out: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    list_kind = ""

    def close() -> None:
        nonlocal list_kind
        if paragraph:
            out.append("<p>" + "<br>".join(_inline(line, links) for line in paragraph) + "</p>")
            paragraph.clear()
        if items:
            out.append(f"<{list_kind}>" + "".join(f"<li>{_inline(i, links)}</li>" for i in items) + f"</{list_kind}>")
            items.clear()
            list_kind = ""

    def prose(piece: str) -> None:
        nonlocal list_kind
        for line in piece.split("\n"):
            item, heading = _LIST_ITEM.match(line), _HEADING.match(line)
            if not line.strip():
                close()
            elif item:
                kind = "ul" if item.group("bullet") else "ol"
                if paragraph or kind != list_kind:
                    close()
                list_kind = kind
                items.append(item.group("body"))
            elif heading:
                close()
                out.append(f"<p><strong>{_inline(heading.group('body'), links, allow_bold=False)}</strong></p>")
            elif items and line.startswith((" ", "\t")):
                items[-1] += " " + line.strip()
            else:
                if items:
                    close()
                paragraph.append(line)

    pos = 0
    for fence in _FENCE.finditer(text):
        prose(text[pos : fence.start()])
        close()
        out.append(f"<pre><code>{html.escape(fence.group('body').rstrip(chr(10)))}</code></pre>")
        pos = fence.end()
    prose(text[pos:])
    close()
    return "".join(out)


def render_html(answer: Answer | tuple[str, Sequence[Source]]) -> str:
    """Safe HTML for an answer: everything escaped; paragraphs, lists, headings, bold and code;
    ``[n]`` markers as links to their sources (http(s) only: any other URL becomes plain text);
    then the numbered source list."""
    text, sources = (answer.text, answer.sources) if isinstance(answer, Answer) else answer
    links = {s.number: safe_url(s.url) for s in sources}
    parts = [f'<div class="answer-text">{_blocks(text, links)}</div>']
    if sources:
        items = []
        for s in sources:
            url = links[s.number]
            host = urlsplit(url).netloc if url else ""
            label = html.escape(s.title or s.url or f"source {s.number}")
            host_html = f' <span class="source-host">{html.escape(host)}</span>' if host else ""
            items.append(f'<li value="{int(s.number)}">{_link(url, label)}{host_html}</li>')
        parts.append(f'<ol class="answer-sources">{"".join(items)}</ol>')
    return "".join(parts)
