"""ModelLoader: loads a model through the EngineManager on a worker with delayed progress; the window never blocks."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Signal

from app.core.engines.base import LoadedModel
from app.core.engines.manager import EngineManager
from app.ui.bridge import Bridge, ProgressReporter


class ModelLoader(QObject):
    """One load at a time. Signals arrive on the GUI thread:

    ``started(path)``, ``progressed(fraction, step)`` (only after ~0.5 s, like Anki),
    ``loaded(LoadedModel)``, ``failed(message)``.
    """

    started = Signal(object)
    progressed = Signal(float, str)
    loaded = Signal(object)
    failed = Signal(object)  # str: the error's words, a core Text where it has one (rendered where shown)

    def __init__(self, manager: EngineManager, bridge: Bridge, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._manager = manager
        self._bridge = bridge
        self.loading_path: Path | None = None
        self.loads_started = 0

    @property
    def busy(self) -> bool:
        return self.loading_path is not None

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

        self.started.emit(path)
        self._bridge.run_with_progress(work, self._done, self._failed, self.progressed.emit)
        return True

    def _done(self, loaded: LoadedModel) -> None:
        self.loading_path = None
        self.loaded.emit(loaded)

    def _failed(self, error: Exception) -> None:
        self.loading_path = None
        self.failed.emit(str(error) or type(error).__name__)
