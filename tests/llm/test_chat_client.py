"""ChatClient against the scripted OpenAI-compatible server: retries, refusals, timeouts, broken and
malformed responses, streaming, usage, bounded concurrency and constrained outputs."""

from __future__ import annotations

import threading

import pytest

from evaluators.core.types import ModelRequest
from evaluators.llm.client import ChatClient, image_part, parse_json_answer
from evaluators.llm.types import ChatResult, Endpoint, ModelError, Usage
from tests.support.openai_server import OpenAIServer, Reply, replies

HI = [{"role": "user", "content": "hello there"}]


def client_for(server: OpenAIServer, **kwargs) -> ChatClient:
    kwargs.setdefault("backoff_s", 0.01)
    return ChatClient(Endpoint(server.base_url, "test-model", api_key=kwargs.pop("api_key", "")), **kwargs)


def test_plain_chat_returns_text_usage_and_raw_response():
    with OpenAIServer() as server:
        client = client_for(server)
        result = client.chat(HI, max_tokens=5, seed=3, stop=["\n"])
    assert result.text == "hello there" and result.finish_reason == "stop"
    assert result.usage == Usage(2, 2) and result.attempts == 1 and result.constrained == ""
    assert result.raw["object"] == "chat.completion"
    sent = server.requests[0]
    assert (sent["model"], sent["max_tokens"], sent["seed"], sent["stop"]) == ("test-model", 5, 3, ["\n"])


def test_retries_429_honouring_retry_after_then_503_then_succeeds():
    script = replies(
        Reply(status=429, retry_after=0.05, error={"message": "slow down"}), Reply(status=503), Reply(text="fine")
    )
    with OpenAIServer(script) as server:
        client = client_for(server)
        result = client.chat(HI)
    assert result.text == "fine" and result.attempts == 3
    assert server.request_count == 3 and client.request_count == 3


def test_gives_up_after_max_retries_with_a_retryable_endpoint_error():
    with OpenAIServer(lambda req: Reply(status=500, error={"message": "boom"})) as server:
        client = client_for(server, max_retries=2)
        with pytest.raises(ModelError) as caught:
            client.chat(HI)
    assert caught.value.kind == "endpoint" and caught.value.retryable and caught.value.status == 500
    assert "boom" in str(caught.value) and "3 attempts" in str(caught.value)
    assert server.request_count == 3


def test_wrong_key_is_not_retried_and_the_key_never_appears():
    with OpenAIServer(api_key="right-key") as server:
        client = client_for(server, api_key="sk-secret-wrong")
        with pytest.raises(ModelError) as caught:
            client.chat(HI)
    message = str(caught.value)
    assert caught.value.kind == "endpoint" and not caught.value.retryable and caught.value.status == 401
    assert "wrong or missing API key" in message and "sk-secret-wrong" not in message
    assert server.request_count == 0  # refused before the handler


def test_right_key_is_sent_as_bearer_token():
    with OpenAIServer(api_key="right-key") as server:
        assert client_for(server, api_key="right-key").chat(HI).text == "hello there"
    assert server.headers[0]["Authorization"] == "Bearer right-key"


def test_unknown_model_is_a_clear_404_message():
    def handler(request):
        return Reply(status=404, error={"message": f"The model `{request['model']}` does not exist."})

    with OpenAIServer(handler) as server, pytest.raises(ModelError) as caught:
        client_for(server).chat(HI)
    assert f"model 'test-model' not found on {server.base_url}" in str(caught.value)
    assert server.request_count == 1


def test_total_timeout_is_a_timeout_error():
    with OpenAIServer(lambda req: Reply(delay_s=2.0)) as server:
        client = client_for(server, timeout_s=0.3)
        with pytest.raises(ModelError) as caught:
            client.chat(HI)
    assert caught.value.kind == "timeout"


def test_read_timeout_of_one_attempt_is_retried():
    with OpenAIServer(replies(Reply(delay_s=1.0), Reply(text="second"))) as server:
        client = client_for(server, timeout_s=30, attempt_timeout_s=0.2)
        result = client.chat(HI)
    assert result.text == "second" and result.attempts == 2


@pytest.mark.parametrize(
    "reply, expected",
    [
        (Reply(invalid_json=True), "not JSON"),
        (Reply(empty_body=True), "not JSON"),
    ],
)
def test_malformed_responses_are_endpoint_errors(reply, expected):
    with OpenAIServer(lambda req: reply) as server, pytest.raises(ModelError) as caught:
        client_for(server).chat(HI)
    assert caught.value.kind == "endpoint" and expected in str(caught.value)


