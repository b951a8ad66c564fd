"""Citation formats normalized into one trace (Perplexity, OpenAI annotations, Gemini grounding with
byte offsets, our numbered markers), both styles, and render_html's escaping (XSS cases)."""

from __future__ import annotations

import re

import pytest

from evaluators.arena.citations import (
    find_grounding_metadata,
    from_gemini,
    from_openai,
    from_perplexity,
    normalize,
    normalize_numbered,
    render_html,
    safe_url,
)
from evaluators.llm.types import Answer, Source

GIVEN = [
    Source(1, "https://one.example/a", "One", "s1"),
    Source(2, "https://two.example/b", "Two"),
    Source(3, "https://three.example/c", "Three"),
]


def test_numbered_markers_renumbered_by_first_appearance() -> None:
    text, sources = normalize_numbered(
        "Paris[3] is the capital [1, 3]. Again [3][2] and 【1†source】 and [2-3].", GIVEN
    )
    assert text == "Paris[1] is the capital [2][1]. Again [1][3] and [2] and [3][1]."
    assert [(s.number, s.url, s.title) for s in sources] == [
        (1, "https://three.example/c", "Three"),
        (2, "https://one.example/a", "One"),
        (3, "https://two.example/b", "Two"),
    ]
    assert sources[1].snippet == "s1"


def test_numbered_drops_unknown_markers_and_leaves_code_and_links_alone() -> None:
    text, sources = normalize_numbered(
        "Use `a[2]` not [9] here [2].\n```py\nx = y[1]\n```\nA [1](https://l) (1)", GIVEN
    )
    assert text == "Use `a[2]` not here [1].\n```py\nx = y[1]\n```\nA [1](https://l) (1)"
    assert [s.url for s in sources] == ["https://two.example/b"]
    assert normalize_numbered("No citations at all.", GIVEN) == ("No citations at all.", [])


def test_original_style_keeps_the_text_and_the_numbers() -> None:
    text, sources = normalize_numbered("B [3] then A [1] then junk [7].", GIVEN, citation_style="original")
    assert text == "B [3] then A [1] then junk."
    assert [(s.number, s.url) for s in sources] == [(1, "https://one.example/a"), (3, "https://three.example/c")]
    with pytest.raises(ValueError, match="citation_style"):
        normalize_numbered("x", GIVEN, citation_style="fancy")


def test_perplexity_search_results_and_bare_citations() -> None:
    raw = {
        "citations": ["https://c1.example", "https://c2.example"],
        "search_results": [
            {"title": "First", "url": "https://c1.example", "snippet": "one"},
            {"title": "Second", "url": "https://c2.example", "date": "2025-01-01"},
        ],
    }
    text, sources = from_perplexity("Fact[2]. Other fact[1][2].", raw)
    assert text == "Fact[1]. Other fact[2][1]."
    assert [(s.number, s.url, s.title) for s in sources] == [
        (1, "https://c2.example", "Second"),
        (2, "https://c1.example", "First"),
    ]
    text, sources = from_perplexity("Only urls[1].", {"citations": ["https://only.example"]})
    assert (text, sources[0].url, sources[0].title) == ("Only urls[1].", "https://only.example", "")
    assert normalize("perplexity", "Nothing [4].", {}) == ("Nothing.", [])


def _openai_annotation(text: str, span: str, url: str, title: str) -> dict:
    start = text.index(span)
    return {
        "type": "url_citation",
        "url_citation": {"url": url, "title": title, "start_index": start, "end_index": start + len(span)},
    }


def test_openai_annotations_replace_inline_links() -> None:
    text = (
        "The Eiffel Tower is 330 m tall ([Wikipedia](https://en.wikipedia.org/wiki/Eiffel_Tower)). "
        "It opened in 1889 ([Britannica](https://britannica.com/eiffel)) ([Wikipedia](https://en.wikipedia.org/wiki/Eiffel_Tower))."
    )
    first = "([Wikipedia](https://en.wikipedia.org/wiki/Eiffel_Tower))"
    second = "([Britannica](https://britannica.com/eiffel))"
    third_start = text.rindex(first)
    annotations = [
        _openai_annotation(text, first, "https://en.wikipedia.org/wiki/Eiffel_Tower", "Eiffel Tower"),
        _openai_annotation(text, second, "https://britannica.com/eiffel", "Eiffel | Britannica"),
        {
            "type": "url_citation",
            "url_citation": {
                "url": "https://en.wikipedia.org/wiki/Eiffel_Tower",
                "title": "Eiffel Tower",
                "start_index": third_start,
                "end_index": third_start + len(first),
            },
        },
        {"type": "file_citation", "file_citation": {"file_id": "f"}},
    ]
    out, sources = from_openai(text, annotations)
    assert out == "The Eiffel Tower is 330 m tall[1]. It opened in 1889[2][1]."
    assert [(s.number, s.title) for s in sources] == [(1, "Eiffel Tower"), (2, "Eiffel | Britannica")]
    original, original_sources = from_openai(text, annotations, citation_style="original")
    assert original == text and len(original_sources) == 2


def test_openai_plain_spans_get_a_marker_at_their_end_and_bad_offsets_go_last() -> None:
    text = "Water boils at 100 °C at sea level. Ice melts at 0 °C."
    annotations = [
        _openai_annotation(text, "Water boils at 100 °C at sea level.", "https://w.example", "W"),
        {
            "type": "url_citation",
            "url_citation": {"url": "https://x.example", "title": "X", "start_index": 5, "end_index": 999},
        },
    ]
    out, sources = normalize("openai", text, {"message": {"annotations": annotations}})
    assert out == "Water boils at 100 °C at sea level.[1] Ice melts at 0 °C.[2]"
    assert [s.url for s in sources] == ["https://w.example", "https://x.example"]


