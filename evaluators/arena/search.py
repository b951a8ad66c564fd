"""Search backends for the arena: the embedded local index and SearXNG's JSON API.

Both implement :class:`~evaluators.llm.types.SearchBackend`: ``search(query, limit=...)`` returns a
:class:`SearchCall` and never raises; a failure is in ``SearchCall.error``.

The local index is SQLite FTS5 (BM25 ranking, Porter stemming) over passages of a real document
collection. The embedded default is the Python 3.11 documentation from Debian's ``python3.11-doc``
package (PSF licence; HTML under /usr/share/doc/python3.11/html), one document per section or API
entry (``html_text`` reads a page's sections), linked to its page on docs.python.org so citations are
clickable. ``scripts/build-search-index`` installs the package and builds the index;
``python -m evaluators.arena.search query "..."`` asks it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sqlite3
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from evaluators.arena.html_text import html_sections
from evaluators.llm.types import SearchBackend, SearchCall, Source

REPO = Path(__file__).resolve().parents[2]
#: Bumped when the index layout or the passage splitting changes, so a rebuild is triggered.
INDEX_FORMAT = "2"
PYTHON_DOCS_DIR = Path("/usr/share/doc/python3.11/html")
PYTHON_DOCS_URL = "https://docs.python.org/3.11/"
MAX_QUERY_TERMS = 24
MAX_LIMIT = 50


def default_index_path() -> Path:
    """``$LEADERBOARD_SEARCH_INDEX``, else ``var/search/index.sqlite`` in the repository."""
    override = os.environ.get("LEADERBOARD_SEARCH_INDEX")
    return Path(override) if override else REPO / "var" / "search" / "index.sqlite"


@dataclass(frozen=True)
class Document:
    """One searchable document (a page section); long ones are split into passages when indexed."""

    url: str
    title: str
    text: str


@dataclass(frozen=True)
class IndexStats:
    documents: int
    passages: int
    seconds: float
    source_version: str
    path: str
    skipped: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "documents": self.documents,
            "passages": self.passages,
            "seconds": round(self.seconds, 2),
            "source_version": self.source_version,
            "path": self.path,
            "skipped": self.skipped,
        }


# --- documents from HTML pages ---------------------------------------------------------------------

_SKIP_PAGES = re.compile(
    r"^(genindex.*|search|py-modindex|contents|glossary|bugs|copyright|license|about|"
    r"download|index)\.html$|^whatsnew/"
)


def html_documents(root: Path, *, base_url: str | None = None) -> Iterator[Document]:
    """Documents (one per section) from a directory of HTML pages. URLs are ``base_url`` + the
    page's relative path + ``#anchor`` when a base URL is given, else ``file://`` paths."""
    for path in sorted(root.rglob("*.html")):
        relative = path.relative_to(root).as_posix()
        if relative.startswith("_") or _SKIP_PAGES.search(relative):
            continue
        title, sections = html_sections(path.read_text(encoding="utf-8", errors="replace"))
        page_url = (base_url + relative) if base_url else path.resolve().as_uri()
        for section in sections:
            heading = section.heading.removesuffix("¶").strip()
            full_title = title if not heading or heading == title else f"{title} › {heading}"
            url = f"{page_url}#{section.anchor}" if section.anchor else page_url
            yield Document(url=url, title=full_title, text=section.text)


# --- the index ------------------------------------------------------------------------------------


def _split_long(paragraph: str, *, target: int, hard_max: int) -> list[str]:
    """An overlong paragraph cut at sentence ends, and a sentence still too long at spaces."""
    pieces: list[str] = []
    current = ""
    for sentence in re.split(r"(?<=[.!?])\s+", paragraph):
        words = [sentence] if len(sentence) <= hard_max else sentence.split()
        for word in words:
            if current and len(current) + len(word) + 1 > target:
                pieces.append(current)
                current = ""
            current = f"{current} {word[:hard_max]}".strip()
    return [*pieces, current] if current else pieces


def _passages(text: str, *, target: int = 900, hard_max: int = 1600) -> Iterator[str]:
    """Paragraph-aligned chunks of about ``target`` characters (never more than ``hard_max``
    unless one sentence is)."""
    chunk: list[str] = []
    size = 0
    for paragraph in (p.strip() for p in text.split("\n")):
        if not paragraph:
            continue
        pieces = [paragraph] if len(paragraph) <= hard_max else _split_long(paragraph, target=target, hard_max=hard_max)
        for piece in pieces:
            if chunk and size + len(piece) > target:
                yield "\n".join(chunk)
                chunk, size = [], 0
            chunk.append(piece)
            size += len(piece)
    if chunk:
        yield "\n".join(chunk)


def index_version(path: Path) -> str | None:
    """The ``source_version`` an index was built from, or None when there is no readable index."""
    if not path.exists():
        return None
    try:
        with sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'source_version'").fetchone()
        return row[0] if row else None
    except sqlite3.Error:
        return None