def test_response_without_choices_is_an_endpoint_error():
    with OpenAIServer(lambda req: Reply(text=[])) as server, pytest.raises(ModelError, match="without choices"):
        client_for(server).chat(HI)


def test_connection_closed_without_answer_is_retried():
    with OpenAIServer(replies(Reply(cut_after_chunks=0), Reply(text="back"))) as server:
        result = client_for(server).chat(HI)
    assert result.text == "back" and result.attempts == 2


def test_streaming_deltas_concatenate_to_the_text_and_usage_comes_last():
    seen: list[str] = []
    with OpenAIServer(lambda req: Reply(text="the quick brown fox", chunk_chars=4)) as server:
        result = client_for(server).chat(HI, on_delta=seen.append)
    assert len(seen) > 1 and "".join(seen) == result.text == "the quick brown fox"
    assert result.usage == Usage(2, 4) and result.finish_reason == "stop"
    assert server.requests[0]["stream"] is True and server.requests[0]["stream_options"] == {"include_usage": True}


def test_streaming_keeps_citations_and_annotations():
    annotation = {"type": "url_citation", "url_citation": {"url": "https://a.example", "title": "A"}}
    reply = Reply(
        text="Paris [1]",
        extra={"citations": ["https://a.example"], "search_results": [{"url": "https://a.example"}]},
        annotations=[annotation],
    )
    with OpenAIServer(lambda req: reply) as server:
        result = client_for(server).chat(HI, on_delta=lambda piece: None)
    assert result.raw["citations"] == ["https://a.example"]
    assert result.raw["search_results"] == [{"url": "https://a.example"}]
    assert result.raw["message"]["annotations"] == [annotation]


def test_stream_cut_before_anything_arrived_is_retried():
    with OpenAIServer(replies(Reply(cut_after_chunks=0), Reply(text="whole"))) as server:
        result = client_for(server).chat(HI, on_delta=lambda piece: None)
    assert result.text == "whole" and result.attempts == 2


def test_stream_cut_midway_raises_without_retrying():
    seen: list[str] = []
    with (
        OpenAIServer(lambda req: Reply(text="a long answer", chunk_chars=2, cut_after_chunks=3)) as server,
        pytest.raises(ModelError) as caught,
    ):
        client_for(server).chat(HI, on_delta=seen.append)
    assert caught.value.kind == "endpoint" and "part of the answer" in str(caught.value)
    assert seen and server.request_count == 1


