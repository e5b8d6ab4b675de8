"""ModelStatus: the status-bar piece that says which model is loaded, loading (with progress), or failed: it shows
the window's EngineState."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from app.core.engines.base import LoadedModel
from app.core.engines.manager import ManagerState
from app.core.engines.selection import BackendSelection
from app.ui.i18n import follow_language, render
from app.ui.state.engine_state import EngineSnapshot, EngineState

BACKEND_NAMES = {"llamacpp": "llama.cpp", "vllm": "vLLM"}
STATE_COLORS = {ManagerState.EMPTY: "#9e9e9e", ManagerState.LOADING: "#fb8c00", ManagerState.READY: "#43a047",
                ManagerState.FAILED: "#e53935"}


class ModelStatus(QWidget):
    """A coloured dot, one line of text and a progress bar (only while loading, after a short delay).

    It keeps the last snapshot it was shown, so a language switch writes the line again.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelStatus")
        self.dot = QLabel(self)
        self.dot.setFixedSize(10, 10)
        self.text = QLabel(self)
        self.text.setObjectName("modelStatusText")
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar(self)
        self.progress.setObjectName("modelLoadProgress")
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 0)
        layout.addWidget(self.dot)
        layout.addWidget(self.text, stretch=1)
        layout.addWidget(self.progress)
        self.snapshot = EngineSnapshot()
        self._show_state_dot()
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.text.setAccessibleName(self.tr("Model status"))
        self.progress.setAccessibleName(self.tr("Model loading progress"))
        self._name_state_dot()
        self._render()

    @property
    def state(self) -> ManagerState:
        """The state shown."""
        return self.snapshot.state

    def follow(self, state: EngineState) -> None:
        """Show ``state`` now and whenever it changes (the window's one engine state)."""
        state.changed.connect(self.show_snapshot)
        self.show_snapshot(state.snapshot)

    def show_snapshot(self, snapshot: EngineSnapshot) -> None:
        """Show what the engine is doing: the state's dot, its line, and the load's bar once it reports."""
        self.snapshot = snapshot
        loading = snapshot.state is ManagerState.LOADING
        self.progress.setVisible(loading and snapshot.fraction is not None)
        if loading and snapshot.fraction is not None:
            self.progress.setValue(round(snapshot.fraction * 100))
            self.progress.setToolTip(render(snapshot.step))
        self._show_state_dot()
        self._render()

    def _show_state_dot(self) -> None:
        self.dot.setStyleSheet(f"background: {STATE_COLORS[self.state]}; border-radius: 5px;")
        self._name_state_dot()

    def _name_state_dot(self) -> None:
        states = {ManagerState.EMPTY: self.tr("No model"), ManagerState.LOADING: self.tr("Loading"),
                  ManagerState.READY: self.tr("Ready"), ManagerState.FAILED: self.tr("Failed")}
        self.dot.setAccessibleName(self.tr("Model state"))
        self.dot.setAccessibleDescription(states[self.state])

    def _render(self) -> None:
        """Write the line (and its tooltip) for the state in the current language."""
        snapshot, tooltip = self.snapshot, ""
        if snapshot.state is ManagerState.LOADING:
            text = (self.tr("Loading {0}: {1}…").format(snapshot.model_name, render(snapshot.step)) if snapshot.step
                    else self.tr("Loading {0}…").format(snapshot.model_name))
        elif snapshot.state is ManagerState.READY and snapshot.loaded is not None:
            text, tooltip = self._ready_texts(snapshot.loaded, snapshot.selection)
        elif snapshot.state is ManagerState.FAILED:
            error = render(snapshot.error)
            text, tooltip = self.tr("Model failed to load: {0}").format(error), error
        else:
            text = self.tr("No model loaded. Use File › Load model… to choose one.")
        self.text.setText(text)
        self.text.setToolTip(tooltip or text)

    def _ready_texts(self, loaded: LoadedModel, selection: BackendSelection | None) -> tuple[str, str]:
        backend = BACKEND_NAMES.get(loaded.backend) or self.tr("a remote server")
        config = loaded.config
        chats = self.tr("1 chat") if config.parallel_chats == 1 else self.tr("{0} chats").format(
            config.parallel_chats
        )
        text = self.tr("Ready: {0} on {1} · {2} tokens × {3}").format(
            loaded.model_name, backend, f"{config.context_length:,}", chats
        )
        details = [self.tr("Loaded in {0:.1f} s").format(loaded.load_time_s)]
        if selection is not None:
            reason = render(selection.reason)
            details.insert(0, self.tr("Backend: {0} ({1})").format(backend, reason))
            text += self.tr(" ({0})").format(reason)  # Chinese: no space before its full-width bracket
        details.extend(render(note) for note in loaded.notes)
        return text, "\n".join(details)
