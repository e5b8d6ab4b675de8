"""RunningAnswers: every answer being written, in any conversation, drained by one GUI timer once per frame."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from app.core.engines.metrics import RequestMetrics
from app.ui.job_watcher import JobWatcher

FRAME_INTERVAL_MS = 25
"""How often running answers are drained (40 frames a second: a frame of 16-33 ms keeps streaming smooth)."""


class StreamingAnswer(Protocol):
    """What the GUI needs of an answer being written: a :class:`~app.core.util.jobs.Job` (``AnswerJob``; the
    tests' ``FakeAnswer``) that also drains the text that arrived since the last frame."""

    message_id: str | None
    prefix: str

    @property
    def done(self) -> bool: ...

    @property
    def error(self) -> BaseException | None: ...

    def progress(self) -> Any: ...

    def drain(self) -> str: ...

    def cancel(self) -> None: ...

    def join(self, timeout: float | None = None) -> bool: ...

    def wait(self, timeout: float | None = None) -> Any: ...


@dataclass(frozen=True)
class FinishedAnswer:
    """How an answer ended, for the view (reload, inline error) and the speed gauge (metrics)."""

    conversation_id: str
    message_id: str
    finish_reason: str
    metrics: RequestMetrics | None
    error: BaseException | None


@dataclass
class _Run:
    job: StreamingAnswer
    text: str


class RunningAnswers(QObject):
    """At most one running answer per conversation; many conversations at once (the engine's parallel chats).

    A :class:`JobWatcher` ticks once per frame, only while some answer runs; each frame, every answer is drained once:
    ``text_arrived(conversation_id, message_id, new_text)`` carries what arrived since the last frame
    (never one signal per token), and ``finished(FinishedAnswer)`` comes once when it ends (by then
    the job has saved it in the store). Hidden conversations keep streaming: their text collects here.
    """

    text_arrived = Signal(str, str, str)
    finished = Signal(object)
    running_changed = Signal()

    def __init__(self, parent: QObject | None = None, frame_interval_ms: int = FRAME_INTERVAL_MS) -> None:
        super().__init__(parent)
        self._runs: dict[str, _Run] = {}
        self._watcher = JobWatcher(frame_interval_ms, self, precise=True)
        self._watcher.progressed.connect(self._progressed)
        self._watcher.ended.connect(self._ended)
        self._watcher.ticked.connect(self._frame_ended)
        self._drained = False
        self.frames = 0
        """Timer frames that drained something (benchmarks and tests read it)."""

    # ---- registry -----------------------------------------------------------------------------
    def add(self, conversation_id: str, job: StreamingAnswer) -> None:
        if conversation_id in self._runs:
            raise ValueError(f"conversation {conversation_id} is already generating")
        self._runs[conversation_id] = _Run(job, job.prefix)
        self._watcher.watch(job)
        self.running_changed.emit()

    def job_for(self, conversation_id: str) -> StreamingAnswer | None:
        run = self._runs.get(conversation_id)
        return run.job if run is not None else None

    def is_running(self, conversation_id: str) -> bool:
        return conversation_id in self._runs

    def conversations(self) -> frozenset[str]:
        return frozenset(self._runs)

    def streaming_message(self, conversation_id: str) -> tuple[str, str] | None:
        """(message id, text written so far) of the conversation's running answer."""
        run = self._runs.get(conversation_id)
        if run is None:
            return None
        return run.job.message_id or "", run.text

    def cancel(self, conversation_id: str) -> bool:
        """Ask the conversation's answer to stop (its text so far is kept); False if none runs."""
        run = self._runs.get(conversation_id)
        if run is None:
            return False
        run.job.cancel()
        return True

    def cancel_all(self) -> None:
        for run in self._runs.values():
            run.job.cancel()

    def wait_all(self, timeout_s: float) -> bool:
        """Shutdown only: wait up to ``timeout_s`` in all for every answer to end and be saved."""
        deadline = time.monotonic() + timeout_s
        return all(run.job.join(max(0.0, deadline - time.monotonic())) for run in list(self._runs.values()))

    # ---- the frame ----------------------------------------------------------------------------
    @property
    def ticking(self) -> bool:
        """True while the frame timer runs (only while some answer runs)."""
        return self._watcher.active

    def drain_once(self) -> None:
        """One frame now: drain each answer once; report the ones that ended."""
        self._watcher.tick()

    def _conversation_of(self, job: StreamingAnswer) -> str | None:
        return next((key for key, run in self._runs.items() if run.job is job), None)

    def _progressed(self, job: StreamingAnswer, _text_so_far: object) -> None:
        self._deliver(job)

    def _ended(self, job: StreamingAnswer) -> None:
        conversation_id = self._deliver(job)
        if conversation_id is None:
            return
        del self._runs[conversation_id]
        self.finished.emit(self._outcome(conversation_id, job))
        self.running_changed.emit()

    def _deliver(self, job: StreamingAnswer) -> str | None:
        """Emit what arrived since the last frame; the answer's conversation (None if it was dropped)."""
        conversation_id = self._conversation_of(job)
        if conversation_id is None:
            return None
        piece = job.drain()
        if piece:
            self._drained = True
            run = self._runs[conversation_id]
            run.text += piece
            self.text_arrived.emit(conversation_id, job.message_id or "", piece)
        return conversation_id

    def _frame_ended(self) -> None:
        if self._drained:
            self.frames += 1
        self._drained = False

    @staticmethod
    def _outcome(conversation_id: str, job: StreamingAnswer) -> FinishedAnswer:
        message_id = job.message_id or ""
        if job.error is not None:
            return FinishedAnswer(conversation_id, message_id, "error", None, job.error)
        result = job.wait(0)
        metrics = getattr(result, "metrics", None)
        reason = str(getattr(result, "finish_reason", "stop"))
        return FinishedAnswer(conversation_id, message_id, reason, metrics if isinstance(
            metrics, RequestMetrics) else None, None)
