"""ModelStatus: the status-bar piece that says which model is loaded, loading (with progress), or failed."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QWidget

from app.core.engines.base import LoadedModel
from app.core.engines.selection import BackendSelection

BACKEND_NAMES = {"llamacpp": "llama.cpp", "vllm": "vLLM"}
STATE_COLORS = {"none": "#9e9e9e", "loading": "#fb8c00", "ready": "#43a047", "failed": "#e53935"}


class ModelStatus(QWidget):
    """A coloured dot, one line of text and a progress bar (only while loading, after a short delay)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("modelStatus")
        self.dot = QLabel(self)
        self.dot.setFixedSize(10, 10)
        self.text = QLabel(self)
        self.text.setObjectName("modelStatusText")
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text.setAccessibleName(self.tr("Model status"))
        self.progress = QProgressBar(self)
        self.progress.setObjectName("modelLoadProgress")
        self.progress.setAccessibleName(self.tr("Model loading progress"))
        self.progress.setRange(0, 100)
        self.progress.setMaximumWidth(180)
        self.progress.setTextVisible(True)
        self.progress.setVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 0, 6, 0)
        layout.addWidget(self.dot)
        layout.addWidget(self.text, stretch=1)
        layout.addWidget(self.progress)
        self.state = "none"
        self._loading_name = ""
        self.show_no_model()

    def show_no_model(self) -> None:
        self._set("none", self.tr("No model loaded. Use File › Load model… to choose one."), "")

    def show_loading(self, model_name: str) -> None:
        self._loading_name = model_name
        self.progress.setValue(0)
        self._set("loading", self.tr("Loading {0}…").format(model_name), "")

    def show_progress(self, fraction: float, step: str) -> None:
        """Progress of the load in progress (called only once it has run for a moment)."""
        if self.state != "loading":
            return
        self.progress.setVisible(True)
        self.progress.setValue(round(fraction * 100))
        self.progress.setToolTip(step)
        if step:
            self.text.setText(self.tr("Loading {0}: {1}…").format(self._loading_name, step))

    def show_ready(self, loaded: LoadedModel, selection: BackendSelection | None) -> None:
        backend = BACKEND_NAMES.get(loaded.backend) or self.tr("a remote server")
        config = loaded.config
        chats = self.tr("1 chat") if config.parallel_sequences == 1 else self.tr("{0} chats").format(
            config.parallel_sequences
        )
        text = self.tr("Ready: {0} on {1} · {2} tokens × {3}").format(
            loaded.model_name, backend, f"{config.context_length:,}", chats
        )
        details = [self.tr("Loaded in {0:.1f} s").format(loaded.load_time_s)]
        if selection is not None:
            details.insert(0, self.tr("Backend: {0} ({1})").format(backend, selection.reason))
            text += " " + self.tr("({0})").format(selection.reason)
        details.extend(loaded.notes)
        self._set("ready", text, "\n".join(details))

    def show_failed(self, error: str) -> None:
        self._set("failed", self.tr("Model failed to load: {0}").format(error), error)

    def _set(self, state: str, text: str, tooltip: str) -> None:
        self.state = state
        self.text.setText(text)
        self.text.setToolTip(tooltip or text)
        self.dot.setStyleSheet(f"background: {STATE_COLORS[state]}; border-radius: 5px;")
        self.dot.setAccessibleDescription(state)
        if state != "loading":
            self.progress.setVisible(False)
