"""Python's cyclic garbage collector, run on the GUI thread only while the window is up.

A Qt object whose Python wrapper sits in a reference cycle is deleted when the collector frees that cycle,
on whichever thread's allocation started the collection. The app's worker threads allocate the most
(indexing, the first import of the embedding libraries, the engine), so they start most collections. A
widget deleted on a worker sends its ``destroyed`` signal from there; Qt queues it to the GUI thread, which
later acts on freed memory. Seen in the test suite: a closed knowledge panel with a busy progress bar was
collected while a worker imported chromadb, and the GUI thread crashed in
``QCommonStylePrivate::removeAnimation``.

:class:`GuiThreadGarbageCollector` turns automatic collection off and collects from a GUI-thread timer with
Python's own thresholds, except that a full collection (every tracked object: 0.36 s on the 2-core test machine
with PyTorch, chromadb and Qt loaded, a visible stall) runs at most every ``full_every_s``. CPython itself
puts full collections off until the long-lived objects have grown by a quarter, which it does not expose.
"""

from __future__ import annotations

import gc
import time

from PySide6.QtCore import QObject, QTimer

CHECK_INTERVAL_MS = 500
"""How often the GUI thread looks at the collector's counts (it collects only past Python's thresholds)."""
FULL_COLLECTION_EVERY_S = 300.0
"""The least time between two full collections (cycles among old objects wait at most this long)."""


class GuiThreadGarbageCollector(QObject):
    """While started, cyclic garbage is collected on the GUI thread only (see the module's docstring)."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = CHECK_INTERVAL_MS,
                 full_every_s: float = FULL_COLLECTION_EVERY_S) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.collect_if_due)
        self._full_every_s = full_every_s
        self._last_full = time.monotonic()
        self._was_enabled = True
        self.collections = 0
        """How many collections the timer ran (for tests and diagnostics)."""

    @property
    def running(self) -> bool:
        return self._timer.isActive()

    def start(self) -> None:
        """Turn automatic collection off and collect from the GUI thread's timer (call on the GUI thread)."""
        if self.running:
            return
        self._was_enabled = gc.isenabled()
        gc.disable()
        self._last_full = time.monotonic()
        self._timer.start()

    def stop(self) -> None:
        """Collect everything now, on this (the GUI) thread, and give collection back to Python."""
        if not self.running:
            return
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()

    def collect_if_due(self) -> int | None:
        """Collect the generation Python would collect now, if any (a full one only ``full_every_s`` after the
        last); which one it was."""
        counts, thresholds = gc.get_count(), gc.get_threshold()
        if counts[0] <= thresholds[0]:
            return None
        generation = 0
        if counts[1] > thresholds[1]:
            generation = 1
            now = time.monotonic()
            if counts[2] > thresholds[2] and now - self._last_full >= self._full_every_s:
                generation, self._last_full = 2, now
        gc.collect(generation)
        self.collections += 1
        return generation