def test_n_samples_and_usage_totals_across_threads():
    with OpenAIServer() as server:
        client = client_for(server)
        result = client.chat(HI, n=3)
        threads = [threading.Thread(target=client.chat, args=(HI,)) for _ in range(5)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert result.texts == ["hello there"] * 3 and server.requests[0]["n"] == 3
    assert client.usage == Usage(2 * 6, 6 + 2 * 5) and client.completed_count == 6


def test_image_parts_go_through_unchanged():
    part = image_part(b"\x89PNG fake", "image/png")
    messages = [{"role": "user", "content": [{"type": "text", "text": "what is this"}, part]}]
    with OpenAIServer() as server:
        result = client_for(server).chat(messages)
    assert server.requests[0]["messages"] == messages
    assert part["image_url"]["url"].startswith("data:image/png;base64,")
    assert result.text == "what is this"


def test_chat_many_bounds_concurrency_and_reports_each_result():
    gate = threading.Event()

    def handler(request):
        gate.wait(0.2)  # hold requests so that many overlap
        return Reply(text=request["messages"][0]["content"])

    results: dict[str, ChatResult | ModelError] = {}
    lock = threading.Lock()

    def on_result(request, outcome):
        with lock:
            results[request.item_id] = outcome

    requests = [
        ModelRequest(item_id=f"i{k}", messages=[{"role": "user", "content": f"q{k}"}], max_tokens=8) for k in range(12)
    ]
    with OpenAIServer(handler) as server:
        started = client_for(server, max_concurrency=3).chat_many(requests, on_result=on_result)
    assert started == 12 and len(results) == 12
    assert all(results[f"i{k}"].text == f"q{k}" for k in range(12))
    assert 1 <= server.max_in_flight <= 3


def test_chat_many_passes_one_failure_to_on_result_and_stops_on_cancel():
    def handler(request):
        content = request["messages"][0]["content"]
        return Reply(status=400, error={"message": "bad"}) if content == "bad" else Reply(text=content)

    outcomes: list = []
    cancel = threading.Event()

    def on_result(request, outcome):
        outcomes.append(outcome)
        if len(outcomes) == 2:
            cancel.set()

    def requests():
        for content in ["ok", "bad", "later", "later", "later"]:
            yield ModelRequest(item_id=content, messages=[{"role": "user", "content": content}])

    with OpenAIServer(handler) as server:
        started = client_for(server, max_concurrency=1).chat_many(requests(), on_result=on_result, cancel=cancel)
    assert started == 2 and len(outcomes) == 2
    assert isinstance(outcomes[1], ModelError) and outcomes[1].status == 400


def test_choice_through_the_server():
    def handler(request):
        assert request["structured_outputs"] == {"choice": ["A", "B"]} and request["guided_choice"] == ["A", "B"]
        return Reply(text="B")

    with OpenAIServer(handler) as server:
        result = client_for(server).chat(HI, choices=["A", "B"])
    assert result.text == "B" and result.constrained == "server"


def test_choice_falls_back_to_checked_when_the_server_rejects_the_parameter():
    def handler(request):
        if "guided_choice" in request:
            return Reply(status=400, error={"message": "unknown field guided_choice"})
        return Reply(text=" A \n")

    with OpenAIServer(handler) as server:
        client = client_for(server)
        first = client.chat(HI, choices=["A", "B"])
        second = client.chat(HI, choices=["A", "B"])
    assert first.text == second.text == "A" and first.constrained == second.constrained == "checked"
    assert "exactly one of these options" in server.requests[1]["messages"][-1]["content"]
    assert server.request_count == 3  # the rejection is remembered


def test_checked_choice_retries_then_gives_up_with_an_output_error():
    # the server ignores the guided parameters
    with OpenAIServer(lambda req: Reply(text="maybe")) as server, pytest.raises(ModelError) as caught:
        client_for(server).chat(HI, choices=["yes", "no"])
    assert (
        caught.value.kind == "output"
        and "'maybe' is not one of" in str(caught.value)
        and "after 3 tries" in str(caught.value)
    )
    # the answer to the ignored guidance is the first of the three checked tries, not an extra request
    assert server.request_count == 3


def test_json_schema_through_the_server_and_checked():
    schema = {"type": "object", "properties": {"score": {"type": "integer"}}, "required": ["score"]}

    def handler(request):
        if "response_format" in request:
            assert request["response_format"]["json_schema"]["schema"] == schema
            return Reply(text='{"score": 4}')
        return Reply(text="x")

    with OpenAIServer(handler) as server:
        assert client_for(server).chat(HI, json_schema=schema).constrained == "server"

    answers = replies(Reply(text='{"other": 1}'), Reply(text="not json"), Reply(text='```json\n{"score": 2}\n```'))
    with OpenAIServer(answers) as server:
        result = client_for(server).chat(HI, json_schema=schema)
    assert result.constrained == "checked" and parse_json_answer(result.text) == {"score": 2}
    assert server.request_count == 3


def test_stream_ending_after_the_finish_reason_without_done_is_complete():
    # transformers serve ends its streams this way: finish reason and usage, then no [DONE].
    with OpenAIServer(lambda req: Reply(text="abc", chunk_chars=3, cut_after_chunks=4)) as server:
        result = client_for(server).chat(HI, on_delta=lambda piece: None)
    assert result.text == "abc" and result.attempts == 1 and result.usage.prompt_tokens == 2


def test_chat_many_raises_an_error_of_on_result_after_the_rest_finish():
    def on_result(request, outcome):
        if request.item_id == "1":
            raise RuntimeError("database down")

    requests = [ModelRequest(item_id=str(k), messages=HI) for k in range(6)]
    with OpenAIServer() as server, pytest.raises(RuntimeError, match="database down"):
        client_for(server, max_concurrency=1).chat_many(requests, on_result=on_result)
    assert server.request_count == 2  # nothing started after the failing callback


class KeepAliveServer:
    """A bare HTTP/1.1 server on a real socket that answers every chat completion with "ok" and
    counts the connections it accepted; with ``requests_per_connection`` it closes each connection
    after that many answers, without saying so (as servers drop idle keep-alive connections)."""

    def __init__(self, requests_per_connection: int | None = None) -> None:
        import socket

        self.requests_per_connection = requests_per_connection
        self.connections = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.base_url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(sock,), daemon=True).start()

    def _serve(self, sock) -> None:
        import json

        reader = sock.makefile("rb")
        answered = 0
        with sock, reader:
            while self.requests_per_connection is None or answered < self.requests_per_connection:
                length = None
                line = reader.readline()
                if not line:
                    return
                while line not in (b"\r\n", b""):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                    line = reader.readline()
                reader.read(length or 0)
                body = json.dumps(
                    {
                        "choices": [
                            {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
                        ],
                        "usage": {"prompt_tokens": 1, "completion_tokens": 1},
                    }
                ).encode()
                sock.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
                    % (len(body), body)
                )
                answered += 1

    def close(self) -> None:
        self.listener.close()


