"""A scripted OpenAI-compatible HTTP server for tests: the stand-in for hosted model APIs.

It speaks the real protocol over a real socket (``ThreadingHTTPServer`` on 127.0.0.1, a free port):
``GET /health``, ``GET /v1/models`` and ``POST /v1/chat/completions``, plain JSON or streaming
(server-sent events ``data: {...}\\n\\n`` ending with ``data: [DONE]``; ``stream_options.include_usage``
adds a last chunk with ``usage``). What it answers is decided by a *handler*: a callable taking the
request JSON and returning a :class:`Reply`. The default handler echoes the last user message.

Example::

    from tests.support.openai_server import OpenAIServer, Reply, replies

    with OpenAIServer(replies(Reply(status=429, retry_after=0.05), Reply(text="hello"))) as server:
        endpoint = Endpoint(server.base_url, "test-model")          # base_url ends in /v1
        ...                                                          # call it with any client
        assert server.request_count == 2
        assert server.requests[-1]["messages"][0]["content"] == "hi"
        assert server.max_in_flight <= 4

    # A Perplexity-like API: citations at the top level, streamed in every chunk.
    OpenAIServer(lambda req: Reply(text="Paris [1]", extra={"citations": ["https://a.example"]}))
    # OpenAI-style url_citation annotations on the message.
    Reply(text="...", annotations=[{"type": "url_citation", "url_citation": {"url": "...", "title": "..."}}])

:class:`Reply` fields: ``text`` (or a list of n texts), ``finish_reason``, ``extra`` (top-level
fields), ``annotations`` (message level), ``status``/``error``/``retry_after`` for an HTTP error,
``delay_s`` (wait before answering), ``cut_after_chunks`` (streaming: close the connection after that
many chunks, without ``[DONE]``; non-streaming: close without any response), ``empty_body``,
``invalid_json``, ``usage`` (prompt, completion) overriding the word counts, ``chunk_chars`` (text per
streamed delta). With ``api_key=...`` every request without ``Authorization: Bearer <key>`` gets 401.
``headers`` records each request's headers, ``requests`` their JSON bodies (chat completions only).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "test-model"


@dataclass
class Reply:
    """What the server answers to one chat-completions request (see the module docstring)."""

    text: str | list[str] = "ok"
    finish_reason: str = "stop"
    extra: dict[str, Any] = field(default_factory=dict)
    annotations: list[dict[str, Any]] = field(default_factory=list)
    status: int = 200
    error: dict[str, Any] | str | None = None
    retry_after: float | None = None
    delay_s: float = 0.0
    cut_after_chunks: int | None = None
    empty_body: bool = False
    invalid_json: bool = False
    usage: tuple[int, int] | None = None
    chunk_chars: int = 3


Handler = Callable[[dict[str, Any]], Reply]


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return " ".join(part["text"] for part in content or [] if isinstance(part, dict) and part.get("text"))


def echo(request: dict[str, Any]) -> Reply:
    """The default handler: answers with the last user message's text (n copies when n > 1)."""
    users = [m for m in request.get("messages", []) if m.get("role") == "user"]
    text = _message_text(users[-1]["content"]) if users else ""
    n = int(request.get("n") or 1)
    return Reply(text=[text] * n if n > 1 else text)


