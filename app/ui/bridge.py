"""The one place that runs work off the GUI thread and brings its result back onto it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QThreadPool, QTimer

from app.ui.bridge_jobs import Job, JobSignals, LaneTickets, ProgressReporter, ThrottledProgress

PROGRESS_DELAY_S = 0.5
"""Like Anki: progress appears only for work that is still running after this long."""

__all__ = ["PROGRESS_DELAY_S", "Bridge", "ProgressReporter"]


class Bridge(QObject):
    """Runs plain-Python work on a thread pool; ``on_done``/``on_error``/``on_progress`` run on the GUI thread.

    Workers never touch Qt objects: they return plain immutable data. ``serial=True`` gives the bridge
    a private pool of one thread, for work that must run in order (SQLite reads and writes, samplers).
    Long work with progress and cancel is a core :class:`~app.core.util.jobs.Job`, watched with a
    :class:`~app.ui.job_watcher.JobWatcher` instead.
    """

    def __init__(self, parent: QObject | None = None, *, serial: bool = False) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        if serial:
            self._pool.setMaxThreadCount(1)
        self._pending: set[JobSignals] = set()
        self._tickets = LaneTickets()

    def run_in_background(
        self,
        work: Callable[[], Any],
        on_done: Callable[[Any], None],
        on_error: Callable[[Exception], None] | None = None,
    ) -> None:
        """Run ``work()`` on the pool; its result goes to ``on_done``, an exception to ``on_error``."""
        self._start(work, on_done, on_error)

    def run_with_progress(
        self,
        work: Callable[[ProgressReporter], Any],
        on_done: Callable[[Any], None],
        on_error: Callable[[Exception], None] | None = None,
        on_progress: Callable[[float, str], None] | None = None,
        *,
        show_progress_after_s: float = PROGRESS_DELAY_S,
    ) -> None:
        """Run ``work(report)``; ``report(fraction, text)`` reaches ``on_progress`` only once the work
        has run for ``show_progress_after_s`` (short jobs never flicker a progress bar).
        """
        signals = JobSignals(self)
        reporter = ThrottledProgress(signals)
        if on_progress is not None:
            self._connect_delayed_progress(signals, on_progress, show_progress_after_s)
        self._start(lambda: work(reporter), on_done, on_error, signals=signals)

    def run_latest(
        self,
        lane: str,
        work: Callable[[], Any],
        on_done: Callable[[Any], None],
        on_error: Callable[[Exception], None] | None = None,
    ) -> None:
        """Like ``run_in_background``, but a newer submission to ``lane`` supersedes this one:
        if it has not started it is skipped, and if it has, its result is dropped (napari-style).
        """
        is_current = self._tickets.issue(lane)

        def deliver(result: Any) -> None:
            if is_current():
                on_done(result)

        def deliver_error(error: Exception) -> None:
            if is_current() and on_error is not None:
                on_error(error)

        self._start(work, deliver, deliver_error, should_run=is_current)

    def drop_lane(self, lane: str) -> None:
        """Forget work submitted to ``lane``: queued work is skipped and results are dropped."""
        self._tickets.retire(lane)

    def wait_for_all(self, timeout_ms: int = 5000) -> bool:
        """Block until running jobs end (shutdown and tests only)."""
        return self._pool.waitForDone(timeout_ms)

    def busy(self) -> bool:
        """True while any submitted job has not reported back."""
        return bool(self._pending)

    def _start(
        self,
        work: Callable[[], Any],
        on_done: Callable[[Any], None],
        on_error: Callable[[Exception], None] | None,
        *,
        signals: JobSignals | None = None,
        should_run: Callable[[], bool] | None = None,
    ) -> None:
        outcome = signals or JobSignals(self)  # lives on the GUI thread, so its slots run there
        self._pending.add(outcome)
        outcome.succeeded.connect(on_done)
        outcome.succeeded.connect(self._job_ended)
        if on_error is not None:
            outcome.failed.connect(on_error)
        outcome.failed.connect(self._job_ended)
        outcome.skipped.connect(self._job_ended)
        self._pool.start(Job(work, outcome, should_run))

    def _job_ended(self) -> None:
        """Forget the job's signal carrier and delete it. A method, not a closure over the carrier: a slot
        that holds the last reference to the object whose destructor disconnects it crashed PySide."""
        outcome = self.sender()
        if isinstance(outcome, JobSignals):
            self._pending.discard(outcome)
            outcome.deleteLater()

    def _connect_delayed_progress(
        self, signals: JobSignals, on_progress: Callable[[float, str], None], delay_s: float
    ) -> None:
        started = time.monotonic()
        latest: list[tuple[float, str]] = []
        showing: list[bool] = []  # set once the delay is over: from then on every update is shown
        timer = QTimer(signals)
        timer.setSingleShot(True)

        def show_latest() -> None:
            showing[:] = [True]  # a coarse timer may fire a little early: the delay is over all the same
            if latest:
                on_progress(*latest[-1])

        def progressed(fraction: float, text: str) -> None:
            latest[:] = [(fraction, text)]
            remaining_s = delay_s - (time.monotonic() - started)
            if showing or remaining_s <= 0:
                showing[:] = [True]
                on_progress(fraction, text)
            elif not timer.isActive():
                timer.start(max(1, int(remaining_s * 1000)))

        timer.timeout.connect(show_latest)
        signals.progressed.connect(progressed)
