"""EngineState: the one place the window learns what the engine is doing; every widget that shows it observes it.

Its states are the core's :class:`ManagerState` (one vocabulary): the window does not name them again.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from app.core.engines.base import LoadedModel
from app.core.engines.manager import ManagerState
from app.core.engines.selection import BackendSelection


@dataclass(frozen=True)
class EngineSnapshot:
    """What the engine is doing now, as the window shows it.

    ``state``: the manager's state as the window shows it; it runs ahead of the manager in one place only: a
    remembered model is LOADING from the window's first frame, before the manager starts loading it
    (``ModelLoader.announce``). Window-only: ``model_name``, the model being loaded, loaded, or that failed (""
    with no model; the manager forgets a failed model's name); ``step`` and ``fraction``, the load's current step (a
    core Text or "") and how far it is (None until it reports). ``loaded`` and ``selection``: the model in use and
    why its backend was chosen (READY only). ``error``: why the load failed (a core Text where the core has one;
    FAILED only).
    """

    state: ManagerState = ManagerState.EMPTY
    model_name: str = ""
    step: str = ""
    fraction: float | None = None
    loaded: LoadedModel | None = None
    selection: BackendSelection | None = None
    error: str = ""


class EngineState(QObject):
    """Holds the current :class:`EngineSnapshot` and emits ``changed(snapshot)`` on the GUI thread whenever it
    changes; the model loader (and unloading) write it, the status bar, the chat input, the welcome page and the
    model manager read it. Nothing else keeps its own idea of the engine's state."""

    changed = Signal(object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._snapshot = EngineSnapshot()

    @property
    def snapshot(self) -> EngineSnapshot:
        return self._snapshot

    def set_empty(self) -> None:
        """No model: never loaded, or unloaded."""
        self._set(EngineSnapshot())

    def set_loading(self, model_name: str) -> None:
        """A load of ``model_name`` has begun (or is about to: a remembered model waits for the machine check)."""
        self._set(EngineSnapshot(ManagerState.LOADING, model_name))

    def set_progress(self, fraction: float, step: str) -> None:
        """The running load reached ``fraction`` at ``step`` (ignored when no load runs)."""
        if self._snapshot.state is ManagerState.LOADING:
            self._set(dataclasses.replace(self._snapshot, fraction=fraction, step=step or self._snapshot.step))

    def set_ready(self, loaded: LoadedModel, selection: BackendSelection | None) -> None:
        self._set(EngineSnapshot(ManagerState.READY, loaded.model_name, loaded=loaded, selection=selection))

    def set_failed(self, model_name: str, error: str) -> None:
        self._set(EngineSnapshot(ManagerState.FAILED, model_name, error=error))

    def _set(self, snapshot: EngineSnapshot) -> None:
        if snapshot != self._snapshot:
            self._snapshot = snapshot
            self.changed.emit(snapshot)
