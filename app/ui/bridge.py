"""The one place that runs work off the GUI thread and brings its result back onto it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

log = logging.getLogger(__name__)


class _Outcome(QObject):
    """Carries a worker's result to the GUI thread through a queued signal."""

    succeeded = Signal(object)
    failed = Signal(object)


class _Job(QRunnable):
    def __init__(self, work: Callable[[], Any], outcome: _Outcome) -> None:
        super().__init__()
        self._work = work
        self._outcome = outcome

    def run(self) -> None:
        try:
            result = self._work()
        except Exception as error:  # reported to the GUI, which decides how to show it
            log.exception("background job failed")
            self._outcome.failed.emit(error)
        else:
            self._outcome.succeeded.emit(result)


class Bridge(QObject):
    """Runs plain-Python work on a thread pool; ``on_done``/``on_error`` run on the GUI thread.

    Workers never touch Qt objects: they return plain immutable data.
    """

    def __init__(self, parent: QObject | None = None, pool: QThreadPool | None = None) -> None:
        super().__init__(parent)
        self._pool = pool or QThreadPool(self)
        self._pending: set[_Outcome] = set()

    def run_in_background(
        self,
        work: Callable[[], Any],
        on_done: Callable[[Any], None],
        on_error: Callable[[Exception], None] | None = None,
    ) -> None:
        outcome = _Outcome(self)  # lives on the GUI thread, so its slots run there
        self._pending.add(outcome)

        def finish() -> None:
            self._pending.discard(outcome)
            outcome.deleteLater()

        outcome.succeeded.connect(on_done)
        outcome.succeeded.connect(finish)
        if on_error is not None:
            outcome.failed.connect(on_error)
        outcome.failed.connect(finish)
        self._pool.start(_Job(work, outcome))

    def wait_for_all(self, timeout_ms: int = 5000) -> bool:
        """Block until running jobs end (shutdown and tests only)."""
        return self._pool.waitForDone(timeout_ms)
