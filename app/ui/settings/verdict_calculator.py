"""VerdictCalculator: recomputes the memory verdict on a worker while the user edits (debounced, stale dropped)."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer, Signal

from app.core.config import Settings
from app.ui.bridge import Bridge
from app.ui.settings.verdict_planning import (
    MetadataCache,
    Verdict,
    compute_verdict,
    memory_a_reload_frees,
    model_path_for,
)
from app.ui.state.gui_services import GuiServices

DEBOUNCE_MS = 150
LANE = "verdict"


class VerdictCalculator(QObject):
    """Takes the settings being edited; emits ``verdict_ready(Verdict)`` for the newest of them only.

    Requests are debounced (~150 ms after the last edit), computed one at a time on a private
    one-thread pool, and a result for settings that were edited again since is dropped.
    """

    verdict_ready = Signal(object)
    failed = Signal(object)
    """Why planning failed: a ``str``, a core :class:`~app.core.util.translatable.Text` when the core wrote it (an
    object signal: a ``str`` signal would hand on plain English and lose the Text)."""

    def __init__(self, services: GuiServices, parent: QObject | None = None, debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self._services = services
        self._bridge = Bridge(self, serial=True)
        self._metadata = MetadataCache()
        self._pending: Settings | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._start)
        self.requests_started = 0

    def request(self, settings: Settings) -> None:
        """Plan ``settings`` soon; an earlier request still waiting is replaced."""
        self._pending = settings
        self._bridge.drop_lane(LANE)  # whatever is computing now is already stale
        self._timer.start()

    def _start(self) -> None:
        settings, self._pending = self._pending, None
        if settings is None:
            return
        self.requests_started += 1
        status = self._services.engine_manager.status()
        model_path = model_path_for(settings, status)
        machine, metadata = self._services.machine, self._metadata
        freed = memory_a_reload_frees(status)

        def work() -> Verdict:
            return compute_verdict(settings, model_path, machine.current(freed), metadata)

        def report(error: BaseException) -> None:
            self.failed.emit(str(error) or type(error).__name__)

        self._bridge.run_latest(LANE, work, self.verdict_ready.emit, report)

    def wait(self, timeout_ms: int = 5000) -> bool:
        """Block until the worker is idle (closing and tests)."""
        return self._bridge.wait_for_all(timeout_ms)
