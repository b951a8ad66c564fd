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
(``HTTPS_PROXY``...) are not read. The connection pool is in :mod:`evaluators.llm.connections`, the
constraints in :mod:`evaluators.llm.constraints`, the reading of an answer (a body or a stream's chunks)
in :mod:`evaluators.llm.answers`.

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
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from evaluators.core.media import MediaSource, inline_media
from evaluators.core.types import InfrastructureError, ModelRequest
from evaluators.llm.answers import StreamedAnswer, answer_of_body
from evaluators.llm.connections import ConnectionPool, Response, error_detail, response_lines, retry_after
from evaluators.llm.constraints import Constraint, extract_choice, parse_json_answer, with_instruction
from evaluators.llm.types import ChatResult, DeltaCallback, Endpoint, Message, ModelError, Usage

__all__ = [
    "CHECKED_RETRIES",
    "ChatClient",
    "ResultCallback",
    "extract_choice",
    "image_part",
    "parse_json_answer",
    "retryable_status",
]

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


class _Retry(Exception):
    """One attempt failed in a way worth trying again."""

    def __init__(self, message: str, *, status: int | None = None, wait_s: float | None = None):
        super().__init__(message)
        self.status = status
        self.wait_s = wait_s


class ChatClient:
    """Chat completions against one OpenAI-compatible endpoint (see the module docstring).

    ``timeout_s`` bounds one call from start to finish, retries included; ``attempt_timeout_s``
    (default: ``timeout_s``) bounds the wait for each read, after which the attempt is retried.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        max_concurrency: int = 8,
        timeout_s: float = 120.0,
        max_retries: int = 4,
        backoff_s: float = 0.5,
        attempt_timeout_s: float | None = None,
    ):
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
        self._http = ConnectionPool(endpoint.base_url, max_concurrency, headers)
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
    def chat(
        self,
        messages: Sequence[Message],
        *,
        temperature: float = 0.0,
        top_p: float = 1.0,
        max_tokens: int = 1024,
        n: int = 1,
        seed: int | None = None,
        stop: Sequence[str] | None = None,
        choices: Sequence[str] | None = None,
        json_schema: dict[str, Any] | None = None,
        on_delta: DeltaCallback | None = None,
        extra: dict[str, Any] | None = None,
        checked_tries: int = 1 + CHECKED_RETRIES,
        media: MediaSource | None = None,
    ) -> ChatResult:
        """One chat completion. ``on_delta`` given: streamed, each piece of the first sample's text
        passed to it as it arrives. ``choices``/``json_schema``: constrained output (see module doc);
        ``checked_tries`` answers are asked for when the client checks them itself (a caller with its
        own retry, such as a judge asking again at another temperature, passes 1).
        ``extra`` adds fields to the request body as they are. Parts that refer to stored media
        (``media:<key>``) are read from ``media`` and sent inline, for this call only
        (:func:`evaluators.core.media.inline_media`). Raises :class:`ModelError`, or
        :class:`evaluators.core.media.MediaError` when a stored medium cannot be read."""
        body: dict[str, Any] = {
            "model": self.endpoint.model,
            "messages": inline_media(messages, media),
            "temperature": temperature,
            "top_p": top_p,
            "max_tokens": max_tokens,
        }
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
        constraint = Constraint(tuple(choices) if choices is not None else None, json_schema)
        return self._constrained(body, constraint, on_delta, deadline, max(1, checked_tries))

    def chat_many(
        self,
        requests: Iterable[ModelRequest],
        *,
        on_result: ResultCallback,
        cancel: threading.Event | None = None,
        media: MediaSource | None = None,
    ) -> int:
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
                    request.messages,
                    temperature=request.temperature,
                    top_p=request.top_p,
                    max_tokens=request.max_tokens,
                    n=request.n,
                    extra=extra,
                    media=media,
                    **named,
                )
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
            except BaseException as exc:  # noqa: BLE001 - the caller's bug: stop starting requests, raise it at the end
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
    def _constrained(
        self, body: dict[str, Any], constraint: Constraint, on_delta: DeltaCallback | None, deadline: float, tries: int
    ) -> ChatResult:
        problem, total = "", tries
        while self._server_constraints is not False and tries > 0:
            try:
                result = self._complete({**body, **constraint.server_params()}, on_delta, deadline)
            except ModelError as exc:
                if exc.status not in (400, 422):
                    raise
                log.info(
                    "the server at %s rejected guided decoding (%s); checking answers instead",
                    self.endpoint.shown_url,
                    exc,
                )
                self._server_constraints = False
                break
            problems = [p for p in (constraint.check(t) for t in result.texts) if p]
            if not problems and (
                constraint.choices is None or all(t.strip() in constraint.choices for t in result.texts)
            ):
                self._server_constraints = True
                return replace(result, constrained="server")
            tries -= 1
            if problems and result.finish_reason == "length":
                # cut off at the token cap (a small model padding guided JSON with whitespace): no sign that
                # the server ignored the guidance, so this failed try is asked again the same way
                problem = problems[0]
                continue
            self._server_constraints = False
            # the server took the guidance and ignored it: this answer is the first checked try (a
            # caller that owns its retries, such as a judge, gets one request per call, never two)
            if not problems:
                return self._checked(result, constraint)
            problem = problems[0]
        messages = with_instruction(body["messages"], constraint.instruction())
        for _ in range(tries):
            result = self._complete({**body, "messages": messages}, on_delta, deadline)
            problems = [p for p in (constraint.check(t) for t in result.texts) if p]
            if not problems:
                return self._checked(result, constraint)
            problem = problems[0]
        raise ModelError(
            "output",
            f"the model's answer does not satisfy the constraint after "
            f"{total} {'try' if total == 1 else 'tries'}: {problem}",
        )

    @staticmethod
    def _checked(result: ChatResult, constraint: Constraint) -> ChatResult:
        """A result the client checked itself (its texts satisfy ``constraint``), marked how."""
        if constraint.choices is None:
            return replace(result, constrained="checked")
        if all(t.strip() in constraint.choices for t in result.texts):
            return replace(result, texts=[t.strip() for t in result.texts], constrained="checked")
        return replace(result, constrained="extracted")  # the texts as written: extract_choice reads them

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
                    raise ModelError(
                        "endpoint",
                        f"{self._where()}: {retry} after part of the answer was streamed",
                        retryable=True,
                        status=retry.status,
                    ) from None
                wait = (
                    retry.wait_s
                    if retry.wait_s is not None
                    else self.backoff_s * (2 ** (attempt - 1)) * (1 + random.random() / 2)
                )
                if attempt > self.max_retries:
                    raise ModelError(
                        "endpoint",
                        f"{self._where()}: {retry} (gave up after {attempt} attempts)",
                        retryable=True,
                        status=retry.status,
                    ) from None
                if time.monotonic() + wait >= deadline:
                    raise ModelError(
                        "timeout",
                        f"{self._where()}: no answer within {self.timeout_s:g} s ({attempt} attempts; last: {retry})",
                        retryable=True,
                        status=retry.status,
                    ) from None
                log.info("retrying %s in %.2f s: %s", self._where(), wait, retry)
                time.sleep(wait)
                continue
            result = ChatResult(
                texts=texts,
                finish_reason=finish,
                usage=usage,
                model=str(raw.get("model") or self.endpoint.model),
                latency_s=time.monotonic() - started,
                attempts=attempt,
                raw=raw,
            )
            with self._lock:
                self._usage = self._usage + usage
                self._completed += 1
            return result

    def _where(self) -> str:
        return f"model '{self.endpoint.model}' at {self.endpoint.shown_url}"

    def _timeout(self, deadline: float) -> dict[str, float]:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ModelError("timeout", f"{self._where()}: no answer within {self.timeout_s:g} s", retryable=True)
        read = min(self.attempt_timeout_s, remaining)
        return {"connect_timeout": min(10.0, read), "read_timeout": read}

    def _send(
        self, body: dict[str, Any], deadline: float
    ) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
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
            response = Response(pending.status, pending.reason, pending.headers, pending.read())
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
            raise ModelError(
                "endpoint", f"{self._where()} answered with a body that is not JSON: {response.text[:200]!r}"
            ) from None
        return answer_of_body(data, self._where())

    def _stream(
        self, body: dict[str, Any], on_delta: DeltaCallback, deadline: float, delivered: list[bool]
    ) -> tuple[list[str], str, Usage, dict[str, Any]]:
        body = {**body, "stream": True, "stream_options": {"include_usage": True}}
        answer = StreamedAnswer(on_delta, delivered)
        done = False
        connection, response = self._send(body, deadline)
        try:
            if response.status >= 400:
                self._check_status(Response(response.status, response.reason, response.headers, response.read()))
            for line in response_lines(response):
                if time.monotonic() > deadline:
                    raise ModelError(
                        "timeout",
                        f"{self._where()}: the stream did not finish within {self.timeout_s:g} s",
                        retryable=True,
                    )
                if not line.startswith("data:"):
                    continue
                payload = line[5:].strip()
                if payload == "[DONE]":
                    done = True
                    break
                try:
                    chunk = json.loads(payload)
                except ValueError:
                    raise ModelError(
                        "endpoint", f"{self._where()} streamed a chunk that is not JSON: {payload[:200]!r}"
                    ) from None
                answer.take(chunk)
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
        if not done and not answer.finished():
            raise _Retry("the stream ended before [DONE]")
        return answer.result()

    def _timed_out(self, exc: Exception, deadline: float) -> Exception:
        if time.monotonic() >= deadline - 0.01:
            return ModelError("timeout", f"{self._where()}: no answer within {self.timeout_s:g} s", retryable=True)
        return _Retry(f"read timed out after {self.attempt_timeout_s:g} s")

    def _check_status(self, response: Response) -> None:
        status = response.status_code
        if status < 400:
            return
        detail = error_detail(response)
        if self.endpoint.api_key:
            detail = detail.replace(self.endpoint.api_key, "***")
        if retryable_status(status):
            raise _Retry(f"HTTP {status}: {detail}", status=status, wait_s=retry_after(response))
        if status in (401, 403):
            problem = "wrong or missing API key" if status == 401 else "the API key is not allowed to use this model"
            message = f"{self._where()}: {problem} (HTTP {status}: {detail})"
        elif status == 404:
            message = (
                f"model '{self.endpoint.model}' not found on {self.endpoint.shown_url} "
                f"(or no chat-completions route there; HTTP 404: {detail})"
            )
        else:
            message = f"{self._where()} refused the request (HTTP {status}: {detail})"
        raise ModelError("endpoint", message, status=status)
