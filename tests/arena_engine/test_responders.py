"""The arena's responders: extractive (no model), a self-hosted model with our search tool and the
hosted search APIs, against the scripted OpenAI-compatible server; streaming, citations, failures
and configuration errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaluators.arena.responders import (
    DEFAULT_RESPONDERS,
    ExtractiveResponder,
    HostedSearchResponder,
    SearchToolResponder,
    responder_from_config,
    search_query,
)
from evaluators.arena.search import LocalIndex, SearxngBackend
from evaluators.llm.client import ChatClient
from evaluators.llm.types import Answer, Endpoint, Responder
from tests.arena_engine.conftest import DOCUMENTS
from tests.support.openai_server import OpenAIServer, Reply

URLS = {d.url for d in DOCUMENTS}
ASK = [{"role": "user", "content": "How do I read an environment variable with a default?"}]


def stream(responder: Responder, messages: list[dict[str, Any]] = ASK, **kwargs: Any) -> tuple[Answer, list[str]]:
    deltas: list[str] = []
    answer = responder.respond(messages, on_delta=deltas.append, **kwargs)
    return answer, deltas


def assert_citations_resolve(answer: Answer) -> None:
    import re

    numbers = {int(n) for n in re.findall(r"\[(\d+)\]", answer.text)}
    assert numbers and numbers == {s.number for s in answer.sources}
    assert [s.number for s in answer.sources] == list(range(1, len(answer.sources) + 1))


@pytest.mark.parametrize("strategy", ["bm25-sentences", "lead-passages"])
def test_extractive_streams_a_cited_answer(small_index: Path, strategy: str) -> None:
    config = {"kind": "extractive", "strategy": strategy, "index": str(small_index), "name": f"x-{strategy}"}
    responder = responder_from_config(config)
    assert isinstance(responder, Responder) and "no language model" in responder.description
    answer, deltas = stream(responder)
    assert answer.complete and len(deltas) > 3 and "".join(deltas) == answer.text
    assert_citations_resolve(answer)
    assert {s.url for s in answer.sources} <= URLS
    assert answer.sources[0].url.startswith("https://docs.example.org/os.html#")
    assert answer.searches[0].query == ASK[0]["content"] and answer.searches[0].results


def test_the_two_extractive_strategies_differ(small_index: Path) -> None:
    question = [{"role": "user", "content": "Are tuples immutable sequences, unlike lists?"}]
    responders = [
        responder_from_config({"kind": "extractive", "strategy": s, "index": str(small_index)})
        for s in ("bm25-sentences", "lead-passages")
    ]
    answers = [r.respond(question) for r in responders]
    assert answers[0].text != answers[1].text
    assert answers[0].text.startswith("Tuples are immutable") and answers[1].text.startswith("Top results:")
    assert (responders[0].max_sources, responders[1].max_sources) == (6, 3)  # retrieval depth differs too
    assert responders[0].backend.snippet_tokens is None and responders[1].backend.snippet_tokens == 40


def test_brackets_in_quoted_text_are_not_citations(tmp_path: Path) -> None:
    from evaluators.arena.search import Document, build_local_index

    build_local_index(
        [
            Document(
                "https://q.example/",
                "Lists",
                "Augmented assignment: a_list += [1, 2] extends the list in place, and x[0] indexes it [3].",
            )
        ],
        tmp_path / "q.sqlite",
    )
    for strategy in ("bm25-sentences", "lead-passages"):
        answer = responder_from_config(
            {"kind": "extractive", "strategy": strategy, "index": str(tmp_path / "q.sqlite")}
        ).respond([{"role": "user", "content": "augmented assignment on a list"}])
        assert "a_list += [1, 2] extends" in answer.text and "x[0] indexes it [3]." in answer.text
        assert [s.url for s in answer.sources] == ["https://q.example/"] and answer.text.endswith("[1]")


def test_extractive_original_style_and_followups(small_index: Path) -> None:
    responder = ExtractiveResponder("x", LocalIndex(small_index), strategy="lead-passages")
    answer = responder.respond(ASK, citation_style="original")
    assert answer.citation_style == "original"
    assert [s.number for s in answer.sources] == sorted(s.number for s in answer.sources)
    followup = [*ASK, {"role": "assistant", "content": answer.text}, {"role": "user", "content": "and json?"}]
    assert search_query(followup).endswith("and json?") and "environment" in search_query(followup)


def test_extractive_without_results_or_search(small_index: Path, tmp_path: Path) -> None:
    nothing = ExtractiveResponder("x", LocalIndex(small_index)).respond([{"role": "user", "content": "zebra quagga"}])
    assert nothing.complete and nothing.sources == [] and "found no passages" in nothing.text
    failed = ExtractiveResponder("x", LocalIndex(tmp_path / "missing.sqlite")).respond(ASK)
    assert failed.finish_reason == "error" and "search failed" in failed.error and not failed.complete
    assert failed.searches[0].error
    empty = ExtractiveResponder("x", LocalIndex(small_index)).respond([{"role": "user", "content": "  "}])
    assert empty.finish_reason == "error" and "no user prompt" in empty.error


def _cites_in_reverse(request: dict[str, Any]) -> Reply:
    system = request["messages"][0]["content"]
    assert request["messages"][0]["role"] == "system" and "[1] " in system
    assert "https://docs.example.org/os.html#environ" in system
    return Reply(text="Use os.getenv [2] or os.environ [1][9]. Code: `env[1]` works [1, 2].", chunk_chars=2)


def test_search_tool_responder_streams_renumbered_citations(local: LocalIndex) -> None:
    with OpenAIServer(_cites_in_reverse) as server:
        responder = SearchToolResponder("m", ChatClient(Endpoint(server.base_url, "m")), local, max_sources=3)
        answer, deltas = stream(responder)
    assert answer.complete, answer.error
    given = answer.searches[0].results
    assert answer.text == "Use os.getenv [1] or os.environ [2]. Code: `env[1]` works [2][1]."
    assert "".join(deltas) == answer.text  # renumbered while streaming, in 2-character pieces
    assert answer.sources[0].url == given[1].url and answer.sources[1].url == given[0].url
    assert answer.usage.completion_tokens > 0
    assert server.requests[0]["messages"][-1] == ASK[0]


def test_search_tool_responder_when_the_search_fails(fake_searxng_factory) -> None:
    searx = fake_searxng_factory(lambda params: (403, "Forbidden"))
    with OpenAIServer(lambda request: Reply(text="I could not search, but: use os.getenv.")) as server:
        responder = responder_from_config(
            {
                "kind": "search_tool",
                "base_url": server.base_url,
                "model": "m",
                "search": {"backend": "searxng", "base_url": searx.url},
            }
        )
        answer = responder.respond(ASK)
    assert answer.complete and answer.sources == []
    assert "json' enabled" in answer.searches[0].error
    assert "(no results: the search failed" in server.requests[0]["messages"][0]["content"]


def test_model_failing_mid_stream_gives_an_error_answer_with_the_partial_text(local: LocalIndex) -> None:
    with OpenAIServer(
        lambda request: Reply(text="Partial answer citing [1] and more words here", chunk_chars=4, cut_after_chunks=5)
    ) as server:
        responder = SearchToolResponder("m", ChatClient(Endpoint(server.base_url, "m"), max_retries=0), local)
        answer, deltas = stream(responder)
    assert answer.finish_reason == "error" and not answer.complete
    assert "endpoint" in answer.error
    assert answer.text and "Partial answer citing [1] and more words here".startswith(answer.text)
    assert "".join(deltas) == answer.text and answer.searches


def test_cut_off_and_refused_answers(local: LocalIndex) -> None:
    with OpenAIServer(lambda request: Reply(text="Long answer", finish_reason="length")) as server:
        answer = SearchToolResponder("m", ChatClient(Endpoint(server.base_url, "m")), local).respond(ASK)
    assert answer.finish_reason == "length" and not answer.complete
    with OpenAIServer(lambda request: Reply(status=401), api_key="right") as server:
        answer = SearchToolResponder("m", ChatClient(Endpoint(server.base_url, "m", "wrong")), local).respond(ASK)
    assert answer.finish_reason == "error" and answer.text == "" and answer.error


def _hosted(style: str, reply: Reply) -> tuple[Answer, list[str]]:
    with OpenAIServer(lambda request: reply) as server:
        responder = HostedSearchResponder(f"h-{style}", ChatClient(Endpoint(server.base_url, "sonar")), style)
        return stream(responder)


def test_hosted_perplexity() -> None:
    reply = Reply(
        text="Paris is the capital[2]. It is large[1][2].",
        chunk_chars=3,
        extra={
            "citations": ["https://p1.example", "https://p2.example"],
            "search_results": [
                {"title": "P1", "url": "https://p1.example", "snippet": "a"},
                {"title": "P2", "url": "https://p2.example", "snippet": "b"},
            ],
        },
    )
    answer, deltas = _hosted("perplexity", reply)
    assert answer.complete and answer.text == "Paris is the capital[1]. It is large[2][1]."
    assert "".join(deltas) == answer.text
    assert [(s.number, s.title) for s in answer.sources] == [(1, "P2"), (2, "P1")]
    assert answer.searches[0].backend == "perplexity (provider-side)" and len(answer.searches[0].results) == 2
    # a marker pointing past the list is dropped from the final text (the stream had shown it)
    dangling, _ = _hosted("perplexity", Reply(text="Big[3].", extra={"citations": ["https://p1.example"]}))
    assert dangling.text == "Big." and dangling.sources == []


def test_hosted_openai_annotations() -> None:
    text = "Python 3.11 is faster ([What's New](https://docs.python.org/3.11/whatsnew/3.11.html))."
    span = "([What's New](https://docs.python.org/3.11/whatsnew/3.11.html))"
    start = text.index(span)
    annotation = {
        "type": "url_citation",
        "url_citation": {
            "url": "https://docs.python.org/3.11/whatsnew/3.11.html",
            "title": "What's New",
            "start_index": start,
            "end_index": start + len(span),
        },
    }
    answer, deltas = _hosted("openai", Reply(text=text, annotations=[annotation]))
    assert answer.complete and answer.text == "Python 3.11 is faster[1]."
    assert "".join(deltas) == text  # the provider's text streamed; the normalized one is final
    assert answer.sources[0].url.endswith("3.11.html")


def test_hosted_gemini_grounding() -> None:
    text = "Zürich liegt am See. Es ist schön."
    first = "Zürich liegt am See."
    metadata = {
        "groundingChunks": [{"web": {"uri": "https://z.example", "title": "Z"}}],
        "groundingSupports": [
            {"segment": {"endIndex": len(first.encode()), "text": first}, "groundingChunkIndices": [0]}
        ],
    }
    answer, _ = _hosted("gemini", Reply(text=text, extra={"groundingMetadata": metadata}))
    assert answer.text == "Zürich liegt am See.[1] Es ist schön." and answer.sources[0].url == "https://z.example"


def test_hosted_model_failure_mid_stream() -> None:
    answer, deltas = _hosted(
        "perplexity",
        Reply(text="Half of an answer [1] that stops", cut_after_chunks=4, extra={"citations": ["https://p1.example"]}),
    )
    assert answer.finish_reason == "error" and answer.error and "".join(deltas) == answer.text


def test_config_builds_each_kind_and_resolves_secrets(small_index: Path) -> None:
    for config in DEFAULT_RESPONDERS:
        assert isinstance(responder_from_config(config), ExtractiveResponder)
    with OpenAIServer(
        lambda request: Reply(text="ok [1]", extra={"citations": ["https://p.example"]}), api_key="sk-secret"
    ) as server:
        hosted = responder_from_config(
            {
                "kind": "hosted",
                "style": "perplexity",
                "base_url": server.base_url,
                "model": "sonar",
                "api_key_ref": "pplx",
                "extra": {"search_mode": "web"},
            },
            secrets={"pplx": "sk-secret"}.__getitem__,
        )
        answer = hosted.respond(ASK)
    assert answer.complete and answer.text == "ok [1]" and server.requests[0]["search_mode"] == "web"
    tool = responder_from_config(
        {
            "kind": "search_tool",
            "base_url": "http://127.0.0.1:9/v1",
            "model": "m",
            "search": {"backend": "local", "index": str(small_index)},
            "max_sources": 2,
        }
    )
    assert isinstance(tool, SearchToolResponder) and tool.max_sources == 2 and isinstance(tool.backend, LocalIndex)


@pytest.mark.parametrize(
    "config, message",
    [
        ([], "must be a JSON object"),
        ({"kind": "magic"}, "'kind' must be one of"),
        ({"kind": "extractive", "stratgy": "x"}, r"unknown key\(s\) \['stratgy'\]"),
        ({"kind": "extractive", "strategy": "llm"}, "'strategy' must be one of"),
        ({"kind": "extractive", "index": "default", "search": {"backend": "local"}}, "either 'index' or 'search'"),
        ({"kind": "extractive", "max_sources": 0}, "'max_sources' must be between"),
        ({"kind": "extractive", "delay_s": "slow"}, "'delay_s' must be seconds"),
        ({"kind": "search_tool", "model": "m"}, "'base_url' is required"),
        ({"kind": "search_tool", "base_url": "ftp://x/v1", "model": "m"}, "'base_url' must be an http"),
        ({"kind": "search_tool", "base_url": "http://x/v1"}, "'model' is required"),
        (
            {"kind": "search_tool", "base_url": "http://x/v1", "model": "m", "search": {"backend": "bing"}},
            "search.backend must be",
        ),
        ({"kind": "search_tool", "base_url": "http://x/v1", "model": "m", "api_key_ref": "k"}, "no secret store"),
        ({"kind": "search_tool", "base_url": "http://x/v1", "model": "m", "max_tokens": True}, "'max_tokens' must be"),
        ({"kind": "hosted", "base_url": "http://x/v1", "model": "m"}, "'style' is required"),
        ({"kind": "hosted", "base_url": "http://x/v1", "model": "m", "style": "bing"}, "'style' must be one of"),
    ],
)
def test_config_errors_name_the_key(config: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        responder_from_config(config)


def test_config_missing_secret() -> None:
    with pytest.raises(ValueError, match="names the secret 'nope'"):
        responder_from_config(
            {"kind": "hosted", "style": "openai", "base_url": "http://x/v1", "model": "m", "api_key_ref": "nope"},
            secrets={}.__getitem__,
        )


def test_searxng_backend_in_an_extractive_responder(searxng) -> None:
    responder = responder_from_config(
        {"kind": "extractive", "strategy": "lead-passages", "search": {"backend": "searxng", "base_url": searxng.url}}
    )
    assert isinstance(responder.backend, SearxngBackend)
    answer = responder.respond([{"role": "user", "content": "python tuples"}])
    assert answer.complete and [s.url for s in answer.sources] == [f"https://example.org/{i}" for i in (1, 2, 3)]


@pytest.mark.parametrize("chunk_chars", [1, 2, 5, 11])
def test_streamed_pieces_always_concatenate_to_the_final_text(local: LocalIndex, chunk_chars: int) -> None:
    text = (
        "First [2]. A link [1](https://l.example) and `code[1]` then 【1†source】 and junk [9] "
        "```\nx = [2]\n``` end [1, 2]."
    )
    with OpenAIServer(lambda request: Reply(text=text, chunk_chars=chunk_chars)) as server:
        responder = SearchToolResponder("m", ChatClient(Endpoint(server.base_url, "m")), local, max_sources=2)
        answer, deltas = stream(responder, [{"role": "user", "content": "environment variable default value"}])
    assert len(answer.searches[0].results) == 2
    assert answer.text == (
        "First [1]. A link [1](https://l.example) and `code[1]` then [2] and junk ```\nx = [2]\n``` end [2][1]."
    )
    assert "".join(deltas) == answer.text and len(deltas) > 5
