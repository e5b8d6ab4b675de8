"""Remote engine: any OpenAI-compatible server (vLLM serve, a cluster, another machine) behind the Engine protocol."""

from __future__ import annotations

import logging
import math
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

from app.core.engines.backends.remote_chat import ServerFeatures, chat_body, run_chat_stream
from app.core.engines.backends.remote_http import (
    HttpCall,
    RemoteEndpoint,
    RemoteError,
    parse_endpoint,
    request_json,
)
from app.core.engines.base import (
    BackendName,
    EngineConfig,
    EngineError,
    LoadedModel,
    ModelLoadError,
    NoModelLoadedError,
    ProgressCallback,
    RemoteTarget,
)
from app.core.engines.chat_template import ChatTemplate
from app.core.engines.load_texts import said
from app.core.engines.metrics import EngineMetrics, RequestMetrics
from app.core.engines.requests import GREEDY, ChatMessage, ChatRequest
from app.core.engines.stream import RequestStream
from app.core.util.translatable import QT_TRANSLATE_NOOP

log = logging.getLogger(__name__)
ENDPOINT_OPTIONS = ("connect_timeout_s", "read_timeout_s", "retries", "backoff_s")
MIN_WORKERS = 4
UNLOAD_JOIN_TIMEOUT_S = 5.0


def approximate_token_count(text: str) -> int:
    """Tokens without a tokenizer: ~4 characters per token for ASCII text, one per other character (CJK)."""
    ascii_chars = sum(1 for character in text if ord(character) < 128)
    return math.ceil(ascii_chars / 4) + (len(text) - ascii_chars)


def _model_entries(listing: Any) -> list[dict[str, Any]]:
    data = listing.get("data") if isinstance(listing, dict) else None
    return [entry for entry in data or () if isinstance(entry, dict) and isinstance(entry.get("id"), str)]