def replies(*script: Reply) -> Handler:
    """A handler answering with ``script`` in order, then repeating the last reply."""
    lock = threading.Lock()
    position = [0]

    def handler(request: dict[str, Any]) -> Reply:
        with lock:
            reply = script[min(position[0], len(script) - 1)]
            position[0] += 1
        return reply

    return handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # the listen backlog: benchmarks open many connections at once
    owner: OpenAIServer


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server
    # Headers and body leave in one write, without Nagle's delay (else ~40 ms per keep-alive request).
    wbufsize = 64 * 1024
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    # --- plumbing ---------------------------------------------------------------------------
    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _authorized(self) -> bool:
        key = self.server.owner.api_key
        if key is None or self.headers.get("Authorization") == f"Bearer {key}":
            return True
        self._send_json(
            401,
            {
                "error": {
                    "message": "Incorrect API key provided.",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            },
        )
        return False

    def do_GET(self) -> None:
        owner = self.server.owner
        if self.path == "/health":
            self._send_json(200, {"status": "ok"})
        elif self.path == "/v1/models":
            if self._authorized():
                self._send_json(
                    200,
                    {
                        "object": "list",
                        "data": [{"id": m, "object": "model", "owned_by": "test"} for m in owner.models],
                    },
                )
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        if self.path != "/v1/chat/completions":
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        if not self._authorized():
            return
        try:
            request = json.loads(raw)
        except ValueError:
            self._send_json(400, {"error": {"message": "request body is not JSON"}})
            return
        owner._enter(request, dict(self.headers))
        try:
            reply = owner.handler(request)
            if reply.delay_s:
                time.sleep(reply.delay_s)
            self._answer(request, reply)
        finally:
            owner._leave()

    # --- answers ----------------------------------------------------------------------------
    def _answer(self, request: dict[str, Any], reply: Reply) -> None:
        if reply.status >= 400:
            error = reply.error if reply.error is not None else {"message": f"scripted error {reply.status}"}
            body = {"error": error} if isinstance(error, dict) else error
            headers = {"Retry-After": f"{reply.retry_after:g}"} if reply.retry_after is not None else {}
            if isinstance(body, str):
                self._send_raw(reply.status, body.encode(), "text/plain", headers)
            else:
                self._send_json(reply.status, body, headers)
            return
        if reply.empty_body:
            self._send_raw(200, b"", "application/json")
            return
        if reply.invalid_json:
            self._send_raw(200, b'{"id": "chatcmpl-1", "choices": [', "application/json")
            return
        if request.get("stream"):
            self._stream(request, reply)
            return
        if reply.cut_after_chunks is not None:
            self.close_connection = True
            self.connection.shutdown(2)
            return
        texts = _texts(reply)
        message_extra = {"annotations": reply.annotations} if reply.annotations else {}
        body = {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", MODEL),
            "choices": [
                {
                    "index": i,
                    "message": {"role": "assistant", "content": t, **message_extra},
                    "finish_reason": reply.finish_reason,
                }
                for i, t in enumerate(texts)
            ],
            "usage": _usage(request, reply, texts),
            **reply.extra,
        }
        self._send_json(200, body)

    def _send_raw(self, status: int, data: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, request: dict[str, Any], reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        texts = _texts(reply)
        base = {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": request.get("model", MODEL),
            **reply.extra,
        }
        chunks: list[dict[str, Any]] = []
        for index, text in enumerate(texts):
            chunks.append(
                {
                    **base,
                    "choices": [{"index": index, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}],
                }
            )
            pieces = [text[i : i + reply.chunk_chars] for i in range(0, len(text), reply.chunk_chars)] or [""]
            for number, piece in enumerate(pieces):
                delta: dict[str, Any] = {"content": piece}
                if reply.annotations and number == len(pieces) - 1:
                    delta["annotations"] = reply.annotations
                chunks.append({**base, "choices": [{"index": index, "delta": delta, "finish_reason": None}]})
            chunks.append({**base, "choices": [{"index": index, "delta": {}, "finish_reason": reply.finish_reason}]})
        if (request.get("stream_options") or {}).get("include_usage"):
            chunks.append({**base, "choices": [], "usage": _usage(request, reply, texts)})
        for number, chunk in enumerate(chunks):
            if reply.cut_after_chunks is not None and number >= reply.cut_after_chunks:
                self.wfile.flush()
                self.connection.shutdown(2)
                return
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()


def _texts(reply: Reply) -> list[str]:
    return list(reply.text) if isinstance(reply.text, list) else [reply.text]


def _usage(request: dict[str, Any], reply: Reply, texts: list[str]) -> dict[str, int]:
    if reply.usage is not None:
        prompt, completion = reply.usage
    else:
        prompt = sum(len(_message_text(m.get("content")).split()) for m in request.get("messages", []))
        completion = sum(len(t.split()) for t in texts)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


class OpenAIServer:
    """The scripted server. Use as a context manager, or ``start()`` / ``stop()``."""

    def __init__(self, handler: Handler = echo, *, api_key: str | None = None, models: list[str] | None = None):
        self.handler = handler
        self.api_key = api_key
        self.models = models if models is not None else [MODEL]
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._url = ""

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (kept after ``stop()`` for assertions on messages)."""
        assert self._url, "the server was never started"
        return self._url

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def _enter(self, request: dict[str, Any], headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append(request)
            self.headers.append(headers)
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def start(self) -> OpenAIServer:
        self._httpd = _Server(("127.0.0.1", 0), _RequestHandler)
        self._httpd.owner = self
        host, port = self._httpd.server_address[:2]
        self._url = f"http://{host}:{port}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    """Run the echo server in the foreground (for benchmarks): prints its base URL on stdout.

    ``python -m tests.support.openai_server [DELAY_S [TEXT]]`` answers every request after DELAY_S
    seconds, with TEXT when given (a judge's digit) or else the echo.
    """
    import sys

    delay = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    fixed = sys.argv[2] if len(sys.argv) > 2 else None

    def handler(request: dict[str, Any]) -> Reply:
        reply = echo(request) if fixed is None else Reply(text=fixed)
        reply.delay_s = delay
        return reply

    server = OpenAIServer(handler).start()
    print(server.base_url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
