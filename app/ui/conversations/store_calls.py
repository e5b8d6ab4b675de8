"""StoreCalls: the conversation store, called off the GUI thread in the order the window makes its calls."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QObject

from app.core.chat.store import ConversationStore
from app.ui.bridge import Bridge

log = logging.getLogger(__name__)

R = TypeVar("R")


class StoreCalls(QObject):
    """Runs calls to the conversation store (SQLite) on one worker thread, one after another, so the GUI thread
    never waits on the database and a write followed by a read of the same conversation reads what was written.

    ``call(work, done, failed)``: ``work(store)`` runs on the worker; ``done(result)`` or ``failed(error)``
    on the GUI thread. ``latest(lane, ...)``: a read that a newer read of the same lane supersedes (skipped if
    it has not started, its result dropped if it has). The chat view and the conversations sidebar share one.
    """

    def __init__(self, store: ConversationStore, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._store = store
        self._bridge = Bridge(self, serial=True)
        self._stopped = False

    def call(self, work: Callable[[ConversationStore], R], done: Callable[[R], None] | None = None,
             failed: Callable[[Exception], None] | None = None) -> None:
        """Run ``work(store)`` after every call made before it."""
        if self._stopped:
            return
        store = self._store
        self._bridge.run_in_background(lambda: work(store), done or _ignore, failed or _log_failure)

    def latest(self, lane: str, work: Callable[[ConversationStore], R], done: Callable[[R], None],
               failed: Callable[[Exception], None] | None = None) -> None:
        """Like :meth:`call`, but only the newest call of ``lane`` delivers (reads of what is on show)."""
        if self._stopped:
            return
        store = self._store
        self._bridge.run_latest(lane, lambda: work(store), done, failed or _log_failure)

    def drop(self, lane: str) -> None:
        """Forget the calls of ``lane`` (a queued one is skipped, a late result dropped)."""
        self._bridge.drop_lane(lane)

    def busy(self) -> bool:
        """True while some call has not reported back to the GUI thread (tests and shutdown)."""
        return self._bridge.busy()

    def wait(self, timeout_ms: int = 3000) -> bool:
        """Block until the calls made so far have run (shutdown only)."""
        return self._bridge.wait_for_all(timeout_ms)

    def stop(self, timeout_ms: int = 3000) -> bool:
        """Shutdown: take no more calls and wait for those made (the store closes after this)."""
        self._stopped = True
        return self.wait(timeout_ms)


def _ignore(_result: Any) -> None:
    return None


def _log_failure(error: Exception) -> None:
    log.info("a conversation store call failed: %s", error)
