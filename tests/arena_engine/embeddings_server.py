"""A local stand-in for an OpenAI-compatible ``/v1/embeddings`` endpoint (as vLLM serves one): each
text's vector counts its words from each planted topic's vocabulary (tests/arena_engine/topic_simulation.py),
plus one for the rest; it answers the batch in reverse order (the client must sort by ``index``) and
records every request's body."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.arena_engine.topic_simulation import TOPIC_WORDS


def vector(text: str) -> list[float]:
    words = text.lower().split()
    return [float(sum(w in vocab for w in words)) for vocab in TOPIC_WORDS] + [0.5]


@contextmanager
def embeddings_server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(base URL, the request bodies received)."""
    seen: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # http.server calls the handler by this name
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.append(body)
            if self.path != "/v1/embeddings":
                self.send_response(404)
                self.end_headers()
                return
            data = [{"object": "embedding", "index": i, "embedding": vector(t)} for i, t in enumerate(body["input"])][
                ::-1
            ]
            out = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()
