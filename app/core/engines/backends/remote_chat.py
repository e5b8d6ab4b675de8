"""One streamed chat completion against a remote OpenAI-compatible server: request body, SSE deltas, metrics."""

from __future__ import annotations

import http.client
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.core.engines.backends.remote_http import (
    HttpCall,
    RemoteEndpoint,
    RemoteError,
    call_with_retries,
    iter_sse_events,
    open_event_stream,
)
from app.core.engines.base import EngineDeadError
from app.core.engines.load_texts import said
from app.core.engines.metrics import FinishReason, RequestMetrics
from app.core.engines.requests import ChatRequest
from app.core.engines.stream import RequestStream
from app.core.util.translatable import QT_TRANSLATE_NOOP


@dataclass(frozen=True)
class ServerFeatures:
    """What the server was found to accept: vLLM's extra sampling fields, usage in streams, ``/tokenize``."""

    vllm_sampling: bool = False
    stream_usage: bool = True
    tokenize: bool = False
    max_model_len: int | None = None


def chat_body(model: str, request: ChatRequest, features: ServerFeatures) -> dict[str, Any]:
    """The ``/chat/completions`` body for ``request`` (streaming; usage requested when supported)."""
    sampling = request.sampling
    body: dict[str, Any] = {
        "model": model,
        "messages": [{"role": message.role, "content": message.content} for message in request.messages],
        "stream": True,
        "max_tokens": sampling.max_tokens,
        "temperature": sampling.temperature,
        "top_p": sampling.top_p,
    }
    if features.stream_usage:
        body["stream_options"] = {"include_usage": True}
    if sampling.seed is not None:
        body["seed"] = sampling.seed
    if sampling.stop:
        body["stop"] = list(sampling.stop)
    if features.vllm_sampling:  # vLLM's extensions; plain OpenAI servers reject unknown fields
        body["top_k"] = sampling.top_k if sampling.top_k > 0 else -1
        body["min_p"] = sampling.min_p
        body["repetition_penalty"] = sampling.repetition_penalty
        if sampling.ignore_eos:
            body["ignore_eos"] = True
    return body


class _Progress:
    """Timing and token counts of one streamed answer."""

    def __init__(self) -> None:
        self.started = time.monotonic()
        self.first_token_at: float | None = None
        self.last_token_at: float | None = None
        self.content_chunks = 0
        self.prompt_tokens = 0
        self.completion_tokens: int | None = None
        self.reused_tokens = 0
        self.finish_reason: str | None = None

    def metrics(self, reason: FinishReason | None) -> RequestMetrics:
        generated = self.completion_tokens if self.completion_tokens is not None else self.content_chunks
        ttft = None if self.first_token_at is None else self.first_token_at - self.started
        decode = None
        if self.first_token_at is not None and self.last_token_at is not None and generated > 1:
            span = self.last_token_at - self.first_token_at
            decode = (generated - 1) / span if span > 0 else None
        prefill = self.prompt_tokens / ttft if ttft and self.prompt_tokens else None
        return RequestMetrics(
            prompt_tokens=self.prompt_tokens,
            reused_prompt_tokens=self.reused_tokens,
            prefilled_tokens=max(0, self.prompt_tokens - self.reused_tokens),
            generated_tokens=generated,
            time_to_first_token_s=ttft,
            prefill_tokens_per_s=prefill,
            decode_tokens_per_s=decode,
            total_time_s=time.monotonic() - self.started,
            finish_reason=reason,
        )

    def take(self, event: dict[str, Any], stream: RequestStream) -> None:
        """Apply one chunk: push its text, note finish reason and usage."""
        if "error" in event:
            raise RemoteError(said(QT_TRANSLATE_NOOP(
                "EngineLoad", "The server reported an error: {0}"), _event_error(event)), None)
        for choice in event.get("choices") or ():
            delta = choice.get("delta") or {}
            text = delta.get("content")
            if isinstance(text, str) and text:
                now = time.monotonic()
                if self.first_token_at is None:
                    self.first_token_at = now
                self.last_token_at = now
                self.content_chunks += 1
                stream.push(text)
            if choice.get("finish_reason"):
                self.finish_reason = str(choice["finish_reason"])
        usage = event.get("usage")
        if isinstance(usage, dict):
            self.prompt_tokens = int(usage.get("prompt_tokens") or 0)
            self.completion_tokens = int(usage.get("completion_tokens") or 0)
            cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
            self.reused_tokens = int(cached or 0)


def _event_error(event: dict[str, Any]) -> str:
    error = event.get("error")
    if isinstance(error, dict):
        return str(error.get("message", error))
    return str(error)


def _finish_reason(text: str | None) -> FinishReason:
    return "length" if text == "length" else "stop"


def run_chat_stream(
    endpoint: RemoteEndpoint,
    body: dict[str, Any],
    stream: RequestStream,
    register_call: Callable[[HttpCall], None],
) -> RequestMetrics:
    """Stream one completion into ``stream`` and finish it; returns the final metrics.

    Connection errors and 5xx answers are retried with backoff until the first text arrives
    (a retry after that would repeat text). Cancelling closes the connection: the stream
    ends as ``cancelled`` with its partial text. A connection lost mid-answer ends it with
    EngineDeadError.
    """
    progress = _Progress()

    def attempt() -> http.client.HTTPResponse:
        call = HttpCall(endpoint)
        register_call(call)
        if stream.cancel_requested:
            call.close()
        return open_event_stream(endpoint, call, "/".join((endpoint.api_base.rstrip("/"), "chat/completions")), body,
                                 f"model '{body['model']}' at /chat/completions")

    try:
        response = call_with_retries(endpoint, attempt, should_stop=lambda: stream.cancel_requested)
        for event in iter_sse_events(response):
            progress.take(event, stream)
        if progress.finish_reason is None and not stream.cancel_requested:
            raise ConnectionResetError("the stream ended before the answer was complete")
    except Exception as error:
        if stream.cancel_requested:  # closing the socket under the reader fails it in various ways
            metrics = progress.metrics("cancelled")
            stream.finish("cancelled", metrics)
            return metrics
        if not isinstance(error, RemoteError | OSError | http.client.HTTPException | ValueError):
            raise
        failure = _stream_failure(endpoint, error, progress)
        metrics = progress.metrics("error")
        stream.finish("error", metrics, failure)
        return metrics
    reason: FinishReason = "cancelled" if stream.cancel_requested else _finish_reason(progress.finish_reason)
    metrics = progress.metrics(reason)
    stream.finish(reason, metrics)
    return metrics


def _stream_failure(endpoint: RemoteEndpoint, error: BaseException, progress: _Progress) -> BaseException:
    """What the reader sees: the server's own error, or EngineDeadError for a connection lost mid-answer."""
    if isinstance(error, RemoteError) and (error.status is not None or progress.first_token_at is None):
        return error
    return EngineDeadError(
        said(QT_TRANSLATE_NOOP("EngineLoad", "The connection to the server at {0} was lost during the answer ({1})."),
             endpoint.url, str(error)),
        said(QT_TRANSLATE_NOOP(
            "EngineLoad", "The text so far is kept; send the message again when the server is back.")),
    )
