"""One answer per distinct request: a caching HTTP proxy in front of an OpenAI-compatible model server.

A judge is often asked the same question more than once: CausalPitfalls' two boards grade their reference
rows with identical judge requests (the rubric and the answer are all the judge sees, and both boards' rows
give the same answers), and within one board the five difficulties of a dataset share their rubric. At
temperature 0 a server's answer to a request does not depend on when it is asked (greedy decoding), so
:class:`AnswerCache` forwards each distinct request once and answers its repeats with the stored answer; a
repeat that arrives while the first is still being answered waits for that answer instead of asking again
(the two boards are scored side by side, so their identical calls arrive together).

What is stored: the answer (status 200) to a non-streamed POST to ``/v1/chat/completions`` or
``/v1/completions`` whose ``temperature`` is 0. Its key is the whole request body as canonical JSON (keys
sorted) without ``seed``, which greedy decoding does not use (a retry at another temperature keeps its seed
and is never stored). Everything else (another path, a GET, a sampled or streamed request, an error status,
an unreachable server) is forwarded as it is, every time. Answers live in memory for the proxy's life, at
most ``max_entries`` (the oldest leaves first). Each answer carries ``X-Answer-Cache: hit`` or ``miss``.

Example::

    with AnswerCache("http://127.0.0.1:8001", port=8002) as cache:   # clients use http://127.0.0.1:8002/v1
        ...
    cache.hits, cache.forwarded
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

#: the paths whose answers are stored
CACHED_PATHS = frozenset({"/v1/chat/completions", "/v1/completions"})
#: headers not copied from the upstream answer (the proxy sets its own length and connection handling)
_HOP_HEADERS = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "server", "date"}
)


@dataclass(frozen=True)
class Answer:
    """An upstream answer as the proxy returns it."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes


def cache_key(path: str, body: bytes) -> str | None:
    """The key under which the answer to a POST of ``body`` to ``path`` is stored, or None when it is not
    stored (another path, not a JSON object, streamed, or a temperature other than 0)."""
    if path not in CACHED_PATHS:
        return None
    try:
        request = json.loads(body)
    except ValueError:
        return None
    if not isinstance(request, dict) or request.get("stream") or request.get("temperature", 1.0) != 0:
        return None
    request.pop("seed", None)  # greedy decoding does not use it
    request["temperature"] = 0.0  # 0 and 0.0 are one request
    return path + " " + json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


class AnswerCache:
    """The proxy (see the module docstring): listens on 127.0.0.1:``port`` (0: a free one) and forwards to
    ``upstream`` (the server's base address, without ``/v1``)."""

    def __init__(self, upstream: str, *, port: int = 0, max_entries: int = 10_000, timeout_s: float = 3600.0):
        self.upstream = upstream.rstrip("/")
        self.max_entries = max_entries
        #: requests answered from the store (or from an answer in flight), and requests sent upstream
        self.hits = 0
        self.forwarded = 0
        self._answers: OrderedDict[str, Answer] = OrderedDict()
        self._in_flight: dict[str, threading.Event] = {}
        self._lock = threading.Lock()
        self._http = httpx.Client(timeout=timeout_s)
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """Where clients send their requests: the proxy's ``/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> AnswerCache:
        self._thread = threading.Thread(target=self._server.serve_forever, name="answer-cache", daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join()
            self._thread = None
        self._server.server_close()
        self._http.close()

    def __enter__(self) -> AnswerCache:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def answer(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> Answer:
        """The answer to one request: stored, awaited from an identical request in flight, or forwarded."""
        key = cache_key(path, body) if method == "POST" else None
        if key is None:
            return self._forward(method, path, body, headers)
        while True:
            with self._lock:
                stored = self._answers.get(key)
                if stored is not None:
                    self.hits += 1
                    return _marked(stored, "hit")
                waiting = self._in_flight.get(key)
                if waiting is None:
                    done = self._in_flight[key] = threading.Event()
                    break
            waiting.wait()  # then look again: stored, or the first request failed and this one asks itself
        try:
            answer = self._forward(method, path, body, headers)
            if answer.status == 200:
                with self._lock:
                    self._answers[key] = answer
                    while len(self._answers) > self.max_entries:
                        self._answers.popitem(last=False)
            return _marked(answer, "miss")
        finally:
            with self._lock:
                del self._in_flight[key]
            done.set()

    def _forward(self, method: str, path: str, body: bytes, headers: dict[str, str]) -> Answer:
        with self._lock:
            self.forwarded += 1
        sent = {k: v for k, v in headers.items() if k.lower() in ("content-type", "authorization", "accept")}
        try:
            reply = self._http.request(method, self.upstream + path, content=body or None, headers=sent)
        except httpx.HTTPError as exc:
            error = json.dumps({"error": {"message": f"the model server did not answer: {exc}", "type": "proxy_error"}})
            return Answer(502, (("Content-Type", "application/json"),), error.encode())
        kept = tuple((k, v) for k, v in reply.headers.items() if k.lower() not in _HOP_HEADERS)
        return Answer(reply.status_code, kept, reply.content)


def _marked(answer: Answer, how: str) -> Answer:
    return Answer(answer.status, (*answer.headers, ("X-Answer-Cache", how)), answer.body)


def _handler_for(cache: AnswerCache) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: the clients pool their connections
        wbufsize = 64 * 1024  # headers and body in one write, without Nagle's delay (~40 ms per request)
        disable_nagle_algorithm = True

        def _serve(self, method: str) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            answer = cache.answer(method, self.path, body, dict(self.headers.items()))
            self.send_response(answer.status)
            for name, value in answer.headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.body)))
            self.end_headers()
            self.wfile.write(answer.body)

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the server logs the requests
            pass

    return Handler