def test_gemini_byte_offsets_with_multibyte_text() -> None:
    first = "Le café coûte 2 € à Zürich — 東京では300円です。"
    second = " Ñandú señala que sí."
    text = first + second
    assert len(first.encode()) != len(first)  # the offsets below are bytes, not characters
    metadata = {
        "groundingChunks": [
            {"web": {"uri": "https://a.example", "title": "A"}},
            {"web": {"uri": "https://b.example", "title": "B"}},
            {"web": {"uri": "https://unused.example", "title": "U"}},
        ],
        "groundingSupports": [
            {
                "segment": {"startIndex": 0, "endIndex": len(first.encode()), "text": first},
                "groundingChunkIndices": [1, 0],
            },
            {
                "segment": {"startIndex": len(first.encode()), "endIndex": len(text.encode()), "text": second},
                "groundingChunkIndices": [0, 7],
            },
        ],
    }
    out, sources = from_gemini(text, metadata)
    assert out == first + "[1][2]" + second + "[2]"
    assert [(s.number, s.url, s.title) for s in sources] == [
        (1, "https://b.example", "B"),
        (2, "https://a.example", "A"),
    ]
    # the same through the response: native candidates, or snake_case keys from an SDK/proxy
    assert normalize("gemini", text, {"candidates": [{"groundingMetadata": metadata}]}) == (out, sources)
    snake = {
        "grounding_chunks": metadata["groundingChunks"],
        "grounding_supports": [
            {"segment": {"end_index": s["segment"]["endIndex"]}, "grounding_chunk_indices": s["groundingChunkIndices"]}
            for s in metadata["groundingSupports"]
        ],
    }
    assert find_grounding_metadata({"grounding_metadata": snake}) is snake
    assert from_gemini(text, snake) == (out, sources)
    assert from_gemini(text, metadata, citation_style="original") == (text, sources)
    assert from_gemini(text, None) == (text, [])


def test_render_html_structure_and_links() -> None:
    answer = Answer(
        text="## Title\n\nTuples are **immutable** [1]; see `t[0]` [2].\n\n- one [1]\n- two\n\n"
        "1. first\n2. second\n\n```python\nprint(t[1])\n```",
        sources=[
            Source(1, "https://docs.python.org/3/t.html#x", "Tuples"),
            Source(2, "https://example.org/?a=1&b=2", ""),
        ],
        searches=[],
        citation_style="standardized",
        finish_reason="stop",
        latency_s=0.1,
    )
    html = render_html(answer)
    assert (
        '<a href="https://docs.python.org/3/t.html#x" class="cite" rel="noopener nofollow" target="_blank">[1]</a>'
        in html
    )
    assert 'href="https://example.org/?a=1&amp;b=2"' in html
    assert "<strong>immutable</strong>" in html and "<code>t[0]</code>" in html
    assert "<ul><li>one <a" in html and "<ol><li>first</li><li>second</li></ol>" in html
    assert "<pre><code>print(t[1])</code></pre>" in html
    assert '<ol class="answer-sources"><li value="1"><a href="https://docs.python.org/3/t.html#x"' in html
    assert '<span class="source-host">example.org</span>' in html


XSS = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[x](data:text/html;base64,PHNjcmlwdD4=)",
    "**<svg onload=alert(1)>**",
    "`</code><script>alert(1)</script>`",
    "```\n</pre><script>alert(1)</script>\n```",
    '"><script>alert(1)</script>',
    "[1] [2] [3]",
]


@pytest.mark.parametrize("text", XSS)
def test_render_html_is_inert(text: str) -> None:
    sources = [
        Source(1, "javascript:alert(1)", "<script>alert(2)</script>"),
        Source(2, 'https://ok.example/"onmouseover="alert(1)', "t"),
        Source(3, "https://ok.example/<script>", 'x" onclick="alert(1)'),
    ]
    html = render_html((text, sources))
    assert "<script" not in html.lower() and "<img" not in html.lower() and "<svg" not in html.lower()
    if "<script>" in text:
        assert "&lt;script&gt;" in html  # shown, as text
    for href in re.findall(r'href="([^"]*)"', html):
        assert href.startswith(("http://", "https://")) and "<" not in href and '"' not in href
    assert not re.search(r"<[a-z]+[^>]*\son[a-z]+=", html, re.I)  # no event handler attributes


def test_safe_url() -> None:
    assert safe_url("https://a.example/x?y=1") == "https://a.example/x?y=1"
    for bad in [
        "javascript:alert(1)",
        " javascript:alert(1)",
        "data:text/html,x",
        "/relative",
        "//evil.example",
        "https://",
        'http://a.example/"x',
        "vbscript:x",
        "file:///etc/passwd",
    ]:
        assert safe_url(bad) is None, bad


def test_urls_with_parentheses() -> None:
    url = "https://en.wikipedia.org/wiki/Python_(programming_language)"
    text = f"Python is a language ([Python]({url}))."
    span = f"([Python]({url}))"
    start = text.index(span)
    out, sources = from_openai(
        text,
        [
            {
                "type": "url_citation",
                "url_citation": {"url": url, "title": "Python", "start_index": start, "end_index": start + len(span)},
            }
        ],
    )
    assert out == "Python is a language[1]." and sources[0].url == url
    assert f'<a href="{url}" rel="noopener nofollow" target="_blank">Python</a>).' in render_html((text, []))
