"""ContextPreview: works out, off the GUI thread, the context budget the draft would get (debounced while typing)."""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer, Signal

from app.core.chat.prompt import ContextBudget
from app.core.services.chat_session import ChatSession
from app.core.util.errors import UserFacingError
from app.ui.bridge import Bridge

PREVIEW_DELAY_MS = 300
PREVIEW_MAX_WAIT_S = 1.0
"""Someone typing without pause still sees the meter move at least this often."""
PREVIEW_LANE = "context-preview"


class ContextPreview(QObject):
    """``request(conversation_id, draft)`` restarts a short timer (but waits at most ``PREVIEW_MAX_WAIT_S``
    in all); then one preview runs on a private worker.

    Only the newest request's outcome is delivered: ``ready(ContextBudget)``, ``ready(None)`` when no
    model is loaded, or ``failed(UserFacingError)`` (the question does not fit, the conversation is gone).
    """

    ready = Signal(object)
    failed = Signal(object)

    def __init__(self, session: ChatSession, parent: QObject | None = None, delay_ms: int = PREVIEW_DELAY_MS) -> None:
        super().__init__(parent)
        self._session = session
        self._bridge = Bridge(self, serial=True)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(delay_ms)
        self._timer.timeout.connect(self.run_now)
        self._conversation_id: str | None = None
        self._draft = ""
        self._waiting_since = 0.0
        self.runs = 0

    def request(self, conversation_id: str | None, draft: str) -> None:
        self._conversation_id = conversation_id
        self._draft = draft
        now = time.monotonic()
        if not self._timer.isActive():
            self._waiting_since = now
        elif now - self._waiting_since >= PREVIEW_MAX_WAIT_S:
            self.run_now()
            return
        self._timer.start()

    def run_now(self) -> None:
        self._timer.stop()
        self.runs += 1
        session, conversation_id, draft = self._session, self._conversation_id, self._draft

        def work() -> ContextBudget | UserFacingError | None:
            if session.answerer.manager.status().loaded is None:
                return None
            try:
                if conversation_id is not None:
                    return session.preview(conversation_id, draft).budget
                system_prompt = session.store.default_system_prompt()
                return session.answerer.assemble(system_prompt, (), draft, ()).budget
            except UserFacingError as error:  # expected outcomes travel as data (no traceback in the log)
                return error

        self._bridge.run_latest(PREVIEW_LANE, work, self._deliver, self.failed.emit)

    def _deliver(self, outcome: ContextBudget | UserFacingError | None) -> None:
        if isinstance(outcome, UserFacingError):
            self.failed.emit(outcome)
        else:
            self.ready.emit(outcome)

    def stop(self) -> None:
        self._timer.stop()
        self._bridge.drop_lane(PREVIEW_LANE)

    def wait(self, timeout_ms: int = 3000) -> bool:
        return self._bridge.wait_for_all(timeout_ms)
