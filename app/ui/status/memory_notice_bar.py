"""MemoryNoticeBar: a bar across the top of the window showing what the memory guardian did, and what to do now."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QPushButton, QSizePolicy, QToolBar, QToolButton, QWidget

from app.core.services.memory_guardian import GuardianNotice
from app.ui.i18n import follow_language, render

LEVEL_COLORS = {"ok": "#43a047", "low": "#fb8c00", "critical": "#e53935"}
MAX_PROCESSES_SHOWN = 5


class MemoryNoticeBar(QToolBar):
    """Hidden until the guardian reports; then its message, the programs taking most memory (tooltip), and
    the offered actions: *Unload the model* and *Reload smaller* (a shorter context).

    :meth:`deliver` may be called from any thread (the guardian's): the notice reaches the GUI thread through
    a queued signal. ``engine_unloaded`` fires when the guardian itself unloaded the engine.
    """

    unload_requested = Signal()
    reload_smaller_requested = Signal()
    engine_unloaded = Signal()
    _arrived = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryNoticeBar")
        self.setMovable(False)
        self.setFloatable(False)
        self.toggleViewAction().setVisible(False)  # not a toolbar the user switches on and off
        self.icon = QLabel(self)
        self.icon.setFixedSize(12, 12)
        self.label = QLabel(self)
        self.label.setObjectName("memoryNoticeText")
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.unload_button = QPushButton(self)
        self.unload_button.setObjectName("memoryNoticeUnload")
        self.unload_button.clicked.connect(self.unload_requested.emit)
        self.reload_button = QPushButton(self)
        self.reload_button.setObjectName("memoryNoticeReloadSmaller")
        self.reload_button.clicked.connect(self.reload_smaller_requested.emit)
        self.close_button = QToolButton(self)
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.hide)
        self.addWidget(self.icon)
        self.addWidget(self.label)
        self._unload_action = self.addWidget(self.unload_button)  # a toolbar shows its widgets through actions
        self._reload_action = self.addWidget(self.reload_button)
        self.addWidget(self.close_button)
        self.notice: GuardianNotice | None = None
        self._arrived.connect(self._show_notice, Qt.ConnectionType.QueuedConnection)
        self.setVisible(False)
        follow_language(self, self.retranslate_ui)

    def deliver(self, notice: GuardianNotice) -> None:
        """Show ``notice`` (safe from any thread)."""
        self._arrived.emit(notice)

    def retranslate_ui(self) -> None:
        self.setWindowTitle(self.tr("Memory"))
        self.unload_button.setText(self.tr("Unload the model"))
        self.reload_button.setText(self.tr("Reload smaller"))
        self.reload_button.setToolTip(self.tr("Load the model again with half the context length"))
        self.close_button.setToolTip(self.tr("Dismiss"))
        self.close_button.setAccessibleName(self.tr("Dismiss"))
        self._write_notice()

    def _show_notice(self, notice: GuardianNotice) -> None:
        self.notice = notice
        self._write_notice()
        self.setVisible(True)
        if notice.action == "unloaded":
            self.engine_unloaded.emit()

    def _write_notice(self) -> None:
        notice = self.notice
        if notice is None:
            return
        self.icon.setStyleSheet(f"background: {LEVEL_COLORS[notice.level]}; border-radius: 6px;")
        self.label.setText(render(notice.message))
        processes = "\n".join(process.describe() for process in notice.top_processes[:MAX_PROCESSES_SHOWN])
        note = render(notice.headroom.note) if notice.headroom.note else ""
        details = [part for part in (self.tr("Most memory:") + "\n" + processes if processes else "", note) if part]
        self.label.setToolTip("\n\n".join(details))
        self._unload_action.setVisible("unload" in notice.offers)
        self._reload_action.setVisible("reload_smaller" in notice.offers)
