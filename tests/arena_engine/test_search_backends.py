"""The local FTS5 index (build, BM25 ranking, snippets, hostile queries), HTML extraction, the
default index when built, and SearXNG's JSON API against a local fake."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from evaluators.arena.html_text import html_sections
from evaluators.arena.search import (
    Document,
    LocalIndex,
    SearxngBackend,
    backend_from_config,
    build_local_index,
    default_index_path,
    fts_query,
    html_documents,
    index_version,
    query_terms,
)
from evaluators.llm.types import SearchBackend


def test_build_counts_and_meta(tmp_path: Path) -> None:
    docs = [
        Document("https://a.example/1", "One", "First paragraph about kittens.\nSecond about puppies."),
        Document("https://a.example/2", "Two", "x " * 2000),
    ]
    stats = build_local_index(docs, tmp_path / "i.sqlite", source_version="v1")
    assert (stats.documents, stats.passages >= 3, stats.source_version) == (2, True, "v1")
    assert index_version(tmp_path / "i.sqlite") == "v1"
    assert not list(tmp_path.glob("*.tmp"))
    # rebuilding replaces the file atomically with the new content
    build_local_index(docs[:1], tmp_path / "i.sqlite", source_version="v2")
    with sqlite3.connect(tmp_path / "i.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM passages").fetchone()[0] == 1


def test_bm25_ranks_the_matching_document_first_with_a_snippet(local: LocalIndex) -> None:
    call = local.search("How do I read an environment variable?", limit=3)
    assert call.error == "" and call.backend == "local"
    assert call.results[0].url == "https://docs.example.org/os.html#environ"
    assert call.results[0].title == "os › os.environ"
    assert "environment" in call.results[0].snippet.lower()
    assert [r.number for r in call.results] == list(range(1, len(call.results) + 1))
    assert isinstance(local, SearchBackend)


def test_stemming_diacritics_and_one_result_per_url(local: LocalIndex) -> None:
    assert local.search("deserializing json documents").results[0].url.endswith("json.html#loads")
    assert local.search("cafe creme naive").results[0].url.endswith("json.html#loads")
    urls = [r.url for r in local.search("sorting stability of sorted results", limit=5).results]
    assert urls[0] == "https://docs.example.org/long.html" and len(urls) == len(set(urls))


def test_whole_passages_when_asked(small_index: Path) -> None:
    short = LocalIndex(small_index, snippet_tokens=5).search("tuples immutable").results[0].snippet
    whole = LocalIndex(small_index, snippet_tokens=None).search("tuples immutable").results[0].snippet
    assert len(short.split()) <= 7 and whole.startswith("Tuples are immutable") and "a_list" in whole


NASTY = [
    '"',
    '""',
    "'",
    "NEAR(",
    "NEAR(a b",
    "a * b",
    "*",
    "-",
    "-foo",
    "foo AND",
    "OR OR OR",
    "NOT",
    "^start",
    "col:value",
    "title: x",
    "(((",
    ")",
    "{a b}",
    "a + b",
    "\\",
    "'; DROP TABLE passages; --",
    "\x00",
    "🙂 emoji 🐍",
    "日本語のテキスト",
    "ﬁle ligature",
    "x" * 30000,
    "word " * 6000,
    "   ",
    "",
    "?!.,;",
]


@pytest.mark.parametrize("query", NASTY, ids=[repr(q[:12]) for q in NASTY])
def test_hostile_queries_never_raise_or_error(local: LocalIndex, query: str) -> None:
    call = local.search(query, limit=5)
    assert call.error == ""
    assert len(call.results) <= 5


def test_query_sanitization() -> None:
    assert query_terms('What is the NEAR( operator? AND "quoted" * -x') == ["near", "operator", "quoted"]
    assert query_terms("what is it") == ["what", "is", "it"]  # only stop words: keep them
    assert len(query_terms("w" * 10 + " ".join(f"t{i}" for i in range(100)))) == 24
    assert fts_query('a "b" c') == '"a" OR "b" OR "c"' or fts_query('a "b" c') == '"b" OR "c"'
    assert fts_query("") == "" and fts_query("!!!") == ""


def test_missing_index_is_an_error_not_an_exception(tmp_path: Path) -> None:
    call = LocalIndex(tmp_path / "nope.sqlite").search("anything")
    assert call.results == [] and "build-search-index" in call.error
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"not a database at all" * 100)
    assert "local index" in LocalIndex(broken).search("anything").error


def test_html_sections_and_documents(tmp_path: Path) -> None:
    page = """<html><head><title>os — Misc interfaces &#8212; Python 3.11.2 documentation</title>
    <script>var x = "<p>not text</p>";</script></head><body>
    <div class="related" role="navigation"><a href="#">previous</a></div>
    <div class="body" role="main"><section id="module-os"><h1>os — Misc<a class="headerlink" href="#x">¶</a></h1>
    <p>This module provides <em>portable</em> functions &amp; more.</p>
    <dl><dt class="sig" id="os.getenv"><code>os.getenv(key)</code></dt>
    <dd><p>Return the value of the environment variable <em>key</em> if it exists, or default if it does not.
    Long enough to be its own section of the page, with plenty of words.</p></dd></dl>
    <pre>&gt;&gt;&gt; os.getenv("HOME")
    '/root'</pre></section></div><div class="footer">© copyright</div></body></html>"""
    title, sections = html_sections(page)
    assert title == "os — Misc interfaces"
    assert [(s.anchor, s.heading) for s in sections] == [("module-os", "os — Misc"), ("os.getenv", "os.getenv(key)")]
    assert "portable functions & more." in sections[0].text and "previous" not in sections[0].text
    assert "not text" not in sections[0].text and "copyright" not in sections[1].text
    assert '>>> os.getenv("HOME")' in sections[1].text
    (tmp_path / "library").mkdir()
    (tmp_path / "library" / "os.html").write_text(page)
    (tmp_path / "genindex.html").write_text(page)
    docs = list(html_documents(tmp_path, base_url="https://docs.python.org/3.11/"))
    assert [d.url for d in docs] == [
        "https://docs.python.org/3.11/library/os.html#module-os",
        "https://docs.python.org/3.11/library/os.html#os.getenv",
    ]
    assert docs[1].title == "os — Misc interfaces › os.getenv(key)"
    assert next(iter(html_documents(tmp_path))).url.startswith("file:///")


def test_default_index_path_honours_the_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("LEADERBOARD_SEARCH_INDEX", str(tmp_path / "x.sqlite"))
    assert default_index_path() == tmp_path / "x.sqlite"
    monkeypatch.delenv("LEADERBOARD_SEARCH_INDEX")
    assert default_index_path().parts[-3:] == ("var", "search", "index.sqlite")


def test_the_default_index_answers_python_questions() -> None:
    path = default_index_path()
    # make test builds it (scripts/build-search-index): a missing index is a broken set-up, not a skip
    assert index_version(path) is not None, f"the default index is not built at {path} (run scripts/build-search-index)"
    call = LocalIndex(path).search("difference between list and tuple", limit=5)
    assert call.error == "" and len(call.results) == 5
    assert all(r.url.startswith("https://docs.python.org/3.11/") for r in call.results)
    assert any("tuple" in (r.title + r.snippet).lower() for r in call.results)
    huge = LocalIndex(path).search("x" * 30000 + " asyncio gather wait timeout")
    assert huge.error == "" and huge.results


def test_searxng_json_api(searxng) -> None:
    call = SearxngBackend(searxng.url).search("python tuples", limit=2)
    assert call.error == "" and call.backend == "searxng"
    assert [(r.number, r.url, r.title) for r in call.results] == [
        (1, "https://example.org/1", "Result 1 for python tuples"),
        (2, "https://example.org/2", "Result 2 for python tuples"),
    ]
    assert call.results[0].snippet == "Snippet 1 about python tuples."
    assert searxng.queries[-1]["format"] == ["json"] and searxng.queries[-1]["q"] == ["python tuples"]
    assert len(SearxngBackend(searxng.url + "/").search("q", limit=10).results) == 3  # the url-less one dropped


@pytest.mark.parametrize(
    "status, body, expected",
    [
        (403, "Forbidden", "json' enabled"),
        (500, "boom", "HTTP 500"),
        (200, "<html>not json</html>", "not JSON"),
        (200, {"query": "q"}, "no 'results' list"),
    ],
)
def test_searxng_failures_are_reported(fake_searxng_factory, status, body, expected) -> None:
    server = fake_searxng_factory(lambda params: (status, body))
    call = SearxngBackend(server.url).search("q")
    assert call.results == [] and expected in call.error


def test_searxng_unreachable_and_slow(fake_searxng_factory) -> None:
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    assert "ConnectError" in SearxngBackend(f"http://127.0.0.1:{port}").search("q").error
    slow = fake_searxng_factory(lambda params: (time.sleep(0.5), (200, {"results": []}))[1])
    assert "no answer within" in SearxngBackend(slow.url, timeout_s=0.1).search("q").error


def test_backend_from_config(small_index: Path, searxng) -> None:
    assert isinstance(backend_from_config({"backend": "local", "index": str(small_index)}), LocalIndex)
    assert isinstance(backend_from_config({"backend": "searxng", "base_url": searxng.url}), SearxngBackend)
    for bad, key in [
        ({"backend": "bing"}, "search.backend"),
        ({"backend": "searxng"}, "search.base_url"),
        ({"backend": "searxng", "base_url": "x", "timeout_s": 1}, "base_url"),
        ({"backend": "searxng", "base_url": "http://x", "timeout_s": -1}, "search.timeout_s"),
        ({"backend": "local", "index": 3}, "search.index"),
    ]:
        with pytest.raises(ValueError, match=key):
            backend_from_config(bad)
