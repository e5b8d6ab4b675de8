"""Run work only once a window has painted, so start-up jobs never compete with the first frame."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QWidget

FALLBACK_DELAY_MS = 2000  # a window that never paints (minimised, headless) still gets its work started


class AfterFirstPaint(QObject):
    """Collects callbacks and runs them, in order, on the event-loop turn after ``window``'s first paint.

    Watches ``window``'s own events (not the application's: a filter there would see every event of every
    object) until its first Paint, then removes itself. The top-level widget gets that Paint as part of the
    first frame. Callbacks added after that run on the next turn.
    """

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        self._pending: list[Callable[[], object]] = []
        self._painted = False
        self._watching = False

    def add(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` after the first paint (or on the next turn if that has happened)."""
        if self._painted:
            QTimer.singleShot(0, callback)
            return
        self._pending.append(callback)
        self._watch()

    def window_shown(self) -> None:
        """The window is being shown: start watching, with a fallback in case no paint ever comes."""
        self._watch()
        QTimer.singleShot(FALLBACK_DELAY_MS, self._run_pending)

    @property
    def painted(self) -> bool:
        return self._painted

    def _watch(self) -> None:
        if self._watching or self._painted:
            return
        self._window.installEventFilter(self)
        self._watching = True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            QTimer.singleShot(0, self._run_pending)  # after this paint (and its flush) has finished
            self._stop_watching()
        return False

    def _stop_watching(self) -> None:
        if self._watching:
            self._window.removeEventFilter(self)
        self._watching = False

    def _run_pending(self) -> None:
        if self._painted:
            return
        self._painted = True
        self._stop_watching()
        pending, self._pending = self._pending, []
        for callback in pending:
            callback()