def build_local_index(
    sources: Iterable[Document] | Path | str,
    out_path: Path | str,
    *,
    source_version: str = "",
    base_url: str | None = None,
) -> IndexStats:
    """Build an FTS5 index at ``out_path`` from documents or a directory of HTML pages. Written to a
    temporary file and moved into place, so readers never see a half-built index."""
    started = time.monotonic()
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    documents = html_documents(Path(sources), base_url=base_url) if isinstance(sources, (str, Path)) else sources
    tmp = out.with_name(out.name + f".{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    n_documents = n_passages = 0
    try:
        with sqlite3.connect(tmp) as conn:
            conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            conn.execute(
                "CREATE VIRTUAL TABLE passages USING fts5(title, body, url UNINDEXED, "
                "tokenize = 'porter unicode61 remove_diacritics 2')"
            )
            for document in documents:
                n_documents += 1
                rows = [(document.title, passage, document.url) for passage in _passages(document.text)]
                conn.executemany("INSERT INTO passages (title, body, url) VALUES (?, ?, ?)", rows)
                n_passages += len(rows)
            conn.execute("INSERT INTO passages (passages) VALUES ('optimize')")
            conn.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [
                    ("source_version", source_version),
                    ("index_format", INDEX_FORMAT),
                    ("documents", str(n_documents)),
                    ("passages", str(n_passages)),
                    ("built_at", time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())),
                ],
            )
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return IndexStats(n_documents, n_passages, time.monotonic() - started, source_version, str(out))


# English function words and question boilerplate: they match everything and rank nothing.
STOP_WORDS = frozenset(
    """
a about above after again against all am an and any are as at be because been before being below between both
but by can could did do does doing down during each few for from further had has have having he her here hers
herself him himself his how i if in into is it its itself just let me more most my myself no nor not now of off
on once only or other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we were what when where
which while who whom why will with would you your yours yourself yourselves please tell explain give show know
want need use using get make like also really something anything thing things way ways
""".split()
)


def query_terms(text: str, *, max_terms: int = MAX_QUERY_TERMS) -> list[str]:
    """Search terms from free text: words (any script, at most 40 characters), lower-cased, without
    stop words (unless nothing else is left), deduplicated in order, at most ``max_terms``."""
    words = [w for w in re.findall(r"\w+", text.lower()[:100_000]) if len(w) <= 40]  # longer: not a word
    content = [w for w in words if w not in STOP_WORDS and not (len(w) == 1 and w.isascii() and w.isalpha())]
    seen: dict[str, None] = {}
    for word in content or words:
        seen.setdefault(word, None)
        if len(seen) >= max_terms:
            break
    return list(seen)


