"""A request's output as it grows: the engine thread appends, readers drain or iterate.

The GUI drains it once per frame; scripts iterate it. No callback runs per token on the
engine thread, so a slow reader never slows decoding. An engine may append text without
waking iterating readers (``push(text, wake=False)``) and wake them a few times a second
(:meth:`RequestStream.wake`): one thread woken per token and chat competes with the engine
thread for the interpreter.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from app.core.engines.metrics import FinishReason, RequestMetrics


class RequestStream:
    """Thread-safe growing text for one request, plus how it finished."""

    def __init__(self, request_id: str, cancel: Callable[[str], None] | None = None) -> None:
        self.request_id = request_id
        self._cancel_callback = cancel
        self._condition = threading.Condition()
        self._chunks: list[str] = []
        self._text_parts: list[str] = []
        self._finished = False
        self._finish_reason: FinishReason | None = None
        self._error: BaseException | None = None
        self._metrics = RequestMetrics()
        self._cancel_requested = False

    # ---- engine side -------------------------------------------------------------------
    def push(self, text: str, wake: bool = True) -> None:
        """Append ``text``; ``wake=False`` leaves iterating readers asleep until :meth:`wake` or the finish."""
        if not text:
            return
        with self._condition:
            self._chunks.append(text)
            self._text_parts.append(text)
            if wake:
                self._condition.notify_all()

    def wake(self) -> None:
        """Wake iterating readers if text is waiting for them."""
        with self._condition:
            if self._chunks:
                self._condition.notify_all()

    def update_metrics(self, metrics: RequestMetrics) -> None:
        with self._condition:
            self._metrics = metrics

    def finish(self, reason: FinishReason, metrics: RequestMetrics, error: BaseException | None = None) -> None:
        with self._condition:
            if self._finished:
                return
            self._finished = True
            self._finish_reason = reason
            self._metrics = metrics
            self._error = error
            self._condition.notify_all()

    @property
    def cancel_requested(self) -> bool:
        return self._cancel_requested

    # ---- reader side -------------------------------------------------------------------
    def cancel(self) -> None:
        """Ask the engine to stop this request; text produced so far is kept."""
        self._cancel_requested = True
        if self._cancel_callback is not None:
            self._cancel_callback(self.request_id)

    def drain(self) -> str:
        """Text produced since the previous drain (empty if none)."""
        with self._condition:
            chunks, self._chunks = self._chunks, []
        return "".join(chunks)

    def __iter__(self) -> Iterator[str]:
        """Yield text pieces as they arrive until the request finishes; raises its error."""
        while True:
            with self._condition:
                while not self._chunks and not self._finished:
                    self._condition.wait()
                chunks, self._chunks = self._chunks, []
                finished = self._finished
            if chunks:
                yield "".join(chunks)
            if finished:
                with self._condition:
                    leftover, self._chunks = self._chunks, []
                if leftover:
                    yield "".join(leftover)
                if self._error is not None:
                    raise self._error
                return

    def wait(self, timeout: float | None = None) -> bool:
        """Block until finished; False on timeout."""
        with self._condition:
            return self._condition.wait_for(lambda: self._finished, timeout)

    @property
    def finished(self) -> bool:
        return self._finished

    @property
    def finish_reason(self) -> FinishReason | None:
        return self._finish_reason

    @property
    def error(self) -> BaseException | None:
        return self._error

    @property
    def text(self) -> str:
        """Everything produced so far (does not affect :meth:`drain`)."""
        with self._condition:
            return "".join(self._text_parts)

    @property
    def metrics(self) -> RequestMetrics:
        with self._condition:
            return self._metrics
