"""The pieces Bridge is built from: the runnable, its signal carrier, and a throttled progress reporter."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, Signal

log = logging.getLogger(__name__)

ProgressReporter = Callable[[float, str], None]
"""Called by work with a fraction in [0, 1] and a short description of the step (any thread)."""

PROGRESS_MIN_INTERVAL_S = 0.05
"""Progress reaches the GUI at most this often (the final 100 % always gets through)."""


class JobSignals(QObject):
    """Carries a worker's outcome to the GUI thread through queued signals.

    It is created on the GUI thread, so its connected slots run there.
    """

    succeeded = Signal(object)
    failed = Signal(object)
    progressed = Signal(float, object)  # the step: a str, or a core Text (kept whole, so the window translates it)
    skipped = Signal()


class Job(QRunnable):
    """Runs ``work`` on a pool thread and reports through ``signals``.

    ``should_run`` is asked just before starting: superseded work is skipped, not run.
    """

    def __init__(
        self,
        work: Callable[[], Any],
        signals: JobSignals,
        should_run: Callable[[], bool] | None = None,
    ) -> None:
        super().__init__()
        self._work = work
        self._signals = signals
        self._should_run = should_run

    def run(self) -> None:
        if self._should_run is not None and not self._should_run():
            self._signals.skipped.emit()
            return
        try:
            result = self._work()
        except Exception as error:  # reported to the GUI, which decides how to show it
            log.exception("background job failed")
            self._signals.failed.emit(error)
        else:
            self._signals.succeeded.emit(result)


class ThrottledProgress:
    """A ProgressReporter for workers: forwards to ``signals.progressed`` at most every 50 ms."""

    def __init__(self, signals: JobSignals, clock: Callable[[], float] = time.monotonic) -> None:
        self._signals = signals
        self._clock = clock
        self._lock = threading.Lock()
        self._last_sent = float("-inf")

    def __call__(self, fraction: float, text: str) -> None:
        now = self._clock()
        with self._lock:
            if fraction < 1.0 and now - self._last_sent < PROGRESS_MIN_INTERVAL_S:
                return
            self._last_sent = now
        self._signals.progressed.emit(float(min(1.0, max(0.0, fraction))), text if isinstance(text, str) else str(text))


class LaneTickets:
    """Generation counters per lane: only the newest submission of a lane is current (any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._latest: dict[str, int] = {}

    def issue(self, lane: str) -> Callable[[], bool]:
        """A new ticket for ``lane``; the returned check says whether it is still the newest."""
        with self._lock:
            generation = self._latest.get(lane, 0) + 1
            self._latest[lane] = generation

        def is_current() -> bool:
            with self._lock:
                return self._latest.get(lane) == generation

        return is_current

    def retire(self, lane: str) -> None:
        """Make every ticket of ``lane`` stale (its queued work is skipped, late results dropped)."""
        with self._lock:
            self._latest[lane] = self._latest.get(lane, 0) + 1
