"""Fixtures for the search tests: a small FTS5 index built here from documents made here, and a
local HTTP server speaking SearXNG's JSON API (the stand-in for a hosted SearXNG instance)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from evaluators.arena.search import Document, LocalIndex, build_local_index

DOCUMENTS = [
    Document(
        "https://docs.example.org/os.html#environ",
        "os › os.environ",
        "A mapping object representing the string environment. Environment variables are read when the os "
        "module is first imported.\nUse os.getenv to read one environment variable with a default value.",
    ),
    Document(
        "https://docs.example.org/os.html#getenv",
        "os › os.getenv",
        "Return the value of the environment variable key as a string if it exists, or default if it "
        "does not. key is a string.",
    ),
    Document(
        "https://docs.example.org/tutorial.html#tuples",
        "Tutorial › Tuples and Sequences",
        "Tuples are immutable sequences, usually containing a heterogeneous sequence of elements. Lists are "
        "mutable and their elements are usually homogeneous.\nA tuple consists of a number of values "
        "separated by commas, for instance a_list += [1, 2, 3] works on lists only.",
    ),
    Document(
        "https://docs.example.org/asyncio.html#gather",
        "asyncio › asyncio.gather",
        "Run awaitable objects in the aws sequence concurrently. If all awaitables are completed "
        "successfully, the result is an aggregate list of returned values.",
    ),
    Document(
        "https://docs.example.org/json.html#loads",
        "json › json.loads",
        "Deserialize a str, bytes or bytearray instance containing a JSON document to a Python object "
        "using this conversion table. Café crème and naïve strings decode fine.",
    ),
    Document(
        "https://docs.example.org/long.html",
        "A long page",
        "\n".join(
            f"Paragraph {i} talks about sorting algorithms and the stability of sorted results. "
            f"Key functions decide the order in pass number {i}."
            for i in range(40)
        ),
    ),
]


@pytest.fixture(scope="session")
def small_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("search") / "index.sqlite"
    build_local_index(DOCUMENTS, path, source_version="test")
    return path


@pytest.fixture
def local(small_index: Path) -> LocalIndex:
    return LocalIndex(small_index)


class FakeSearxng:
    """Answers ``GET /search?q=...&format=json`` like SearXNG; ``respond`` decides the answer:
    a (status, body) pair, where a dict body is sent as JSON and a str as text."""

    def __init__(self, respond: Callable[[dict[str, list[str]]], tuple[int, Any]]):
        self.respond = respond
        self.queries: list[dict[str, list[str]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                params = parse_qs(parts.query)
                owner.queries.append(params)
                status, body = owner.respond(params) if parts.path == "/search" else (404, "not found")
                data = json.dumps(body).encode() if isinstance(body, (dict, list)) else str(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json" if isinstance(body, (dict, list)) else "text/html")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that gave up (the timeout test) closes the socket before the answer

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def searxng_results(query: str) -> dict[str, Any]:
    """A response in SearXNG's JSON shape."""
    return {
        "query": query,
        "number_of_results": 3,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": [],
        "results": [
            {
                "url": f"https://example.org/{i}",
                "title": f"Result {i} for {query}",
                "content": f"Snippet {i} about {query}.",
                "engine": "duckduckgo",
                "engines": ["duckduckgo"],
                "score": 1.0 / i,
                "category": "general",
                "positions": [i],
            }
            for i in range(1, 4)
        ]
        + [{"title": "no url here", "content": "dropped"}],
    }


@pytest.fixture
def searxng() -> Iterator[FakeSearxng]:
    server = FakeSearxng(lambda params: (200, searxng_results(params["q"][0])))
    yield server
    server.close()


@pytest.fixture
def fake_searxng_factory() -> Iterator[Callable[..., FakeSearxng]]:
    servers: list[FakeSearxng] = []

    def make(respond: Callable[[dict[str, list[str]]], tuple[int, Any]]) -> FakeSearxng:
        servers.append(FakeSearxng(respond))
        return servers[-1]

    yield make
    for server in servers:
        server.close()
