"""The plain-chat setting's responders: which contestants can take part (an extractive one cannot, a hosted
one only with its ``without_search`` model), what a model is sent without search (no results, its
non-search model and request fields) and what comes back (no sources, no searches), against the scripted
OpenAI-compatible server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from evaluators.arena.plain_chat import PLAIN_CHAT_PROMPT, PlainChatResponder, settings_of
from evaluators.arena.responders import HostedSearchResponder, SearchToolResponder, responder_from_config
from tests.support.openai_server import OpenAIServer, Reply

ASK = [{"role": "user", "content": "Who wrote Don Quixote?"}]


def test_each_kind_takes_part_in_the_settings_it_can_answer_in(small_index: Path) -> None:
    extractive = {"kind": "extractive", "index": str(small_index)}
    hosted = {
        "kind": "hosted",
        "style": "gemini",
        "base_url": "http://127.0.0.1:9/v1",
        "model": "g-pro",
        "extra": {"tools": [{"google_search": {}}]},
    }
    assert settings_of(extractive) == ("search",) and settings_of(hosted) == ("search",)
    assert settings_of({**hosted, "without_search": {}}) == ("search", "chat")
    assert settings_of({"kind": "search_tool"}) == settings_of({"kind": "chat"}) == ("search", "chat")
    with pytest.raises(ValueError, match="setting: a 'extractive' contestant cannot answer in the 'chat' setting"):
        responder_from_config(extractive, setting="chat")
    with pytest.raises(ValueError, match="give 'without_search' to name its non-search model"):
        responder_from_config(hosted, setting="chat")
    with pytest.raises(ValueError, match="setting: must be one of search, chat, got 'web'"):
        responder_from_config({"kind": "chat", "base_url": "http://127.0.0.1:9/v1", "model": "m"}, setting="web")
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['tools'\] in 'without_search'"):
        responder_from_config({**hosted, "without_search": {"tools": []}}, setting="chat")
    assert isinstance(
        responder_from_config(hosted), HostedSearchResponder
    )  # in the search setting it searches as before


@pytest.mark.parametrize("kind", ["search_tool", "hosted", "chat"])
def test_a_model_asked_without_search_gets_no_results_and_returns_no_sources(small_index: Path, kind: str) -> None:
    with OpenAIServer(lambda request: Reply(text="Miguel de Cervantes.", chunk_chars=5)) as server:
        config: dict[str, Any] = {"kind": kind, "base_url": server.base_url, "model": "m-search"}
        if kind == "search_tool":
            config["search"] = {"backend": "local", "index": str(small_index)}
        if kind == "hosted":
            config.update(
                style="gemini",
                extra={"tools": [{"google_search": {}}]},
                without_search={"model": "m-plain", "extra": {"reasoning_effort": "low"}},
            )
        responder = responder_from_config(config, setting="chat", name="hidden")
        assert isinstance(responder, PlainChatResponder)
        deltas: list[str] = []
        answer = responder.respond(ASK, on_delta=deltas.append)
        sent = server.requests[-1]
    assert answer.complete and answer.text == "Miguel de Cervantes." == "".join(deltas)
    assert answer.sources == [] and answer.searches == []
    assert sent["messages"] == [{"role": "system", "content": PLAIN_CHAT_PROMPT}, *ASK]
    assert sent["model"] == ("m-plain" if kind == "hosted" else "m-search")
    assert "tools" not in sent and (sent.get("reasoning_effort") == "low") == (kind == "hosted")


def test_a_search_tool_still_searches_in_the_search_setting(small_index: Path) -> None:
    config = {
        "kind": "search_tool",
        "base_url": "http://127.0.0.1:9/v1",
        "model": "m",
        "search": {"backend": "local", "index": str(small_index)},
    }
    assert isinstance(responder_from_config(config), SearchToolResponder)
    plain = responder_from_config({"kind": "chat", "base_url": "http://127.0.0.1:9/v1", "model": "m"})
    assert isinstance(plain, PlainChatResponder)  # a plain model answers without search in the search setting too


def test_a_failed_plain_answer_is_an_answer_not_an_exception() -> None:
    with OpenAIServer(lambda request: Reply(status=500, error="boom")) as server:
        responder = responder_from_config({"kind": "chat", "base_url": server.base_url, "model": "m", "timeout_s": 5})
        answer = responder.respond(ASK)
    assert not answer.complete and answer.finish_reason == "error" and answer.error and answer.sources == []
