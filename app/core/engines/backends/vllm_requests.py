"""Runs chat requests on the vLLM engine thread: streams deltas, cancels by task, reports engine death."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from app.core.engines.backends.vllm_loop import EngineLoopThread
from app.core.engines.backends.vllm_memory import describe_exception_chain, exception_names
from app.core.engines.base import EngineDeadError, EngineError
from app.core.engines.load_texts import said
from app.core.engines.metrics import FinishReason, RequestMetrics
from app.core.engines.stream import RequestStream
from app.core.util.translatable import QT_TRANSLATE_NOOP

log = logging.getLogger(__name__)
VLLM_DEAD_ERRORS = frozenset({"EngineDeadError"})


class _RequestProgress:
    """Timing and token counts of one request, turned into RequestMetrics."""

    def __init__(self, prompt_tokens: int, submitted: float) -> None:
        self.prompt_tokens = prompt_tokens
        self.submitted = submitted
        self.first_token_at: float | None = None
        self.last_token_at: float | None = None
        self.generated = 0
        self.reused = 0

    def add(self, new_tokens: int, cached_tokens: int | None) -> None:
        now = time.monotonic()
        if new_tokens and self.first_token_at is None:
            self.first_token_at = now
        if new_tokens:
            self.last_token_at = now
        self.generated += new_tokens
        if cached_tokens is not None:
            self.reused = cached_tokens

    def metrics(self, reason: FinishReason | None) -> RequestMetrics:
        ttft = None if self.first_token_at is None else self.first_token_at - self.submitted
        decode = None
        if self.first_token_at is not None and self.last_token_at is not None and self.generated > 1:
            span = self.last_token_at - self.first_token_at
            decode = (self.generated - 1) / span if span > 0 else None
        prefilled = max(0, self.prompt_tokens - self.reused)
        return RequestMetrics(
            prompt_tokens=self.prompt_tokens,
            reused_prompt_tokens=self.reused,
            prefilled_tokens=prefilled,
            generated_tokens=self.generated,
            time_to_first_token_s=ttft,
            prefill_tokens_per_s=prefilled / ttft if ttft and prefilled else None,
            decode_tokens_per_s=decode,
            total_time_s=time.monotonic() - self.submitted,
            finish_reason=reason,
        )


class RequestRunner:
    """Owns the per-request asyncio tasks of one AsyncLLM (touched only on the engine thread)."""

    def __init__(self, loop: EngineLoopThread, llm: Any, on_engine_dead: Callable[[str], None]) -> None:
        self._loop = loop
        self._llm = llm
        self._on_engine_dead = on_engine_dead
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._cancel_before_start: set[str] = set()

    def start(self, request_id: str, prompt_ids: list[int], sampling: Any, stream: RequestStream) -> None:
        """Schedule the request on the engine thread; returns at once."""
        self._loop.submit(self._generate(request_id, prompt_ids, sampling, stream, time.monotonic()))

    def cancel(self, request_id: str) -> None:
        """Cancel the request's task: vLLM aborts it in the engine core; the stream keeps its text."""
        self._loop.call_soon(lambda: self._cancel_on_loop(request_id))

    def cancel_all(self) -> None:
        self._loop.call_soon(self._cancel_all_on_loop)

    def _cancel_on_loop(self, request_id: str) -> None:
        task = self._tasks.get(request_id)
        if task is not None:
            task.cancel()
        else:  # its task has not run yet: it checks this set first
            self._cancel_before_start.add(request_id)

    def _cancel_all_on_loop(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()

    async def _generate(
        self, request_id: str, prompt_ids: list[int], sampling: Any, stream: RequestStream, submitted: float
    ) -> None:
        progress = _RequestProgress(len(prompt_ids), submitted)
        task = asyncio.current_task()
        if task is not None:
            self._tasks[request_id] = task
        reason: FinishReason = "stop"
        try:
            if stream.cancel_requested or request_id in self._cancel_before_start:
                self._cancel_before_start.discard(request_id)
                raise asyncio.CancelledError  # cancelled before it reached the engine thread
            async for output in self._llm.generate({"prompt_token_ids": prompt_ids}, sampling, request_id):
                completion = output.outputs[0]
                progress.add(len(completion.token_ids), output.num_cached_tokens)
                stream.push(completion.text)
                if output.finished:
                    reason = _finish_reason(completion.finish_reason)
                else:
                    stream.update_metrics(progress.metrics(None))
        except asyncio.CancelledError:
            stream.finish("cancelled", progress.metrics("cancelled"))
        except Exception as error:
            stream.finish("error", progress.metrics("error"), self._request_error(error))
        else:
            stream.finish(reason, progress.metrics(reason))
        finally:
            self._tasks.pop(request_id, None)

    def _request_error(self, error: Exception) -> EngineError:
        detail = describe_exception_chain(error)
        if VLLM_DEAD_ERRORS & exception_names(error):
            self._on_engine_dead("its engine process died")
            return EngineDeadError(
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad",
                    "The vLLM engine stopped working (its engine process died, for example out of memory).")),
                said(QT_TRANSLATE_NOOP(
                    "EngineLoad",
                    "The text so far is kept; load the model again (a smaller context or fewer parallel chats "
                    "if memory ran out) and send the message again.")),
            )
        log.warning("vLLM request failed: %s", detail)
        return EngineError(said(QT_TRANSLATE_NOOP("EngineLoad", "vLLM could not answer: {0}"), detail[:300]),
                           said(QT_TRANSLATE_NOOP("EngineLoad", "Try again, or reload the model.")))


def _finish_reason(vllm_reason: str | None) -> FinishReason:
    if vllm_reason == "length":
        return "length"
    if vllm_reason == "abort":
        return "cancelled"
    return "stop"