def test_connections_are_kept_alive_and_reused():
    server = KeepAliveServer()
    try:
        with ChatClient(Endpoint(server.base_url, "test-model"), max_concurrency=4) as client:
            assert [client.chat(HI).text for _ in range(5)] == ["ok"] * 5
            assert server.connections == 1
            requests = [ModelRequest(item_id=str(k), messages=HI, max_tokens=4) for k in range(40)]
            client.chat_many(requests, on_result=lambda request, outcome: None)
            assert client.completed_count == 45 and client.request_count == 45
        assert server.connections <= 4  # one pool, bounded by max_concurrency
    finally:
        server.close()


def test_a_connection_the_server_closed_is_replaced_without_a_retry():
    server = KeepAliveServer(requests_per_connection=1)
    try:
        with ChatClient(Endpoint(server.base_url, "test-model"), max_retries=0) as client:
            assert [client.chat(HI).text for _ in range(3)] == ["ok"] * 3
            assert client.request_count == 3  # no attempt was spent on a dead connection
        assert server.connections == 3
    finally:
        server.close()


def test_streaming_leaves_the_connection_reusable():
    with (
        OpenAIServer(lambda request: Reply(text="one two three", chunk_chars=4)) as server,
        client_for(server) as client,
    ):
        pieces: list[str] = []
        assert client.chat(HI, on_delta=pieces.append).text == "one two three"
        assert client.chat(HI).text == "one two three"  # the same pooled connection, its stream read to the end
        assert "".join(pieces) == "one two three" and client.request_count == 2
        assert len(client._http._idle) == 1


def test_the_prompt_goes_unchanged_where_the_server_constrains_and_with_the_instruction_where_it_cannot():
    prompt = [{"role": "user", "content": "Rate it 0-10."}]
    with OpenAIServer(lambda request: Reply(text="B")) as server:  # vLLM: the guidance honoured
        client_for(server).chat(prompt, choices=["A", "B"])
    assert server.requests[0]["messages"] == prompt

    def transformers_serve(request):  # refuses structured_outputs (422), ignores response_format
        if "structured_outputs" in request:
            return Reply(status=422, error="Unexpected fields in the request: {'structured_outputs', 'guided_choice'}")
        return Reply(text="7")

    number = {"type": "number", "minimum": 0, "maximum": 10}
    with OpenAIServer(transformers_serve) as server:
        client = client_for(server)
        client.chat(prompt, choices=["7", "8"])
        client.chat(prompt, json_schema=number)
    # written out by hand: the prompt, a blank line, the client's instruction
    assert server.requests[1]["messages"] == [
        {
            "role": "user",
            "content": ('Rate it 0-10.\n\nAnswer with exactly one of these options and nothing else: "7", "8".'),
        }
    ]
    assert server.requests[2]["messages"] == [
        {
            "role": "user",
            "content": (
                "Rate it 0-10.\n\nAnswer with one JSON value and nothing else (no prose, no code fence), matching "
                "this JSON "
                'schema: {"type": "number", "minimum": 0, "maximum": 10}'
            ),
        }
    ]


def test_a_guided_answer_cut_off_at_the_token_cap_is_asked_again_guided_not_with_the_instruction():
    schema = {"type": "object", "properties": {"score": {"type": "integer"}}, "required": ["score"]}
    answers = replies(Reply(text='{\n  "score": \n \n \n', finish_reason="length"), Reply(text='{"score": 3}'))
    with OpenAIServer(answers) as server:
        result = client_for(server).chat([{"role": "user", "content": "Score it."}], json_schema=schema)
    assert result.constrained == "server" and server.request_count == 2
    assert all(
        "response_format" in r and r["messages"] == [{"role": "user", "content": "Score it."}] for r in server.requests
    )
