"""The chat client's HTTP transport: a thread-safe pool of keep-alive ``http.client`` connections.

:class:`ConnectionPool` shares connections to one origin between threads (an idle one is checked for a
server-side close before reuse); :class:`Response` is a fully read response, and
:func:`error_detail` and :func:`retry_after` read what error handling needs from it;
:func:`response_lines` reads a streamed body line by line. Proxy environment variables are not read.
"""

from __future__ import annotations

import http.client
import json
import select
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Response:
    """A fully read HTTP response (what error handling needs)."""

    status_code: int
    reason_phrase: str
    headers: http.client.HTTPMessage
    content: bytes

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return json.loads(self.content)


def _dropped(connection: http.client.HTTPConnection) -> bool:
    """True when an idle keep-alive connection was closed by the server (it reads as ready: EOF)."""
    sock = connection.sock
    if sock is None:
        return True
    try:
        if hasattr(select, "poll"):
            poller = select.poll()
            poller.register(sock, select.POLLIN)
            return bool(poller.poll(0))
        return bool(select.select([sock], [], [], 0)[0])
    except (OSError, ValueError):
        return True


class ConnectionPool:
    """Keep-alive ``http.client`` connections to one origin, shared by threads: a request takes an
    idle connection (most recently used first, checked for a server-side close) or opens one, and
    gives it back once its response is fully read. At most ``size`` idle connections are kept."""

    def __init__(self, base_url: str, size: int, headers: dict[str, str]):
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"endpoint base_url must be an http:// or https:// URL, got {base_url!r}")
        self.https = parts.scheme == "https"
        self.host, self.port = parts.hostname, parts.port
        self.prefix = parts.path.rstrip("/")
        self.size = size
        self.headers = headers
        self._context = ssl.create_default_context() if self.https else None
        self._idle: list[http.client.HTTPConnection] = []
        self._lock = threading.Lock()
        self._closed = False

    def _connect(self, connect_timeout: float) -> http.client.HTTPConnection:
        connection = (
            http.client.HTTPSConnection(self.host, self.port, timeout=connect_timeout, context=self._context)
            if self.https
            else http.client.HTTPConnection(self.host, self.port, timeout=connect_timeout)
        )
        connection.connect()
        return connection

    def post(
        self, path: str, body: bytes, *, connect_timeout: float, read_timeout: float
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """Send a POST and return its connection and response (headers read, body not yet). Raises
        OSError or http.client.HTTPException when the connection fails."""
        connection = None
        with self._lock:
            while self._idle and connection is None:
                candidate = self._idle.pop()
                if _dropped(candidate):
                    candidate.close()
                else:
                    connection = candidate
        reused = connection is not None
        while True:
            if connection is None:
                connection = self._connect(connect_timeout)
            assert connection.sock is not None
            connection.sock.settimeout(read_timeout)
            try:
                connection.request("POST", self.prefix + path, body, self.headers)
                return connection, connection.getresponse()
            except (ConnectionError, http.client.BadStatusLine):
                connection.close()
                if not reused:
                    raise
                # closed by the server between the check and the request: once more on a new one
                connection, reused = None, False
            except BaseException:
                connection.close()
                raise

    def give_back(self, connection: http.client.HTTPConnection, response: http.client.HTTPResponse) -> None:
        """Keep the connection for the next request if its response was read to the end."""
        if response.isclosed() and connection.sock is not None:
            with self._lock:
                if not self._closed and len(self._idle) < self.size:
                    self._idle.append(connection)
                    return
        connection.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()


def response_lines(response: http.client.HTTPResponse) -> Iterator[str]:
    """The response body's lines, decoded, without their line ends."""
    while True:
        line = response.readline()
        if not line:
            return
        yield line.decode("utf-8").rstrip("\r\n")


def error_detail(response: Response) -> str:
    """The error message of a failed response: the JSON body's ``error`` (or its message), else the text."""
    try:
        data = response.json()
    except ValueError:
        return response.text.strip()[:300] or response.reason_phrase
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data))
        if isinstance(error, dict):
            return str(error.get("message") or error)[:300]
        return str(error)[:300]
    return str(data)[:300]


def retry_after(response: Response) -> float | None:
    """The seconds a ``Retry-After`` header asks for; None without one (or when it is an HTTP date)."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff
