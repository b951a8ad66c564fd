"""The one chat client for every model: `vllm serve`, `transformers serve`, hosted APIs and judges.

``ChatClient`` speaks OpenAI's ``/v1/chat/completions`` over one thread-safe pool of keep-alive
``http.client`` connections (a third of httpx's CPU per request, which matters at high concurrency
against a fast server; a pooled connection the server has closed is detected before reuse), with at
most ``max_concurrency`` requests in flight, retries with exponential backoff and jitter on rate limits,
server errors, broken connections and read timeouts (honouring ``Retry-After``), a total time limit
per call, streaming, token usage counted, and constrained outputs: a choice among fixed
strings or a JSON schema, through the server's guided decoding where it has it and checked after the
fact where it does not. Every failure is a :class:`ModelError` with a classified ``kind``; the API key
never appears in a message or a log line. Endpoints are reached directly: proxy environment variables
(``HTTPS_PROXY``...) are not read.

Example::

    client = ChatClient(Endpoint("http://127.0.0.1:8000/v1", "my-model"))
    result = client.chat([{"role": "user", "content": "Say hi"}], max_tokens=16)
    print(result.text, result.usage, client.usage)
"""
from __future__ import annotations

import base64
import http.client
import json
import logging
import random
import re
import select
import ssl
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Iterator, Sequence
from urllib.parse import urlsplit

from evaluators.core.media import MediaSource, inline_media
from evaluators.core.types import InfrastructureError, ModelRequest
from evaluators.llm.types import ChatResult, DeltaCallback, Endpoint, Message, ModelError, Usage

log = logging.getLogger(__name__)



def retryable_status(status: int) -> bool:
    """Rate limits, request timeouts and server-side failures are worth trying again."""
    return status in (408, 429) or status >= 500
#: How many times a constraint is retried in the checked mode before giving up.
CHECKED_RETRIES = 2

ResultCallback = Callable[[ModelRequest, "ChatResult | ModelError"], None]


def image_part(data: bytes, mime: str = "image/png") -> dict[str, Any]:
    """An image (or one video frame) as an OpenAI content part with a base64 data URL."""
    encoded = base64.b64encode(data).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{encoded}"}}


@dataclass(frozen=True)
class _Constraint:
    choices: tuple[str, ...] | None
    json_schema: dict[str, Any] | None

    def server_params(self) -> dict[str, Any]:
        if self.choices is not None:
            # vLLM >= 0.10.2 reads structured_outputs; older vLLM reads guided_choice.
            return {"structured_outputs": {"choice": list(self.choices)}, "guided_choice": list(self.choices)}
        assert self.json_schema is not None
        return {"response_format": {"type": "json_schema",
                                    "json_schema": {"name": "answer", "schema": self.json_schema, "strict": True}}}

    def instruction(self) -> str:
        if self.choices is not None:
            options = ", ".join(json.dumps(c) for c in self.choices)
            return f"Answer with exactly one of these options and nothing else: {options}."
        return ("Answer with one JSON object and nothing else (no prose, no code fence), matching this JSON "
                f"schema: {json.dumps(self.json_schema)}")

    def check(self, text: str) -> str | None:
        """None when ``text`` satisfies the constraint, else what is wrong with it."""
        if self.choices is not None:
            found = extract_choice(text, self.choices)
            return None if found is not None else f"{text.strip()[:80]!r} is not one of {list(self.choices)}"
        try:
            value = parse_json_answer(text)
        except ValueError as exc:
            return str(exc)
        missing = [k for k in (self.json_schema or {}).get("required", []) if not isinstance(value, dict) or k not in value]
        return f"the JSON answer lacks the required keys {missing}" if missing else None


def extract_choice(text: str, choices: Sequence[str]) -> str | None:
    """The choice an answer gives: the answer itself when it is one of ``choices``, else the one choice
    it holds as a standalone word ("The party stance is 9." gives "9"); None when it holds none or
    several ("7 out of 9"). What a server without guided decoding is held to (``constrained`` is then
    "extracted" and the text is kept as written)."""
    answer = text.strip()
    if answer in choices:
        return answer
    found = {c for c in choices if re.search(rf"(?<![\w]){re.escape(c)}(?![\w])", answer)}
    return found.pop() if len(found) == 1 else None


def parse_json_answer(text: str) -> Any:
    """The JSON value in a model's answer, tolerating a surrounding Markdown code fence."""
    body = text.strip()
    if body.startswith("```"):
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    try:
        return json.loads(body)
    except ValueError as exc:
        raise ValueError(f"the answer is not valid JSON ({exc}): {text.strip()[:80]!r}") from None


class _Retry(Exception):
    """One attempt failed in a way worth trying again."""

    def __init__(self, message: str, *, status: int | None = None, wait_s: float | None = None):
        super().__init__(message)
        self.status = status
        self.wait_s = wait_s


@dataclass(frozen=True)
class _Response:
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


class _ConnectionPool:
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
        connection = (http.client.HTTPSConnection(self.host, self.port, timeout=connect_timeout, context=self._context)
                      if self.https else http.client.HTTPConnection(self.host, self.port, timeout=connect_timeout))
        connection.connect()
        return connection

    def post(self, path: str, body: bytes, *, connect_timeout: float,
             read_timeout: float) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
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


def _lines(response: http.client.HTTPResponse) -> Iterator[str]:
    """The response body's lines, decoded, without their line ends."""
    while True:
        line = response.readline()
        if not line:
            return
        yield line.decode("utf-8").rstrip("\r\n")


class ChatClient:
    """Chat completions against one OpenAI-compatible endpoint (see the module docstring).

    ``timeout_s`` bounds one call from start to finish, retries included; ``attempt_timeout_s``
    (default: ``timeout_s``) bounds the wait for each read, after which the attempt is retried.
    """

    def __init__(self, endpoint: Endpoint, *, max_concurrency: int = 8, timeout_s: float = 120.0,
                 max_retries: int = 4, backoff_s: float = 0.5, attempt_timeout_s: float | None = None):
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.endpoint = endpoint
        self.max_concurrency = max_concurrency
        self.timeout_s = timeout_s
        self.attempt_timeout_s = attempt_timeout_s or timeout_s
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        headers = {"Content-Type": "application/json", **endpoint.headers}
        if endpoint.api_key:
            headers["Authorization"] = f"Bearer {endpoint.api_key}"
        self._http = _ConnectionPool(endpoint.base_url, max_concurrency, headers)
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self._lock = threading.Lock()
        self._usage = Usage()
        self._requests = 0
        self._completed = 0
        self._server_constraints: bool | None = None  # unknown until the server accepts or rejects them

    # --- counters ------------------------------------------------------------------------------
    @property
    def usage(self) -> Usage:
        """Tokens used by every completed call of this client, all threads together."""
        with self._lock:
            return self._usage

    @property
    def request_count(self) -> int:
        """HTTP requests sent, retries included."""
        with self._lock:
            return self._requests

    @property
    def completed_count(self) -> int:
        """Calls that returned a result."""
        with self._lock:
            return self._completed

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- the API -------------------------------------------------------------------------------
    def chat(self, messages: Sequence[Message], *, temperature: float = 0.0, top_p: float = 1.0,
             max_tokens: int = 1024, n: int = 1, seed: int | None = None, stop: Sequence[str] | None = None,
             choices: Sequence[str] | None = None, json_schema: dict[str, Any] | None = None,
             on_delta: DeltaCallback | None = None, extra: dict[str, Any] | None = None,
             checked_tries: int = 1 + CHECKED_RETRIES, media: MediaSource | None = None) -> ChatResult:
        """One chat completion. ``on_delta`` given: streamed, each piece of the first sample's text
        passed to it as it arrives. ``choices``/``json_schema``: constrained output (see module doc);
        ``checked_tries`` answers are asked for when the client checks them itself (a caller with its
        own retry, such as a judge asking again at another temperature, passes 1).
        ``extra`` adds fields to the request body as they are. Parts that refer to stored media
        (``media:<key>``) are read from ``media`` and sent inline, for this call only
        (:func:`evaluators.core.media.inline_media`). Raises :class:`ModelError`, or
        :class:`evaluators.core.media.MediaError` when a stored medium cannot be read."""
        body: dict[str, Any] = {"model": self.endpoint.model, "messages": inline_media(messages, media), "temperature": temperature,
                                "top_p": top_p, "max_tokens": max_tokens}
        if n != 1:
            body["n"] = n
        if seed is not None:
            body["seed"] = seed
        if stop:
            body["stop"] = list(stop)
        body.update(extra or {})
        deadline = time.monotonic() + self.timeout_s
        if choices is None and json_schema is None:
            return self._complete(body, on_delta, deadline)
        if choices is not None and json_schema is not None:
            raise ValueError("ask for either choices or json_schema, not both")
        constraint = _Constraint(tuple(choices) if choices is not None else None, json_schema)
        return self._constrained(body, constraint, on_delta, deadline, max(1, checked_tries))

    def chat_many(self, requests: Iterable[ModelRequest], *, on_result: ResultCallback,
                  cancel: threading.Event | None = None, media: MediaSource | None = None) -> int:
        """Answer ``requests`` with at most ``max_concurrency`` in flight, calling ``on_result`` from
        worker threads as each finishes (with the :class:`ChatResult` or the :class:`ModelError`; a
        failure of one request is never raised). Requests are drawn lazily from the iterable.
        Keys ``seed``, ``stop``, ``choices`` and ``json_schema`` in ``ModelRequest.extra`` become
        the arguments of the same name; the rest goes into the body. Once ``cancel`` is set no
        further request starts (those in flight finish); returns how many were started. An
        exception raised by ``on_result`` stops new requests and is raised once the rest finish, and so
        does an InfrastructureError of one request (stored media that cannot be read: the machine's
        fault, never the model's answer). ``media`` is where requests' stored images are read from."""
        started = 0
        slots = threading.BoundedSemaphore(self.max_concurrency)

        def run(request: ModelRequest) -> None:
            try:
                extra = dict(request.extra)
                named = {k: extra.pop(k) for k in ("seed", "stop", "choices", "json_schema") if k in extra}
                outcome: ChatResult | ModelError = self.chat(
                    request.messages, temperature=request.temperature, top_p=request.top_p,
                    max_tokens=request.max_tokens, n=request.n, extra=extra, media=media, **named)
            except ModelError as exc:
                outcome = exc
            except InfrastructureError as exc:  # not an answer: the job stops and is retried
                callback_errors.append(exc)
                slots.release()
                return
            except Exception as exc:  # noqa: BLE001 - a bug in one request must not stop the rest
                outcome = ModelError("endpoint", f"{type(exc).__name__}: {exc}")
            try:
                on_result(request, outcome)
            except BaseException as exc:  # the caller's bug: stop starting requests, raise it at the end
                callback_errors.append(exc)
            finally:
                slots.release()

        callback_errors: list[BaseException] = []
        with ThreadPoolExecutor(max_workers=self.max_concurrency, thread_name_prefix="chat") as pool:
            for request in requests:
                slots.acquire()
                if callback_errors or (cancel is not None and cancel.is_set()):
                    slots.release()
                    break
                pool.submit(run, request)
                started += 1
        if callback_errors:
            raise callback_errors[0]
        return started

    # --- constrained outputs -----------------------------------------------------------------
    def _constrained(self, body: dict[str, Any], constraint: _Constraint, on_delta: DeltaCallback | None,
                     deadline: float, tries: int) -> ChatResult:
        if self._server_constraints is not False:
            try:
                result = self._complete({**body, **constraint.server_params()}, on_delta, deadline)
            except ModelError as exc:
                if exc.status not in (400, 422):
                    raise
                log.info("the server at %s rejected guided decoding (%s); checking answers instead",
                         self.endpoint.base_url, exc)
                self._server_constraints = False
            else:
                if all(constraint.check(t) is None and (constraint.choices is None or t.strip() in constraint.choices)
                       for t in result.texts):
                    self._server_constraints = True
                    return replace(result, constrained="server")
                self._server_constraints = False
        messages = _with_instruction(body["messages"], constraint.instruction())
        problem = ""
        for _ in range(tries):
            result = self._complete({**body, "messages": messages}, on_delta, deadline)
            problems = [p for p in (constraint.check(t) for t in result.texts) if p]
            if not problems:
                if constraint.choices is None:
                    return replace(result, constrained="checked")
                if all(t.strip() in constraint.choices for t in result.texts):
                    return replace(result, texts=[t.strip() for t in result.texts], constrained="checked")
                return replace(result, constrained="extracted")  # the texts as written: extract_choice reads them
            problem = problems[0]
        raise ModelError("output", f"the model's answer does not satisfy the constraint after "
                                   f"{tries} {'try' if tries == 1 else 'tries'}: {problem}")

    # --- one call with retries -----------------------------------------------------------------
    def _complete(self, body: dict[str, Any], on_delta: DeltaCallback | None, deadline: float) -> ChatResult:
        started = time.monotonic()
        attempt = 0
        while True:
            attempt += 1
            delivered = [False]
            try:
                with self._slots:
                    if on_delta is None:
                        texts, finish, usage, raw = self._post(body, deadline)
                    else:
                        texts, finish, usage, raw = self._stream(body, on_delta, deadline, delivered)
            except _Retry as retry:
                if delivered[0]:
                    raise ModelError("endpoint", f"{self._where()}: {retry} after part of the answer was "
                                                 "streamed", retryable=True, status=retry.status) from None
                wait = retry.wait_s if retry.wait_s is not None else \
                    self.backoff_s * (2 ** (attempt - 1)) * (1 + random.random() / 2)
                if attempt > self.max_retries:
                    raise ModelError("endpoint", f"{self._where()}: {retry} (gave up after {attempt} attempts)",
                                     retryable=True, status=retry.status) from None
                if time.monotonic() + wait >= deadline:
                    raise ModelError("timeout", f"{self._where()}: no answer within {self.timeout_s:g} s "
                                                f"({attempt} attempts; last: {retry})", retryable=True,
                                     status=retry.status) from None
                log.info("retrying %s in %.2f s: %s", self._where(), wait, retry)
                time.sleep(wait)
                continue
            result = ChatResult(texts=texts, finish_reason=finish, usage=usage,
                                model=str(raw.get("model") or self.endpoint.model),
                                latency_s=time.monotonic() - started, attempts=attempt, raw=raw)
            with self._lock:
                self._usage = self._usage + usage
                self._completed += 1
            return result

    def _where(self) -> str:
        return f"model '{self.endpoint.model}' at {self.endpoint.base_url}"

    def _timeout(self, deadline: float) -> dict[str, float]:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ModelError("timeout", f"{self._where()}: no answer within {self.timeout_s:g} s", retryable=True)
        read = min(self.attempt_timeout_s, remaining)
        return {"connect_timeout": min(10.0, read), "read_timeout": read}

    def _send(self, body: dict[str, Any], deadline: float) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        timeout = self._timeout(deadline)
        self._count_request()
        try:
            return self._http.post("/chat/completions", json.dumps(body).encode(), **timeout)
        except TimeoutError as exc:
            raise self._timed_out(exc, deadline) from None
        except (OSError, http.client.HTTPException) as exc:
            raise _Retry(f"connection failed: {type(exc).__name__}: {exc}") from None

    def _count_request(self) -> None:
        with self._lock:
            self._requests += 1

    def _post(self, body: dict[str, Any], deadline: float) -> tuple[list[str], str, Usage, dict[str, Any]]:
        connection, pending = self._send(body, deadline)
        try:
            response = _Response(pending.status, pending.reason, pending.headers, pending.read())
        except TimeoutError as exc:
            connection.close()
            raise self._timed_out(exc, deadline) from None
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            raise _Retry(f"connection failed: {type(exc).__name__}: {exc}") from None
        self._http.give_back(connection, pending)
        self._check_status(response)
        try:
            data = response.json()
        except ValueError:
            raise ModelError("endpoint", f"{self._where()} answered with a body that is not JSON: "
                                         f"{response.text[:200]!r}") from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not choices or not isinstance(choices, list):
            raise ModelError("endpoint", f"{self._where()} answered without choices: {str(data)[:200]}")
        ordered = sorted(choices, key=lambda c: c.get("index", 0))
        texts = [_content_text((c.get("message") or {}).get("content")) for c in ordered]
        finish = str(ordered[0].get("finish_reason") or "")
        return texts, finish, _usage(data.get("usage")), data

    def _stream(self, body: dict[str, Any], on_delta: DeltaCallback, deadline: float,
                delivered: list[bool]) -> tuple[list[str], str, Usage, dict[str, Any]]:
        body = {**body, "stream": True, "stream_options": {"include_usage": True}}
        pieces: dict[int, list[str]] = {}
        finishes: dict[int, str] = {}
        annotations: list[Any] = []
        raw: dict[str, Any] = {}
        usage = Usage()
        done = False
        connection, response = self._send(body, deadline)
        try:
            if response.status >= 400:
                self._check_status(_Response(response.status, response.reason, response.headers, response.read()))
            for line in _lines(response):
                if time.monotonic() > deadline:
                    raise ModelError("timeout", f"{self._where()}: the stream did not finish within "
                                                f"{self.timeout_s:g} s", retryable=True)
                if not line.startswith("data:"):
                    continue
                payload = line[5:].strip()
                if payload == "[DONE]":
                    done = True
                    break
                try:
                    chunk = json.loads(payload)
                except ValueError:
                    raise ModelError("endpoint", f"{self._where()} streamed a chunk that is not JSON: "
                                                 f"{payload[:200]!r}") from None
                for key, value in chunk.items():
                    if key not in ("choices", "usage", "id", "object", "created"):
                        raw[key] = value
                if chunk.get("usage"):
                    usage = _usage(chunk["usage"])
                for choice in chunk.get("choices") or []:
                    index = int(choice.get("index", 0))
                    delta = choice.get("delta") or {}
                    text = delta.get("content")
                    if text:
                        pieces.setdefault(index, []).append(text)
                        if index == 0:
                            delivered[0] = True
                            on_delta(text)
                    annotations.extend(delta.get("annotations") or [])
                    if choice.get("finish_reason"):
                        finishes[index] = str(choice["finish_reason"])
            if done:  # read the chunked body's end, so the connection can serve the next request
                response.read()
        except TimeoutError as exc:
            connection.close()
            raise self._timed_out(exc, deadline) from None
        except (OSError, http.client.HTTPException) as exc:
            connection.close()
            raise _Retry(f"the stream broke: {type(exc).__name__}: {exc}") from None
        except BaseException:
            connection.close()
            raise
        self._http.give_back(connection, response)
        # Some servers (transformers serve) end the stream without [DONE]; a finish reason for every
        # sample means it ended normally all the same.
        if not done and not (finishes and all(i in finishes for i in pieces)):
            raise _Retry("the stream ended before [DONE]")
        count = max([*pieces, *finishes, 0]) + 1
        if annotations:
            raw["message"] = {"annotations": annotations}
        return (["".join(pieces.get(i, [])) for i in range(count)], finishes.get(0, ""), usage, raw)

    def _timed_out(self, exc: Exception, deadline: float) -> Exception:
        if time.monotonic() >= deadline - 0.01:
            return ModelError("timeout", f"{self._where()}: no answer within {self.timeout_s:g} s", retryable=True)
        return _Retry(f"read timed out after {self.attempt_timeout_s:g} s")

    def _check_status(self, response: _Response) -> None:
        status = response.status_code
        if status < 400:
            return
        detail = _error_detail(response)
        if self.endpoint.api_key:
            detail = detail.replace(self.endpoint.api_key, "***")
        if retryable_status(status):
            raise _Retry(f"HTTP {status}: {detail}", status=status, wait_s=_retry_after(response))
        if status in (401, 403):
            problem = "wrong or missing API key" if status == 401 else "the API key is not allowed to use this model"
            message = f"{self._where()}: {problem} (HTTP {status}: {detail})"
        elif status == 404:
            message = (f"model '{self.endpoint.model}' not found on {self.endpoint.base_url} "
                       f"(or no chat-completions route there; HTTP 404: {detail})")
        else:
            message = f"{self._where()} refused the request (HTTP {status}: {detail})"
        raise ModelError("endpoint", message, status=status)


def _with_instruction(messages: Sequence[Message], instruction: str) -> list[Message]:
    """The messages with ``instruction`` appended to the last user message (content parts kept as
    they are), or as a new user message when the conversation does not end with one."""
    if not messages or messages[-1].get("role") != "user":
        return [*messages, {"role": "user", "content": instruction}]
    *head, last = messages
    content = last.get("content")
    if isinstance(content, list):
        new_content: Any = [*content, {"type": "text", "text": instruction}]
    else:
        new_content = f"{content or ''}\n\n{instruction}"
    return [*head, {**last, "content": new_content}]


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # some servers answer with content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content)


def _usage(data: Any) -> Usage:
    if not isinstance(data, dict):
        return Usage()
    return Usage(int(data.get("prompt_tokens") or 0), int(data.get("completion_tokens") or 0))


def _error_detail(response: _Response) -> str:
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


def _retry_after(response: _Response) -> float | None:
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff
