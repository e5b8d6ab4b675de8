"""Composer: where the user types; Enter sends, Shift+Enter breaks the line; Send turns into Stop while answering."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from app.ui.i18n import follow_language
from app.ui.icons import themed_icon

COMPOSER_HEIGHT = 84


class Composer(QWidget):
    """``send_requested(text)``, ``stop_requested()``, ``draft_changed(text)`` (every edit; callers debounce)."""

    send_requested = Signal(str)
    stop_requested = Signal()
    draft_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.editor = QPlainTextEdit(self)
        self.editor.setObjectName("composerEditor")
        self.editor.setFixedHeight(COMPOSER_HEIGHT)
        self.editor.setTabChangesFocus(True)
        self.editor.installEventFilter(self)
        self.editor.textChanged.connect(lambda: self.draft_changed.emit(self.editor.toPlainText()))
        self.send_button = QPushButton(self)
        self.send_button.setObjectName("sendButton")
        self.send_button.setIcon(themed_icon("send"))
        self.send_button.setDefault(True)
        self.send_button.clicked.connect(self._send)
        self.stop_button = QPushButton(self)
        self.stop_button.setObjectName("stopButton")
        self.stop_button.setIcon(themed_icon("stop"))
        self.stop_button.clicked.connect(self.stop_requested)
        self.stop_button.setVisible(False)
        buttons = QVBoxLayout()
        buttons.addWidget(self.send_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.editor, 1)
        layout.addLayout(buttons)
        self.busy = False
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        """Texts in the current language (the placeholder is the chat view's: it depends on the model)."""
        self.editor.setAccessibleName(self.tr("Message"))
        self.send_button.setText(self.tr("Send"))
        self.send_button.setToolTip(self.tr("Send (Enter). Shift+Enter starts a new line."))
        self.stop_button.setText(self.tr("Stop"))
        self.stop_button.setToolTip(self.tr("Stop the answer; what it wrote so far is kept"))

    def text(self) -> str:
        return self.editor.toPlainText()

    def set_text(self, text: str) -> None:
        self.editor.setPlainText(text)

    def clear(self) -> None:
        self.editor.clear()

    def set_placeholder(self, text: str) -> None:
        """What the empty input says (the model's state); shown at once."""
        if text == self.editor.placeholderText():
            return
        self.editor.setPlaceholderText(text)
        # QPlainTextEdit repaints only when the placeholder appears or disappears, not when its words change:
        # without this the input kept saying "No model loaded" after the model had loaded.
        self.editor.viewport().update()

    def set_busy(self, busy: bool) -> None:
        """While the conversation on show is answering, Send gives way to Stop (typing goes on)."""
        self.busy = busy
        self.send_button.setVisible(not busy)
        self.stop_button.setVisible(busy)

    def _send(self) -> None:
        if self.busy:
            return
        text = self.text()
        if text.strip():
            self.send_requested.emit(text)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.editor and event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            if enter and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self._send()
                return True
        return super().eventFilter(watched, event)
