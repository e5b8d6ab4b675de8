"""HTTP for the remote backend (stdlib only): endpoint URLs, JSON calls, SSE streams, retries, clear errors."""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from app.core.engines.base import EngineError
from app.core.engines.load_texts import said
from app.core.util.translatable import QT_TRANSLATE_NOOP

RETRYABLE_STATUS = frozenset({500, 502, 503, 504})


class RemoteError(EngineError):
    """A request to the remote server failed; ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, hint: str | None = None, *, status: int | None = None, retryable: bool = False):
        super().__init__(message, hint)
        self.status = status
        self.retryable = retryable


@dataclass(frozen=True)
class RemoteEndpoint:
    """Where the server is and how patiently to talk to it.

    ``api_base`` is the OpenAI base path (``/v1``); ``root_path`` the server root, where vLLM
    serves ``/tokenize``. ``retries`` counts extra attempts after a connection error or a 5xx
    answer; waits grow as ``backoff_s``, 2x, 4x...
    """

    scheme: str
    host: str
    port: int
    api_base: str
    api_key: str = ""
    connect_timeout_s: float = 10.0
    read_timeout_s: float = 300.0
    retries: int = 3
    backoff_s: float = 0.5

    @property
    def url(self) -> str:
        return f"{self.scheme}://{self.host}:{self.port}{self.api_base}"

    @property
    def root_path(self) -> str:
        base = self.api_base.rstrip("/")
        return base[: -len("/v1")] if base.endswith("/v1") else base

    def headers(self, *, streaming: bool = False) -> dict[str, str]:
        accept = "text/event-stream" if streaming else "application/json"
        headers = {"Content-Type": "application/json", "Accept": accept}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers


_ADDRESS_HINT = said(QT_TRANSLATE_NOOP("EngineLoad", "Use an address like http://192.168.1.20:8000/v1."))


def parse_endpoint(url: str, api_key: str = "", **options: Any) -> RemoteEndpoint:
    """A RemoteEndpoint for ``url`` (``http(s)://host[:port][/v1]``); an address without a path gets ``/v1``."""
    text = url.strip()
    if not text:
        raise RemoteError(said(QT_TRANSLATE_NOOP("EngineLoad", "No remote server address is set.")),
                          said(QT_TRANSLATE_NOOP(
                              "EngineLoad", "Enter it in Settings > Engine > Remote server address.")))
    parts = urlsplit(text if "://" in text else f"http://{text}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RemoteError(said(QT_TRANSLATE_NOOP("EngineLoad", "'{0}' is not a server address."), url), _ADDRESS_HINT)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError as error:
        raise RemoteError(said(QT_TRANSLATE_NOOP(
            "EngineLoad", "'{0}' has an invalid port."), url), _ADDRESS_HINT) from error
    path = parts.path.rstrip("/") or "/v1"
    return RemoteEndpoint(parts.scheme, parts.hostname, port, path, api_key.strip(), **options)


def _status_error(endpoint: RemoteEndpoint, status: int, body: bytes, what: str) -> RemoteError:
    detail = _error_detail(body)
    suffix = f": {detail}" if detail else ""
    if status in (401, 403):
        return RemoteError(
            said(QT_TRANSLATE_NOOP(
                "EngineLoad", "The server at {0} refused the API key (HTTP {1}){2}."), endpoint.url, status, suffix),
            said(QT_TRANSLATE_NOOP("EngineLoad", "Check the Remote API key in Settings > Engine.")),
            status=status,
        )
    if status == 404:
        return RemoteError(
            said(QT_TRANSLATE_NOOP(
                "EngineLoad", "The server at {0} has no {1} (HTTP 404){2}."), endpoint.url, what, suffix),
            said(QT_TRANSLATE_NOOP(
                "EngineLoad", "Check the model name, and that the address ends in the API's base path (usually /v1).")),
            status=status,
        )
    return RemoteError(
        said(QT_TRANSLATE_NOOP(
            "EngineLoad", "The server at {0} answered HTTP {1} to {2}{3}."), endpoint.url, status, what, suffix),
        said(QT_TRANSLATE_NOOP("EngineLoad", "Try again; if it keeps failing, check the server's log.")),
        status=status,
        retryable=status in RETRYABLE_STATUS,
    )


def _error_detail(body: bytes) -> str:
    """The server's own error message from an OpenAI-style error body, shortened."""
    text = body.decode("utf-8", "replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return text[:200]
    if isinstance(data, dict):
        error = data.get("error", data.get("detail", data.get("message")))
        if isinstance(error, dict):
            error = error.get("message", error)
        return str(error)[:200] if error else ""
    return text[:200]


def _connection_error(endpoint: RemoteEndpoint, error: BaseException) -> RemoteError:
    if isinstance(error, socket.gaierror):
        reason: str = said(QT_TRANSLATE_NOOP("EngineLoad", "the name {0} cannot be resolved"), endpoint.host)
    elif isinstance(error, ConnectionRefusedError):
        reason = said(QT_TRANSLATE_NOOP("EngineLoad", "nothing is listening there (connection refused)"))
    elif isinstance(error, TimeoutError):
        reason = said(QT_TRANSLATE_NOOP("EngineLoad", "it did not answer in time"))
    elif isinstance(error, ssl.SSLError):
        reason = said(QT_TRANSLATE_NOOP("EngineLoad", "the TLS handshake failed ({0})"), str(error))
    else:
        reason = str(error) or type(error).__name__
    return RemoteError(
        said(QT_TRANSLATE_NOOP("EngineLoad", "Cannot reach the server at {0}: {1}."), endpoint.url, reason),
        said(QT_TRANSLATE_NOOP(
            "EngineLoad", "Check the Remote server address in settings and that the server is running.")),
        retryable=True,
    )


class HttpCall:
    """One HTTP exchange whose connection another thread may close (that is how a stream is cancelled)."""

    def __init__(self, endpoint: RemoteEndpoint) -> None:
        self._endpoint = endpoint
        self._lock = threading.Lock()
        self._connection: http.client.HTTPConnection | None = None
        self._socket: socket.socket | None = None
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Close the connection now (safe from any thread); a blocked read then fails at once."""
        with self._lock:
            self._closed = True
            connection, raw_socket = self._connection, self._socket
        if raw_socket is not None:  # http.client drops its own reference once a response owns the socket
            with contextlib.suppress(OSError):
                raw_socket.shutdown(socket.SHUT_RDWR)
        if connection is not None:
            connection.close()

    def send(
        self, method: str, path: str, body: dict[str, Any] | None, *, streaming: bool = False
    ) -> http.client.HTTPResponse:
        """Send one request; return the response (status not checked). Raises RemoteError on connection errors."""
        endpoint = self._endpoint
        connection_class = http.client.HTTPSConnection if endpoint.scheme == "https" else http.client.HTTPConnection
        connection = connection_class(endpoint.host, endpoint.port, timeout=endpoint.connect_timeout_s)
        with self._lock:
            if self._closed:
                raise RemoteError("The request was cancelled.", None)
            self._connection = connection
        payload = json.dumps(body).encode("utf-8") if body is not None else None
        try:
            connection.connect()
            raw_socket = connection.sock
            if isinstance(raw_socket, socket.socket):
                raw_socket.settimeout(endpoint.read_timeout_s)
                with self._lock:
                    self._socket = raw_socket
                    closed = self._closed
                if closed:  # cancelled while connecting
                    raise RemoteError("The request was cancelled.", None)
            connection.request(method, path, body=payload, headers=endpoint.headers(streaming=streaming))
            return connection.getresponse()
        except (OSError, http.client.HTTPException) as error:
            if self._closed:
                raise RemoteError("The request was cancelled.", None) from error
            raise _connection_error(endpoint, error) from error


def call_with_retries(
    endpoint: RemoteEndpoint,
    attempt: Callable[[], Any],
    should_stop: Callable[[], bool] = lambda: False,
    sleep: Callable[[float], None] = time.sleep,
) -> Any:
    """Run ``attempt`` until it succeeds, retrying retryable RemoteErrors with exponential backoff."""
    delay = endpoint.backoff_s
    for remaining in range(endpoint.retries, -1, -1):
        try:
            return attempt()
        except RemoteError as error:
            if not error.retryable or remaining == 0 or should_stop():
                raise
        sleep(delay)
        delay *= 2
    raise AssertionError("unreachable")


def request_json(endpoint: RemoteEndpoint, method: str, path: str, body: dict[str, Any] | None, what: str) -> Any:
    """One JSON request/response (with retries); raises RemoteError with a clear reason."""

    def attempt() -> Any:
        call = HttpCall(endpoint)
        try:
            response = call.send(method, path, body)
            data = response.read()
        except (OSError, http.client.HTTPException) as error:
            raise _connection_error(endpoint, error) from error
        finally:
            call.close()
        if response.status >= 400:
            raise _status_error(endpoint, response.status, data, what)
        try:
            return json.loads(data)
        except ValueError as error:
            raise RemoteError(
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad", "The server at {0} did not answer {1} with JSON."), endpoint.url, what),
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad",
                    "Check that the address points to an OpenAI-compatible API (usually ending in /v1).")),
            ) from error

    return call_with_retries(endpoint, attempt)


def open_event_stream(
    endpoint: RemoteEndpoint, call: HttpCall, path: str, body: dict[str, Any], what: str
) -> http.client.HTTPResponse:
    """Start a streaming POST on ``call``; raise RemoteError (retryable for 5xx) unless it answered 200."""
    response = call.send("POST", path, body, streaming=True)
    if response.status >= 400:
        data = response.read()
        call.close()
        raise _status_error(endpoint, response.status, data, what)
    return response


def iter_sse_events(response: http.client.HTTPResponse) -> Iterator[dict[str, Any]]:
    """Parse a ``text/event-stream`` body: yield each ``data:`` payload as JSON until ``[DONE]`` or the end."""
    data_lines: list[str] = []
    while True:
        raw = response.readline()
        if not raw:
            break
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if line.startswith(":"):
            continue
        if line.startswith("data:"):
            data_lines.append(line[5:].removeprefix(" "))
            continue
        if line or not data_lines:
            continue
        payload = "\n".join(data_lines)
        data_lines = []
        if payload.strip() == "[DONE]":
            return
        event = json.loads(payload)
        if isinstance(event, dict):
            yield event
    if data_lines and "\n".join(data_lines).strip() != "[DONE]":
        event = json.loads("\n".join(data_lines))
        if isinstance(event, dict):
            yield event
