"""The llama.cpp engine: one model, one context, N parallel chats with continuous batching."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from concurrent.futures import Future
from dataclasses import replace
from typing import Any

from app.core.engines.backends.llamacpp_native import (
    LlamaLogRouter,
    check_model_file,
    install_log_router,
    load_native_model,
)
from app.core.engines.backends.llamacpp_native import describe_build as describe_native_build
from app.core.engines.backends.llamacpp_requests import PendingRequest
from app.core.engines.backends.llamacpp_scheduler import BatchScheduler
from app.core.engines.backends.llamacpp_slots import common_prefix_length
from app.core.engines.backends.llamacpp_tokens import NativeTokenizer
from app.core.engines.base import (
    BackendName,
    EngineConfig,
    EngineDeadError,
    EngineError,
    LoadedModel,
    ModelLoadError,
    NoModelLoadedError,
    ProgressCallback,
)
from app.core.engines.chat_formats import fallback_note, format_for_vocabulary
from app.core.engines.chat_template import ChatTemplate
from app.core.engines.load_texts import llamacpp_stopped, load_again, said
from app.core.engines.metrics import EngineMetrics, RequestMetrics
from app.core.engines.requests import ChatMessage, ChatRequest, SamplingParams
from app.core.engines.stream import RequestStream
from app.core.util.translatable import QT_TRANSLATE_NOOP

LOGGER = logging.getLogger(__name__)
UNLOAD_JOIN_TIMEOUT_S = 30.0
WARM_UP_TIMEOUT_S = 120.0
WARM_UP_MESSAGE = "Hello, please answer in one short sentence."
WARM_UP_SAMPLING = SamplingParams(temperature=0.0, top_p=1.0, top_k=0, min_p=0.0, max_tokens=4, ignore_eos=True)
OPENING_PROBES = ("?", "你好")
"""User messages that, rendered beside the warm-up's, show which prompt tokens every chat begins with."""


def _engine_thread_main(
    config: EngineConfig,
    progress: ProgressCallback | None,
    router: LlamaLogRouter,
    ready: Future[BatchScheduler],
) -> None:
    """Body of the engine thread: load, hand the scheduler back, run until stopped, free."""
    try:
        native = load_native_model(config, progress, router)
    except ModelLoadError as error:
        ready.set_exception(error)
        return
    except Exception as error:
        LOGGER.exception("Loading %s failed", config.model_path)
        ready.set_exception(ModelLoadError(
            said(QT_TRANSLATE_NOOP("EngineLoad", "llama.cpp failed to load the model: {0}"), str(error)),
            said(QT_TRANSLATE_NOOP("EngineLoad", "See the log file for details."))))
        return
    try:
        tokenizer = NativeTokenizer(native.library, native.vocab)
        context_limit = min(config.context_length, native.n_ctx_per_sequence)
        scheduler = BatchScheduler(native, tokenizer, context_limit, config.prefix_caching)
    except Exception as error:
        native.free()
        ready.set_exception(ModelLoadError(
            said(QT_TRANSLATE_NOOP("EngineLoad", "llama.cpp engine setup failed: {0}"), str(error)),
            said(QT_TRANSLATE_NOOP("EngineLoad", "See the log file for details."))))
        return
    ready.set_result(scheduler)
    scheduler.run()


