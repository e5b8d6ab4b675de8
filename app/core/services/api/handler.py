"""One HTTP request of the local API: authorisation, routing, JSON in, JSON or server-sent events out."""

from __future__ import annotations

import json
import logging
import select
import socket
import time
from dataclasses import replace
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from app.core.engines.admission import RequestsPausedError
from app.core.engines.base import NoModelLoadedError
from app.core.engines.requests import ChatRequest, new_request_id
from app.core.engines.stream import RequestStream
from app.core.services.api import openai_format as fmt
from app.core.services.api.auth import token_matches
from app.core.services.api.errors import (
    ApiError,
    answer_stalled,
    bad_request,
    body_too_large,
    context_length_exceeded,
    forbidden_caller,
    missing_token,
    model_not_found,
    server_error,
    wrong_token,
)
from app.core.services.api.limits import StallWatch, is_loopback_host
from app.core.services.api.server import ApiRequestRecord
from app.core.util.errors import UserFacingError

if TYPE_CHECKING:
    from app.core.services.api.server import ApiServer, _HttpServer

log = logging.getLogger(__name__)

WAIT_STEP_S = 0.2
OPENAI_DEFAULT_TEMPERATURE = 1.0
OPENAI_DEFAULT_TOP_P = 1.0


class ApiRequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    default_request_version = "HTTP/1.1"  # so even a malformed request line is answered with a status line
    server_version = "UniDesk"
    timeout = 120  # seconds one read or write may block (the whole request has its own deadlines)
    server: _HttpServer

    # ---- plumbing --------------------------------------------------------------------------
    def log_message(self, format: str, *args: Any) -> None:
        log.debug("api %s - %s", self.address_string(), format % args)

    @property
    def api(self) -> ApiServer:
        return self.server.api

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """Malformed HTTP (answered by the stdlib parser): a status line and an OpenAI-style JSON error, even to
        a request line without a version (which the stdlib would answer with a bare HTML page)."""
        detail = message or explain or HTTPStatus(code).phrase
        payload = json.dumps(ApiError(code, f"Malformed HTTP request: {detail}", code="invalid_http").body()).encode()
        self.close_connection = True
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)

    def handle_one_request(self) -> None:
        """Serve one request; the client has ``header_timeout_s`` in all to send its headers."""
        self.api.deadlines.arm(self.connection, self.api.limits.header_timeout_s)
        try:
            super().handle_one_request()
        finally:
            self.api.deadlines.disarm(self.connection)

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def _dispatch(self, method: str) -> None:
        self.api.deadlines.disarm(self.connection)  # the headers arrived in time
        started = time.monotonic()
        self._body_read = False
        self._record = ApiRequestRecord(method, urlsplit(self.path).path, 200)
        try:
            self._check_caller()
            self._authorize()
            self._route(method, urlsplit(self.path).path.rstrip("/"))
        except ApiError as error:
            self._send_error(error)
        except UserFacingError as error:
            unavailable = isinstance(error, (NoModelLoadedError, RequestsPausedError))  # no model, or memory is short
            self._send_error(server_error(str(error), 503 if unavailable else 500))
        except (BrokenPipeError, ConnectionResetError):
            self._record = _replace(self._record, client_disconnected=True)
        except Exception:
            log.exception("the local API failed on %s %s", method, self.path)
            self._send_error(server_error("The server had an error while processing your request."))
        self.api.record(_replace(self._record, seconds=time.monotonic() - started))

    def _check_caller(self) -> None:
        """Only programs on this machine: a loopback Host (no DNS rebinding) and no browser Origin."""
        if not is_loopback_host(self.headers.get("Host")):
            raise forbidden_caller("The Host header must name this machine (localhost or 127.0.0.1).")
        if self.headers.get("Origin") is not None:
            raise forbidden_caller("Requests from web pages (with an Origin header) are refused; UniDesk's API is "
                                   "for programs on this machine.")

    def _authorize(self) -> None:
        matches = token_matches(self.headers.get("Authorization"), self.api.token)
        if matches is None:
            raise missing_token()
        if not matches:
            raise wrong_token()

    def _route(self, method: str, path: str) -> None:
        routes = {
            "/v1/models": ("GET", self._models),
            "/v1/chat/completions": ("POST", self._chat_completions),
            "/v1/embeddings": ("POST", self._embeddings),
        }
        if path.startswith("/v1/models/"):
            routes[path] = ("GET", lambda: self._model(path.removeprefix("/v1/models/")))
        route = routes.get(path)
        if route is None:
            raise ApiError(404, f"Unknown request URL: {method} {path}.", code="unknown_url")
        if method != route[0]:
            raise ApiError(405, f"{method} is not allowed on {path}; use {route[0]}.", code="method_not_allowed")
        route[1]()

    def _read_json(self) -> Any:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            raise bad_request("Chunked request bodies are not supported; send Content-Length.")
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            raise bad_request("The Content-Length header is not a number.") from None
        if length > self.api.max_body_bytes:
            raise body_too_large(self.api.max_body_bytes)
        self.api.deadlines.arm(self.connection, self.api.limits.body_timeout_s)
        try:
            raw = self.rfile.read(length) if length > 0 else b""
        finally:
            self.api.deadlines.disarm(self.connection)
        self._body_read = True
        if len(raw) < length:
            self.close_connection = True
            raise ApiError(408, f"The request body did not arrive within {self.api.limits.body_timeout_s:g} s.",
                           code="request_timeout")
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise bad_request(
                "We could not parse the JSON body of your request. Send valid JSON.", code="invalid_json"
            ) from None

    def _send_json(self, status: int, document: Any) -> None:
        payload = json.dumps(document, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        if not self._body_read and self.command == "POST":
            self.close_connection = True  # the unread body would be taken for the next request
            self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(payload)
        self._record = _replace(self._record, status=status)

    def _send_error(self, error: ApiError) -> None:
        self._record = _replace(self._record, error_code=error.code or error.error_type)
        try:
            self._send_json(error.status, error.body())
        except OSError:
            self._record = _replace(self._record, status=error.status, client_disconnected=True)

    def _client_gone(self) -> bool:
        """True when the client closed its end (readable with nothing to read)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    # ---- endpoints -------------------------------------------------------------------------
    def _model_ids(self) -> list[str]:
        names = list(self.api.chat_model_names()[:1])
        if self.api.embedder is not None:
            names.append(self.api.embedder().model_name)
        return names

    def _models(self) -> None:
        created = int(time.time())
        self._send_json(200, {"object": "list", "data": [fmt.model_entry(name, created) for name in self._model_ids()]})

    def _model(self, model_id: str) -> None:
        if model_id not in self._model_ids():
            raise model_not_found(model_id)
        self._send_json(200, fmt.model_entry(model_id, int(time.time())))

    def _chat_completions(self) -> None:
        call = fmt.parse_chat_completion(self._read_json())
        manager = self.api.manager
        loaded, engine = manager.status().loaded, manager.engine
        if loaded is None or engine is None:
            raise server_error("No model is loaded in UniDesk. Load one first.", 503)
        if call.model not in self.api.chat_model_names():
            raise model_not_found(call.model)
        prompt_tokens = manager.count_tokens(engine.render_prompt(call.messages))
        context = loaded.config.context_length
        room = context - prompt_tokens - 1  # one token of slack for a BOS the template does not show
        if room < 1:
            raise context_length_exceeded(
                f"This model's maximum context length is {context} tokens. However, your messages resulted "
                f"in {prompt_tokens} tokens. Please reduce the length of the messages."
            )
        if call.max_tokens is not None and call.max_tokens > room:
            raise context_length_exceeded(
                f"This model's maximum context length is {context} tokens. However, you requested "
                f"{prompt_tokens + call.max_tokens} tokens ({prompt_tokens} in the messages, {call.max_tokens} in "
                "the completion). Please reduce the length of the messages or completion."
            )
        max_tokens = call.max_tokens or min(room, self.api.limits.default_max_tokens)
        sampling = call.sampling(OPENAI_DEFAULT_TEMPERATURE, OPENAI_DEFAULT_TOP_P, max_tokens)
        request = ChatRequest(messages=call.messages, sampling=sampling, request_id=new_request_id())
        stream = manager.submit(request)
        model = loaded.model_name
        if call.stream:
            self._stream_completion(stream, f"chatcmpl-{request.request_id}", model, call.include_usage)
        else:
            self._finish_completion(stream, f"chatcmpl-{request.request_id}", model)

    def _finish_completion(self, stream: RequestStream, completion_id: str, model: str) -> None:
        watch = StallWatch(stream, self.api.limits.stall_timeout_s)
        while not stream.wait(WAIT_STEP_S):
            if self._client_gone():
                stream.cancel()
                stream.wait(5.0)
                self._record_stream(stream, disconnected=True)
                self.close_connection = True
                return
            if watch.stalled():
                self._give_up(stream)
        self._record_stream(stream)
        if stream.error is not None:
            raise server_error(f"The model failed to answer: {stream.error}")
        self._send_json(200, fmt.completion_body(completion_id, model, stream.text, stream.finish_reason,
                                                 stream.metrics))

    def _stream_completion(self, stream: RequestStream, completion_id: str, model: str, include_usage: bool) -> None:
        created = int(time.time())
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            self._event(fmt.chunk_body(completion_id, model, created, {"role": "assistant", "content": ""}, None))
            watch = StallWatch(stream, self.api.limits.stall_timeout_s)
            stalled = False
            while True:
                finished = stream.wait(WAIT_STEP_S)
                if piece := stream.drain():
                    self._event(fmt.chunk_body(completion_id, model, created, {"content": piece}, None))
                if finished:
                    break
                if self._client_gone():
                    raise ConnectionResetError("the client closed the connection")
                if watch.stalled():
                    stream.cancel()
                    stream.wait(5.0)
                    stalled = True
                    break
            error = stream.error
            if stalled:
                self._record = _replace(self._record, error_code="engine_stalled")
                self._event(answer_stalled(self.api.limits.stall_timeout_s).body())
            elif error is not None:
                self._event(server_error(f"The model failed to answer: {error}").body())
            else:
                reason = fmt.openai_finish_reason(stream.finish_reason)
                self._event(fmt.chunk_body(completion_id, model, created, {}, reason))
                if include_usage:
                    self._event(fmt.usage_chunk_body(completion_id, model, created, stream.metrics))
            self.wfile.write(b"data: [DONE]\n\n")
            self.wfile.flush()
        except OSError:  # the client went away: stop generating for it
            stream.cancel()
            stream.wait(5.0)
            self._record_stream(stream, disconnected=True)
            return
        self._record_stream(stream)

    def _give_up(self, stream: RequestStream) -> None:
        """Cancel an answer that stopped producing, record it and answer the error."""
        stream.cancel()
        stream.wait(5.0)
        self._record_stream(stream)
        raise answer_stalled(self.api.limits.stall_timeout_s)

    def _event(self, document: Any) -> None:
        self.wfile.write(b"data: " + json.dumps(document, ensure_ascii=False).encode("utf-8") + b"\n\n")
        self.wfile.flush()

    def _record_stream(self, stream: RequestStream, disconnected: bool = False) -> None:
        metrics = stream.metrics
        self._record = _replace(
            self._record, finish_reason=stream.finish_reason, prompt_tokens=metrics.prompt_tokens,
            completion_tokens=metrics.generated_tokens, client_disconnected=disconnected,
        )

    def _embeddings(self) -> None:
        call = fmt.parse_embeddings(self._read_json())
        if self.api.embedder is None:
            raise model_not_found(call.model)
        embedder = self.api.embedder()
        if call.model.lower().removeprefix("sentence-transformers/") != embedder.model_name.lower().removeprefix(
            "sentence-transformers/"
        ):
            raise model_not_found(call.model)
        limit = embedder.max_seq_length - 2  # the model adds its own start and end tokens
        counts = [embedder.count_tokens(text) for text in call.inputs]
        for index, count in enumerate(counts):
            if count > limit:
                raise bad_request(
                    f"input[{index}] is {count} tokens long, but {embedder.model_name} reads at most {limit}; "
                    "split the text into shorter pieces.", "input", "context_length_exceeded",
                )
        vectors = embedder.embed_documents(list(call.inputs))
        self._send_json(200, fmt.embedding_body(embedder.model_name, [list(row) for row in vectors], call.base64,
                                                sum(counts)))


def _replace(record: ApiRequestRecord, **changes: Any) -> ApiRequestRecord:
    return replace(record, **changes)
