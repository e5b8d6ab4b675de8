"""An answer generated on its own worker thread: prepare, stream, save partial text, map citations."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from app.core.chat.citations import citations_for
from app.core.chat.records import Citation, FinishReason
from app.core.engines.manager import EngineManager
from app.core.engines.metrics import RequestMetrics
from app.core.engines.stream import RequestStream
from app.core.services.answering import PreparedAnswer
from app.core.util.jobs import Job

log = logging.getLogger(__name__)

SAVE_INTERVAL_S = 1.0


@dataclass(frozen=True)
class AnswerResult:
    """A finished (or stopped) answer with its sources and figures."""

    text: str
    finish_reason: FinishReason
    citations: tuple[Citation, ...]
    prepared: PreparedAnswer | None
    metrics: RequestMetrics
    timings: dict[str, Any]
    error: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def cited(self) -> tuple[Citation, ...]:
        return tuple(citation for citation in self.citations if citation.cited)

    def to_dict(self) -> dict[str, Any]:
        prepared = self.prepared
        return {
            "answer": self.text,
            "finish_reason": self.finish_reason,
            "model": prepared.model if prepared is not None else None,
            "citations": [citation.to_dict() for citation in self.citations],
            "timings": self.timings,
            "metrics": self.metrics.to_dict(),
            "budget": prepared.assembled.budget.to_dict() if prepared is not None else None,
            "prompt": prepared.assembled.to_dict() if prepared is not None else None,
            "notes": list(self.notes),
            "error": self.error,
        }


def timings_of(metrics: RequestMetrics, retrieval_s: float, prepare_s: float) -> dict[str, Any]:
    return {
        "retrieval_s": retrieval_s, "prepare_s": prepare_s,
        "time_to_first_token_s": metrics.time_to_first_token_s, "prefill_tokens_per_s": metrics.prefill_tokens_per_s,
        "decode_tokens_per_s": metrics.decode_tokens_per_s, "total_time_s": metrics.total_time_s,
        "reused_prompt_tokens": metrics.reused_prompt_tokens,
    }


class AnswerJob(Job[AnswerResult, str]):
    """Generates one answer off the caller's thread (a :class:`Job` whose progress is the text so far).

    The worker prepares the request (retrieval, budget), submits it, and calls ``save_partial``
    with the text so far at least every ``save_interval_s`` while it streams, then ``save_result``
    once, before the job counts as done. Readers use :meth:`drain` (GUI, once per frame) or iterate
    the job (CLI); ``prefix`` is text already shown (an answer being continued): it is part of
    :attr:`text` but never drained. :meth:`wait` gives the result or raises what stopped the answer.
    """

    def __init__(
        self,
        manager: EngineManager,
        prepare: Callable[[], PreparedAnswer],
        *,
        prefix: str = "",
        save_partial: Callable[[str], None] | None = None,
        save_result: Callable[[AnswerResult], None] | None = None,
        save_interval_s: float = SAVE_INTERVAL_S,
        message_id: str | None = None,
    ) -> None:
        super().__init__("answer")
        self.message_id = message_id
        """The stored answer message this job writes (None for answers that are not saved)."""
        self._manager = manager
        self._prepare = prepare
        self.prefix = prefix
        self._save_partial_text = save_partial
        self._save_result = save_result
        self._save_interval_s = save_interval_s
        self._condition = threading.Condition()
        self._stream: RequestStream | None = None
        self._prepared: PreparedAnswer | None = None
        self._ended = False

    # ---- worker ----------------------------------------------------------------------------
    def _run(self) -> AnswerResult:
        started = time.perf_counter()
        prepared: PreparedAnswer | None = None
        try:
            prepared = self._prepare()
            prepare_s = time.perf_counter() - started
            with self._condition:
                self._prepared = prepared
                cancelled = self.cancelled
                if not cancelled:
                    self._stream = self._manager.submit(prepared.request)
                self._condition.notify_all()
            result = self._stream_answer(prepared, prepare_s) if not cancelled else self._result_of(
                prepared, "cancelled", RequestMetrics(finish_reason="cancelled"), prepare_s, None)
        except Exception as error:  # reported to readers and saved on the message
            log.info("answer failed: %s", error)
            result = self._result_of(prepared, "error", RequestMetrics(finish_reason="error"),
                                     time.perf_counter() - started, error)
            self._record_error(error)
        self._complete(result)
        return result

    def _stream_answer(self, prepared: PreparedAnswer, prepare_s: float) -> AnswerResult:
        stream = self._stream
        assert stream is not None
        saved = ""
        while not stream.wait(self._save_interval_s):
            saved = self._save_partial(stream, saved)
        self._save_partial(stream, saved)
        reason: FinishReason = stream.finish_reason or "error"
        error = stream.error
        if error is not None:
            self._record_error(error)
        return self._result_of(prepared, reason, stream.metrics, prepare_s, error)

    def _save_partial(self, stream: RequestStream, saved: str) -> str:
        text = self.prefix + stream.text
        if text != saved and self._save_partial_text is not None:
            try:
                self._save_partial_text(text)
            except Exception:  # a failed save must not stop the answer; the next one retries
                log.exception("saving the partial answer failed")
                return saved
        return text

    def _result_of(
        self,
        prepared: PreparedAnswer | None,
        reason: FinishReason,
        metrics: RequestMetrics,
        prepare_s: float,
        error: BaseException | None,
    ) -> AnswerResult:
        text = self.prefix + (self._stream.text if self._stream is not None else "")
        passages = prepared.assembled.passages if prepared is not None else ()
        notes = (*prepared.retrieval.notes, *prepared.assembled.notes) if prepared is not None else ()
        retrieval_s = prepared.retrieval.seconds if prepared is not None else 0.0
        return AnswerResult(
            text=text, finish_reason=reason, citations=citations_for(text, passages), prepared=prepared,
            metrics=metrics, timings=timings_of(metrics, retrieval_s, prepare_s),
            error=str(error) if error is not None else None, notes=notes,
        )

    def _complete(self, result: AnswerResult) -> None:
        if self._save_result is not None:
            try:
                self._save_result(result)
            except Exception as error:
                log.exception("saving the finished answer failed")
                if self.error is None:
                    self._record_error(error)
        with self._condition:
            self._ended = True
            self._condition.notify_all()

    # ---- readers ---------------------------------------------------------------------------
    def cancel(self) -> None:
        """Stop the answer; the text so far is kept (and saved)."""
        with self._condition:
            super().cancel()
            stream = self._stream
        if stream is not None:
            stream.cancel()

    def progress(self) -> str:
        """The text written so far (:attr:`text`)."""
        return self.text

    @property
    def prepared(self) -> PreparedAnswer | None:
        """The request, budget and sources once decided (None while retrieving)."""
        return self._prepared

    @property
    def text(self) -> str:
        stream = self._stream
        return self.prefix + (stream.text if stream is not None else "")

    def drain(self) -> str:
        """New text since the previous drain."""
        stream = self._stream
        return stream.drain() if stream is not None else ""

    def __iter__(self) -> Iterator[str]:
        """Pieces of new text as they arrive; raises the error that stopped the answer."""
        with self._condition:
            self._condition.wait_for(lambda: self._stream is not None or self._ended)
            stream = self._stream
        if stream is not None:
            yield from stream
        self.wait()
