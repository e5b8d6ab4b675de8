"""ModelLoader: loads a model through the EngineManager on a worker with delayed progress; the window never blocks."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.core.engines.base import LoadedModel
from app.core.engines.manager import EngineManager
from app.core.util.errors import UserFacingError
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text
from app.ui.bridge import Bridge, ProgressReporter
from app.ui.state.engine_state import EngineState


def failure_reason(error: Exception) -> str:
    """Why a load failed, as the window shows it: the core's own translatable words for a UserFacingError, else
    the exception's English inside a translated sentence (it is unexpected: a bug or a library's own message)."""
    if isinstance(error, UserFacingError):
        return str(error)  # a Text when the core wrote one (str() keeps it)
    detail = str(error) or type(error).__name__
    return Text("ModelLoader", QT_TRANSLATE_NOOP("ModelLoader", "unexpected error: {0}"), (detail,))


class ModelLoader(QObject):
    """One load at a time; it writes every step into the window's :class:`EngineState`. Signals arrive on the GUI
    thread too: ``started(path)``, ``progressed(fraction, step)`` (only after ~0.5 s, like Anki),
    ``loaded(LoadedModel)``, ``failed(reason)`` (a core Text where it has one: render it where shown).
    """

    started = Signal(object)
    progressed = Signal(float, object)
    loaded = Signal(object)
    failed = Signal(object)

    def __init__(self, manager: EngineManager, bridge: Bridge, state: EngineState,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._manager = manager
        self._bridge = bridge
        self.state = state
        self.loading_path: Path | None = None
        self.loads_started = 0

    @property
    def busy(self) -> bool:
        return self.loading_path is not None

    def announce(self, path: Path) -> None:
        """Say that ``path`` is about to load (a remembered model, before the window has painted and loads it):
        the window shows it loading from its first frame instead of "no model"."""
        if self.loading_path is None:
            self.state.set_loading(path.name)

    def load(self, path: Path, *, context_length: int | None = None) -> bool:
        """Start loading ``path`` (with ``context_length`` tokens per chat, else the settings'); False when a
        load is already running."""
        if self.loading_path is not None:
            return False
        self.loading_path = path
        self.loads_started += 1
        manager = self._manager

        def work(report: ProgressReporter) -> LoadedModel:
            return manager.load(path, report, context_length=context_length)

        self.state.set_loading(path.name)
        self.started.emit(path)
        self._bridge.run_with_progress(work, self._done, self._failed, self._progressed)
        return True

    def _progressed(self, fraction: float, step: str) -> None:
        self.state.set_progress(fraction, step)
        self.progressed.emit(fraction, step)

    def _done(self, loaded: LoadedModel) -> None:
        self.loading_path = None
        self.state.set_ready(loaded, self._manager.status().selection)
        self.loaded.emit(loaded)

    def _failed(self, error: Exception) -> None:
        path, self.loading_path = self.loading_path, None
        reason = failure_reason(error)
        self.state.set_failed(path.name if path is not None else "", reason)
        self.failed.emit(reason)
