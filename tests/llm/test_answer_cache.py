"""The answer cache in front of a model server (evaluators.llm.answer_cache), against the scripted server:
an identical request at temperature 0 is forwarded once (the seed aside), also when the repeats arrive
while the first is in flight; a different request, a sampled one, and a failed one are forwarded each
time; other routes pass through."""

from __future__ import annotations

import threading

import httpx

from evaluators.llm.answer_cache import AnswerCache, cache_key
from evaluators.llm.client import ChatClient
from evaluators.llm.judges import Judge
from evaluators.llm.types import Endpoint, JudgeSpec
from tests.support.openai_server import OpenAIServer, Reply, replies

SCHEMA = {"type": "object", "required": ["scores"]}
GRADE = {"criteria": "1. names the confounder", "answer": "No analysis", "count": "1"}


def proxy_for(server: OpenAIServer) -> AnswerCache:
    return AnswerCache(server.base_url.removesuffix("/v1"))


def chat(cache: AnswerCache, text: str, **extra: object) -> httpx.Response:
    body = {
        "model": "test-model",
        "messages": [{"role": "user", "content": text}],
        "temperature": 0.0,
        "max_tokens": 16,
        "seed": 1,
        **extra,
    }
    return httpx.post(cache.base_url + "/chat/completions", json=body, timeout=30)


def test_the_second_identical_request_is_answered_without_a_request():
    with OpenAIServer() as server, proxy_for(server) as cache:
        first, second = chat(cache, "grade this"), chat(cache, "grade this")
    assert server.request_count == 1 and cache.forwarded == 1 and cache.hits == 1
    assert first.json() == second.json() and first.json()["choices"][0]["message"]["content"] == "grade this"
    assert (first.headers["X-Answer-Cache"], second.headers["X-Answer-Cache"]) == ("miss", "hit")


def test_a_different_request_is_forwarded():
    with OpenAIServer() as server, proxy_for(server) as cache:
        answers = [chat(cache, "grade this"), chat(cache, "grade that"), chat(cache, "grade this", max_tokens=17)]
    assert server.request_count == 3 and cache.hits == 0
    assert [a.json()["choices"][0]["message"]["content"] for a in answers] == ["grade this", "grade that", "grade this"]


def test_the_seed_is_left_out_of_the_key_only_at_temperature_zero():
    with OpenAIServer() as server, proxy_for(server) as cache:
        chat(cache, "grade this", seed=1)
        chat(cache, "grade this", seed=2)  # greedy: the seed is not used
        assert server.request_count == 1
        chat(cache, "grade this", seed=3, temperature=0.7)
        chat(cache, "grade this", seed=3, temperature=0.7)  # sampled: never stored
    assert server.request_count == 3 and cache.hits == 1
    assert cache_key("/v1/chat/completions", b'{"temperature": 0.7}') is None
    assert cache_key("/v1/chat/completions", b'{"messages": []}') is None  # the API's default temperature is 1
    assert cache_key("/v1/chat/completions", b'{"temperature": 0, "stream": true}') is None
    assert cache_key("/v1/embeddings", b'{"temperature": 0}') is None
    assert cache_key("/v1/chat/completions", b'{"temperature": 0, "seed": 4, "a": 1}') == cache_key(
        "/v1/chat/completions", b'{"a": 1, "temperature": 0.0}'
    )


def test_repeats_in_flight_wait_for_the_first_answer():
    with OpenAIServer(lambda req: Reply(text='{"scores": [1]}', delay_s=0.5)) as server, proxy_for(server) as cache:
        answers: list[str] = []
        threads = [threading.Thread(target=lambda: answers.append(chat(cache, "grade this").text)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert server.request_count == 1 and cache.hits == 3 and len(set(answers)) == 1 and len(answers) == 4


def test_a_failed_answer_is_not_stored():
    with (
        OpenAIServer(replies(Reply(status=500, error="overloaded"), Reply(text="ok"))) as server,
        proxy_for(server) as cache,
    ):
        failed, answered, again = chat(cache, "grade this"), chat(cache, "grade this"), chat(cache, "grade this")
    assert (failed.status_code, answered.status_code, again.status_code) == (500, 200, 200)
    assert server.request_count == 2 and cache.hits == 1


def test_other_routes_pass_through_and_an_unreachable_server_is_a_bad_gateway():
    with OpenAIServer() as server, proxy_for(server) as cache:
        assert httpx.get(cache.base_url + "/models").json()["data"][0]["id"] == "test-model"
        assert httpx.get(cache.base_url.removesuffix("/v1") + "/health").status_code == 200
    with AnswerCache("http://127.0.0.1:9") as cache:
        assert chat(cache, "grade this").status_code == 502


def test_a_judge_behind_the_cache_asks_an_identical_call_once():
    """Two boards' judges grading the same reference answer: the second board's call costs no request."""
    with OpenAIServer(lambda req: Reply(text='{"scores": [1]}')) as server, proxy_for(server) as cache:
        calls = []
        for seed in (11, 12):  # one judge per board, each with its own client and seed
            judge = Judge(JudgeSpec("judge-model", "rev", "v1"), ChatClient(Endpoint(cache.base_url, "test-model")))
            calls.append(
                judge.ask(
                    "rubric-score",
                    {"rubric": "r", "question": "q", "answer": "a", "low": 0, "high": 1},
                    json_schema=SCHEMA,
                    seed=seed,
                )
            )
            judge.close()
        other = Judge(JudgeSpec("judge-model", "rev", "v1"), ChatClient(Endpoint(cache.base_url, "test-model")))
        calls.append(
            other.ask(
                "rubric-score",
                {"rubric": "r", "question": "q", "answer": "b", "low": 0, "high": 1},
                json_schema=SCHEMA,
                seed=11,
            )
        )
        other.close()
    assert server.request_count == 2 and cache.hits == 1
    assert [c.parsed for c in calls] == [{"scores": [1]}] * 3 and not any(c.fallback for c in calls)