class RemoteEngine:
    """Sends each chat to the server on a worker thread and streams the answer back.

    ``EngineConfig.model_path`` holds the model's name on the server (empty or "." = the
    first model it serves); ``EngineConfig.remote`` (a RemoteTarget) the server's address, key
    and, optionally, the endpoint's timeouts and retries.
    """

    backend_name: BackendName = "remote"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._endpoint: RemoteEndpoint | None = None
        self._model = ""
        self._features = ServerFeatures()
        self._executor: ThreadPoolExecutor | None = None
        self._streams: dict[str, RequestStream] = {}
        self._calls: dict[str, HttpCall] = {}
        self._finished = 0
        self._tokens_generated = 0
        self._last: RequestMetrics | None = None
        self._template = ChatTemplate(None)

    # ---- lifecycle ---------------------------------------------------------------------
    def load(self, config: EngineConfig, progress: ProgressCallback | None = None) -> LoadedModel:
        """Check the server: reachable, key accepted, model served; find what it supports."""
        started = time.monotonic()
        target = config.remote or RemoteTarget("")
        options = {name: getattr(target, name) for name in ENDPOINT_OPTIONS if getattr(target, name) is not None}
        try:
            endpoint = parse_endpoint(target.url, target.api_key, **options)
            if progress is not None:
                progress(0.1, said(QT_TRANSLATE_NOOP("EngineLoad", "Connecting to {0}"), endpoint.url))
            listing = request_json(endpoint, "GET", f"{endpoint.api_base}/models", None, "model list at /models")
        except RemoteError as error:
            raise ModelLoadError(error.message, error.hint, cause="other") from error
        entries = _model_entries(listing)
        model = self._choose_model(endpoint, str(config.model_path), entries)
        entry = next(item for item in entries if item["id"] == model)
        is_vllm = entry.get("owned_by") == "vllm"
        max_len = entry.get("max_model_len")
        features = ServerFeatures(
            vllm_sampling=is_vllm,
            stream_usage=True,
            tokenize=self._has_tokenize(endpoint, model),
            max_model_len=max_len if isinstance(max_len, int) else None,
        )
        with self._lock:
            self._endpoint, self._model, self._features = endpoint, model, features
            self._executor = ThreadPoolExecutor(
                max_workers=max(MIN_WORKERS, config.parallel_chats), thread_name_prefix="remote-engine"
            )
        if progress is not None:
            progress(1.0, said(QT_TRANSLATE_NOOP("EngineLoad", "Connected to {0}"), endpoint.url))
        notes = [said(QT_TRANSLATE_NOOP("EngineLoad", "Remote server {0}"), endpoint.url)]
        if features.max_model_len is not None:
            notes.append(said(QT_TRANSLATE_NOOP(
                "EngineLoad", "The server allows {0} tokens per chat."), features.max_model_len))
        if not features.tokenize:
            notes.append(said(QT_TRANSLATE_NOOP(
                "EngineLoad", "The server cannot count tokens; token counts are estimates.")))
        return LoadedModel("remote", model, config, time.monotonic() - started, tuple(notes))

    @staticmethod
    def _choose_model(endpoint: RemoteEndpoint, wanted: str, entries: list[dict[str, Any]]) -> str:
        names = [entry["id"] for entry in entries]
        if not names:
            raise ModelLoadError(
                said(QT_TRANSLATE_NOOP("EngineLoad", "The server at {0} serves no models."), endpoint.url),
                said(QT_TRANSLATE_NOOP("EngineLoad", "Start the server with a model.")), cause="not_a_model",
            )
        if wanted in ("", "."):
            return str(names[0])
        if wanted not in names:
            shown = ", ".join(names[:5]) + (" ..." if len(names) > 5 else "")
            raise ModelLoadError(
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad", "The server at {0} does not serve the model '{1}'."), endpoint.url, wanted),
                said(QT_TRANSLATE_NOOP("EngineLoad", "Choose one it serves: {0}."), shown),
                cause="not_a_model",
            )
        return wanted

    @staticmethod
    def _has_tokenize(endpoint: RemoteEndpoint, model: str) -> bool:
        """True when the server counts tokens at ``/tokenize`` (vLLM does)."""
        try:
            answer = request_json(
                endpoint, "POST", f"{endpoint.root_path}/tokenize", {"model": model, "prompt": "hello"}, "/tokenize"
            )
        except RemoteError:
            return False
        return isinstance(answer, dict) and isinstance(answer.get("count"), int)

    def warm_up(self) -> None:
        """One short request, so the first real answer does not pay for the server's cold start."""
        stream = self.submit(ChatRequest.single_prompt("Hello", replace(GREEDY, max_tokens=2)))
        stream.wait(timeout=120)

    def unload(self) -> None:
        """Cancel all requests (closing their connections) and stop the workers."""
        with self._lock:
            streams = list(self._streams.values())
            executor, self._executor = self._executor, None
            self._endpoint = None
        for stream in streams:
            stream.cancel()
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
            deadline = time.monotonic() + UNLOAD_JOIN_TIMEOUT_S
            for stream in streams:
                stream.wait(timeout=max(0.0, deadline - time.monotonic()))
        for stream in streams:  # queued ones never reached a worker: end them here
            stream.finish("cancelled", replace(stream.metrics, finish_reason="cancelled"))

    # ---- requests ----------------------------------------------------------------------
    def submit(self, request: ChatRequest) -> RequestStream:
        with self._lock:
            endpoint, executor = self._endpoint, self._executor
            if endpoint is None or executor is None:
                raise NoModelLoadedError()
            stream = RequestStream(request.request_id, cancel=self.cancel)
            self._streams[request.request_id] = stream
            body = chat_body(self._model, request, self._features)
            executor.submit(self._serve, endpoint, body, stream)
        return stream

    def _serve(self, endpoint: RemoteEndpoint, body: dict[str, Any], stream: RequestStream) -> None:
        request_id = stream.request_id
        try:
            metrics = run_chat_stream(endpoint, body, stream, lambda call: self._register(request_id, call))
        except Exception as error:  # never leave a reader waiting forever
            log.exception("remote request %s crashed", request_id)
            metrics = RequestMetrics(finish_reason="error")
            stream.finish("error", metrics, EngineError(said(QT_TRANSLATE_NOOP(
                "EngineLoad", "The remote request failed: {0}"), str(error)), None))
        with self._lock:
            self._streams.pop(request_id, None)
            self._calls.pop(request_id, None)
            self._finished += 1
            self._tokens_generated += metrics.generated_tokens
            self._last = metrics

    def _register(self, request_id: str, call: HttpCall) -> None:
        with self._lock:
            self._calls[request_id] = call

    def cancel(self, request_id: str) -> None:
        """Close the request's connection: the server stops generating, the stream ends with its partial text."""
        with self._lock:
            stream = self._streams.get(request_id)
            call = self._calls.get(request_id)
        if stream is not None and not stream.cancel_requested:
            stream.cancel()  # marks it; calls back here, where the connection is closed
            return
        if call is not None:
            call.close()

    def metrics(self) -> EngineMetrics:
        with self._lock:
            last = self._last
            return EngineMetrics(
                backend="remote",
                model_name=self._model,
                running_requests=len(self._streams),
                prefix_cache_hit_rate=None,
                decode_tokens_per_s=last.decode_tokens_per_s if last else None,
                prefill_tokens_per_s=last.prefill_tokens_per_s if last else None,
                last_time_to_first_token_s=last.time_to_first_token_s if last else None,
                requests_finished=self._finished,
                tokens_generated=self._tokens_generated,
            )

    def count_tokens(self, text: str) -> int:
        """The server's count when it offers ``/tokenize``, else an estimate."""
        with self._lock:
            endpoint, model, features = self._endpoint, self._model, self._features
        if endpoint is None:
            raise NoModelLoadedError()
        if features.tokenize:
            try:
                answer = request_json(
                    endpoint,
                    "POST",
                    f"{endpoint.root_path}/tokenize",
                    {"model": model, "prompt": text, "add_special_tokens": False},
                    "/tokenize",
                )
                return int(answer["count"])
            except (RemoteError, KeyError, TypeError, ValueError) as error:
                log.warning("remote /tokenize failed, estimating: %s", error)
        return approximate_token_count(text)

    def render_prompt(self, messages: tuple[ChatMessage, ...]) -> str:
        """An approximation (ChatML): the server applies the model's own template, which it does not expose."""
        return self._template.render(messages)