def fts_query(text: str) -> str:
    """An FTS5 MATCH expression that cannot be a syntax error: every term a quoted string, OR-ed
    (BM25 ranks passages matching more and rarer terms first). Empty when there are no words."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in query_terms(text))


class LocalIndex:
    """The embedded search engine: BM25 over the passages of a local FTS5 index.

    ``snippet_tokens`` sets the length of each result's snippet (the passage fragment around the
    matched terms, at most 64 tokens); ``None`` returns the whole passage (for extractive answers).
    """

    def __init__(self, path: Path | str | None = None, *, name: str = "local", snippet_tokens: int | None = 40):
        self.path = Path(path) if path else default_index_path()
        self.name = name
        if snippet_tokens is not None and not 1 <= snippet_tokens <= 64:
            raise ValueError(f"snippet_tokens must be between 1 and 64 or None, got {snippet_tokens!r}")
        self.snippet_tokens = snippet_tokens

    def search(self, query: str, *, limit: int = 5) -> SearchCall:
        started = time.monotonic()
        expression = fts_query(query)
        if not expression:
            return SearchCall(self.name, query, [], time.monotonic() - started)
        if not self.path.exists():
            return SearchCall(
                self.name,
                query,
                [],
                time.monotonic() - started,
                error=f"search index not found at {self.path}; build it with scripts/build-search-index",
            )
        limit = max(1, min(int(limit), MAX_LIMIT))
        snippet = (
            "body"
            if self.snippet_tokens is None
            else f"snippet(passages, 1, '', '', ' … ', {int(self.snippet_tokens)})"
        )
        sql = (
            f"SELECT url, title, {snippet} FROM passages WHERE passages MATCH ? "
            "ORDER BY bm25(passages, 2.0, 1.0) LIMIT ?"
        )
        try:
            with sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True) as conn:
                rows = conn.execute(sql, (expression, limit * 4)).fetchall()
        except sqlite3.Error as exc:
            return SearchCall(self.name, query, [], time.monotonic() - started, error=f"local index: {exc}")
        results: list[Source] = []
        seen: set[str] = set()
        for url, title, text in rows:
            if url in seen:  # one result per section, like a web search engine's one per page
                continue
            seen.add(url)
            results.append(Source(len(results) + 1, url, title, text))
            if len(results) == limit:
                break
        return SearchCall(self.name, query, results, time.monotonic() - started)


class SearxngBackend:
    """A SearXNG instance's JSON API (``/search?q=...&format=json``; ``json`` must be enabled in
    ``search.formats`` of its settings.yml)."""

    def __init__(
        self, base_url: str, *, timeout_s: float = 10.0, name: str = "searxng", params: Mapping[str, str] | None = None
    ):
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.timeout_s = timeout_s
        self.name = name
        self.params = dict(params or {})

    def search(self, query: str, *, limit: int = 5) -> SearchCall:
        started = time.monotonic()

        def failed(message: str) -> SearchCall:
            return SearchCall(self.name, query, [], time.monotonic() - started, error=message)

        if not query.strip():
            return SearchCall(self.name, query, [], 0.0)
        try:
            response = httpx.get(
                f"{self.base_url}/search",
                params={**self.params, "q": query[:2000], "format": "json"},
                timeout=self.timeout_s,
                follow_redirects=True,
            )
        except httpx.TimeoutException:
            return failed(f"searxng: no answer within {self.timeout_s:g} s")
        except httpx.HTTPError as exc:
            return failed(f"searxng: {type(exc).__name__}: {exc}")
        if response.status_code == 403:
            return failed("searxng: 403 Forbidden (is 'json' enabled in search.formats of settings.yml?)")
        if response.status_code != 200:
            return failed(f"searxng: HTTP {response.status_code}: {response.text[:200]}")
        try:
            payload = response.json()
        except ValueError:
            return failed(f"searxng: the response is not JSON: {response.text[:200]!r}")
        raw_results = payload.get("results") if isinstance(payload, dict) else None
        if not isinstance(raw_results, list):
            return failed("searxng: the response has no 'results' list")
        results: list[Source] = []
        for item in raw_results:
            if isinstance(item, dict) and isinstance(item.get("url"), str) and item["url"]:
                results.append(
                    Source(len(results) + 1, item["url"], str(item.get("title") or ""), str(item.get("content") or ""))
                )
                if len(results) >= max(1, limit):
                    break
        return SearchCall(self.name, query, results, time.monotonic() - started)


def backend_from_config(config: Mapping[str, Any] | None, *, snippet_tokens: int | None = 40) -> SearchBackend:
    """``{"backend": "local", "index": "default" | path}`` or ``{"backend": "searxng", "base_url":
    ..., "timeout_s": 10}``. An absent config means the default local index."""
    config = dict(config or {"backend": "local"})
    kind = config.get("backend", "local")
    if kind == "local":
        index = config.get("index", "default")
        if not isinstance(index, str) or not index:
            raise ValueError(f"search.index must be 'default' or a path, got {index!r}")
        return LocalIndex(None if index == "default" else index, snippet_tokens=snippet_tokens)
    if kind == "searxng":
        base_url = config.get("base_url")
        if not isinstance(base_url, str) or not base_url:
            raise ValueError("search.base_url is required for the searxng backend (e.g. http://127.0.0.1:8888)")
        timeout = config.get("timeout_s", 10.0)
        if not isinstance(timeout, (int, float)) or timeout <= 0:
            raise ValueError(f"search.timeout_s must be a positive number, got {timeout!r}")
        return SearxngBackend(base_url, timeout_s=float(timeout))
    raise ValueError(f"search.backend must be 'local' or 'searxng', got {kind!r}")


# --- command line ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluators.arena.search", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    build = commands.add_parser("build", help="build the local index from a directory of HTML pages")
    build.add_argument("--html", type=Path, default=PYTHON_DOCS_DIR)
    build.add_argument("--base-url", default=PYTHON_DOCS_URL, help="URL prefix for the pages ('' for file://)")
    build.add_argument("--out", type=Path, default=None)
    build.add_argument("--version", default="", help="the source's version; the build is skipped when unchanged")
    build.add_argument("--force", action="store_true")
    query = commands.add_parser("query", help="search the local index")
    query.add_argument("text")
    query.add_argument("--limit", type=int, default=5)
    query.add_argument("--index", type=Path, default=None)
    args = parser.parse_args(argv)

    if args.command == "build":
        out = args.out or default_index_path()
        version = f"{args.version}+format{INDEX_FORMAT}+{args.base_url or 'file'}"
        if not args.force and index_version(out) == version:
            with sqlite3.connect(f"{out.resolve().as_uri()}?mode=ro", uri=True) as conn:
                meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            stats = IndexStats(int(meta["documents"]), int(meta["passages"]), 0.0, version, str(out), skipped=True)
        elif not args.html.is_dir():
            print(f"no HTML directory at {args.html}", file=sys.stderr)
            return 2
        else:
            stats = build_local_index(args.html, out, source_version=version, base_url=args.base_url or None)
        print(json.dumps(stats.to_dict()))
        return 0
    call = LocalIndex(args.index).search(args.text, limit=args.limit)
    print(json.dumps(call.to_dict(), ensure_ascii=False, indent=1))
    return 1 if call.error else 0


if __name__ == "__main__":
    sys.exit(main())