class LlamaCppEngine:
    """Engine over llama-cpp-python's low-level API (see the Engine protocol in ``base.py``).

    One engine thread owns the context: it loads the model, runs every ``llama_decode`` and
    frees everything. Callers' threads render chat templates and tokenize (the vocabulary is
    read-only), then hand requests to the engine thread's inbox.
    """

    backend_name: BackendName = "llamacpp"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._scheduler: BatchScheduler | None = None
        self._thread: threading.Thread | None = None
        self._template: ChatTemplate | None = None
        self._loaded: LoadedModel | None = None

    @property
    def loaded_model(self) -> LoadedModel | None:
        return self._loaded

    def load(self, config: EngineConfig, progress: ProgressCallback | None = None) -> LoadedModel:
        """Load ``config.model_path`` (replacing any loaded model); progress runs on the engine thread."""
        self.unload()
        check_model_file(config.model_path)
        started = time.perf_counter()
        ready: Future[BatchScheduler] = Future()
        thread = threading.Thread(
            target=_engine_thread_main,
            args=(config, progress, install_log_router(), ready),
            name="llamacpp-engine",
            daemon=True,
        )
        thread.start()
        try:
            scheduler = ready.result()
        except BaseException:
            thread.join(UNLOAD_JOIN_TIMEOUT_S)
            raise
        native, tokenizer = scheduler.native, scheduler.tokenizer
        fallback = format_for_vocabulary(tokenizer.is_special_token)
        template = ChatTemplate(native.chat_template, tokenizer.bos_text, tokenizer.eos_text, fallback)
        notes = native.notes
        if template.fallback_format is not None:
            notes += (fallback_note(template.fallback_format),)
        loaded = LoadedModel(
            backend="llamacpp",
            model_name=native.model_name,
            config=config,
            load_time_s=time.perf_counter() - started,
            notes=notes,
        )
        with self._lock:
            self._scheduler, self._thread, self._template, self._loaded = scheduler, thread, template, loaded
        return loaded  # not "ready" yet for the user: the manager may warm it up first

    def _require(self) -> tuple[BatchScheduler, ChatTemplate]:
        with self._lock:
            scheduler, template = self._scheduler, self._template
        if scheduler is None or template is None:
            raise NoModelLoadedError()
        if not scheduler.alive:
            raise EngineDeadError(llamacpp_stopped(), load_again())
        return scheduler, template

    def warm_up(self) -> None:
        """Run a short greedy request through the real path, then drop its statistics and its KV except
        the chat template's opening, which every chat begins with: the first chat after load then
        reuses it, as every later chat reuses an earlier one's (prompt reuse), and starts as fast.
        """
        scheduler, template = self._require()
        conversation_id = f"__warm_up__{uuid.uuid4().hex}"
        request = ChatRequest(
            messages=(ChatMessage("user", WARM_UP_MESSAGE),),
            sampling=WARM_UP_SAMPLING,
            conversation_id=conversation_id,
        )
        stream = self.submit(request)
        if not stream.wait(WARM_UP_TIMEOUT_S):
            stream.cancel()
            LOGGER.warning("The warm-up request did not finish in %.0f s", WARM_UP_TIMEOUT_S)
        if stream.error is not None:
            raise stream.error

        opening = self._template_opening(template)

        def clear() -> None:
            scheduler.trim_conversation(conversation_id, opening)
            scheduler.reset_statistics()

        scheduler.call(clear, WARM_UP_TIMEOUT_S)

    def _template_opening(self, template: ChatTemplate) -> int:
        """Number of prompt tokens every one-message chat begins with (BOS, the template's header and
        any system prompt it adds by itself): the tokens the warm-up's message shares with others.
        """
        scheduler, _ = self._require()
        prompts = [
            scheduler.tokenizer.tokenize_prompt(template.render((ChatMessage("user", text),)))
            for text in (WARM_UP_MESSAGE, *OPENING_PROBES)
        ]
        return min(common_prefix_length(prompts[0], other) for other in prompts[1:])

    def submit(self, request: ChatRequest) -> RequestStream:
        """Queue ``request``; returns its stream at once (a bad prompt ends the stream with an error)."""
        scheduler, template = self._require()
        stream = RequestStream(request.request_id, cancel=self.cancel)
        submitted_at = time.perf_counter()
        try:
            if not request.messages:
                raise EngineError(said(QT_TRANSLATE_NOOP("EngineLoad", "The chat request has no messages.")),
                                  said(QT_TRANSLATE_NOOP("EngineLoad", "Send at least one message.")))
            prompt_tokens = scheduler.tokenizer.tokenize_prompt(template.render(request.messages))
            request = replace(request, sampling=template.sampling_for(request.sampling))
        except EngineError as error:
            stream.finish("error", RequestMetrics(finish_reason="error"), error)
            return stream
        limit = scheduler.context_limit
        if len(prompt_tokens) >= limit:
            too_long = EngineError(
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad", "The prompt is {0} tokens long, but a chat's context holds only {1} tokens."),
                    len(prompt_tokens), limit),
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad", "Shorten the conversation or raise the context length in Settings.")),
            )
            metrics = RequestMetrics(prompt_tokens=len(prompt_tokens), finish_reason="error")
            stream.finish("error", metrics, too_long)
            return stream
        scheduler.submit(PendingRequest(request, stream, prompt_tokens, submitted_at))
        if not scheduler.alive:
            dead = EngineDeadError(llamacpp_stopped(), load_again())
            stream.finish("error", RequestMetrics(finish_reason="error"), dead)
        return stream

    def cancel(self, request_id: str) -> None:
        """Stop a request within one decode step; its partial text stays in its stream."""
        scheduler = self._scheduler
        if scheduler is not None:
            scheduler.cancel(request_id)

    def metrics(self) -> EngineMetrics:
        scheduler = self._scheduler
        if scheduler is None:
            return EngineMetrics(backend="llamacpp", model_name="")
        return scheduler.snapshot()

    def tokenize(self, text: str) -> list[int]:
        """Tokens of ``text`` as a prompt: special tokens parsed, BOS as the model wants."""
        scheduler, _ = self._require()
        return scheduler.tokenizer.tokenize_prompt(text)

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` takes inside a prompt (no BOS)."""
        scheduler, _ = self._require()
        return len(scheduler.tokenizer.tokenize(text, add_special=False, parse_special=True))

    def render_prompt(self, messages: tuple[ChatMessage, ...]) -> str:
        _, template = self._require()
        return template.render(messages)

    def describe_build(self) -> dict[str, Any]:
        """llama.cpp build facts (GPU offload, CPU features) plus the loaded context's settings."""
        description = describe_native_build()
        scheduler = self._scheduler
        if scheduler is not None:
            native = scheduler.native
            description.update(
                flash_attention=native.flash_attention,
                n_ctx=native.n_ctx,
                n_ctx_per_sequence=native.n_ctx_per_sequence,
                parallel_chats=native.n_seq_max,
                n_batch=native.n_batch,
            )
        return description

    def unload(self) -> None:
        """Cancel every request, stop the engine thread (it frees the model), and wait for it."""
        with self._lock:
            scheduler, thread = self._scheduler, self._thread
            self._scheduler = self._thread = self._template = self._loaded = None
        if scheduler is not None:
            scheduler.stop()
        if thread is not None:
            thread.join(UNLOAD_JOIN_TIMEOUT_S)
            if thread.is_alive():
                LOGGER.warning("The llama.cpp engine thread did not stop within %.0f s", UNLOAD_JOIN_TIMEOUT_S)
