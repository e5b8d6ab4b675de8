"""EngineState: the one place the window learns what the engine is doing; every widget that shows it observes it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum

from PySide6.QtCore import QObject, Signal

from app.core.engines.base import LoadedModel
from app.core.engines.selection import BackendSelection


class EnginePhase(Enum):
    NONE = "none"
    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"


@dataclass(frozen=True)
class EngineSnapshot:
    """What the engine is doing now, as the window shows it.

    ``model_name``: the model being loaded, loaded, or that failed ("" with no model). ``step`` and
    ``fraction``: the load's current step (a core Text or "") and how far it is (None until it reports).
    ``loaded`` and ``selection``: the model in use and why its backend was chosen (READY only).
    ``error``: why the load failed (a core Text where the core has one; FAILED only).
    """

    phase: EnginePhase = EnginePhase.NONE
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

    @property
    def phase(self) -> EnginePhase:
        return self._snapshot.phase

    def set_none(self) -> None:
        """No model: never loaded, or unloaded."""
        self._set(EngineSnapshot())

    def set_loading(self, model_name: str) -> None:
        """A load of ``model_name`` has begun (or is about to: a remembered model waits for the machine check)."""
        self._set(EngineSnapshot(EnginePhase.LOADING, model_name))

    def set_progress(self, fraction: float, step: str) -> None:
        """The running load reached ``fraction`` at ``step`` (ignored when no load runs)."""
        if self._snapshot.phase is EnginePhase.LOADING:
            self._set(dataclasses.replace(self._snapshot, fraction=fraction, step=step or self._snapshot.step))

    def set_ready(self, loaded: LoadedModel, selection: BackendSelection | None) -> None:
        self._set(EngineSnapshot(EnginePhase.READY, loaded.model_name, loaded=loaded, selection=selection))

    def set_failed(self, model_name: str, error: str) -> None:
        self._set(EngineSnapshot(EnginePhase.FAILED, model_name, error=error))

    def _set(self, snapshot: EngineSnapshot) -> None:
        if snapshot != self._snapshot:
            self._snapshot = snapshot
            self.changed.emit(snapshot)
