"""ChatNotice: one line above the input saying what is wrong (no model, question too long, …) and what to do."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from app.ui.i18n import TextSource, follow_language, rendered

LEVEL_COLORS = {"info": (61, 123, 217), "warning": (224, 161, 0), "error": (229, 57, 53)}
BACKGROUND_ALPHA = 0.14  # a tint that reads on light and dark palettes alike


class ChatNotice(QFrame):
    """Shows ``text`` elided to one line (full text in the tooltip) and, optionally, an action button.

    ``action_triggered(key)`` names the action ("load_model", "settings"); ``kind`` says which
    notice is up, so a later state change can clear only its own notice. Texts given as functions
    (:data:`TextSource`) are written again after a language switch.
    """

    action_triggered = Signal(str)
    dismissed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatNotice")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.label = QLabel(self)
        self.label.setObjectName("chatNoticeText")
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.setMinimumWidth(40)  # elided to the room it has: its text's width must not set the view's least
        self.kind = ""
        self.level = ""
        self.full_text = ""
        self._text: TextSource = ""
        self._action_text: TextSource = ""
        self._action = ""
        self.action_button = QPushButton(self)
        self.action_button.setObjectName("chatNoticeAction")
        self.action_button.clicked.connect(lambda: self.action_triggered.emit(self._action))
        self.close_button = QToolButton(self)
        self.close_button.setText("×")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self._dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 3, 4, 3)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.action_button)
        layout.addWidget(self.close_button)
        self.setVisible(False)
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.close_button.setToolTip(self.tr("Dismiss"))
        self.close_button.setAccessibleName(self.tr("Dismiss"))
        self._show_texts()

    def show_notice(self, kind: str, text: TextSource, *, level: str = "error", action: str = "",
                    action_text: TextSource = "", dismissable: bool = True) -> None:
        self.kind = kind
        self._text = text
        self._action_text = action_text
        self._action = action
        self._show_texts()
        self.action_button.setVisible(bool(action))
        self.close_button.setVisible(dismissable)
        red, green, blue = LEVEL_COLORS.get(level, LEVEL_COLORS["error"])
        self.setStyleSheet(
            f"QFrame#chatNotice {{ background: rgba({red}, {green}, {blue}, {BACKGROUND_ALPHA}); "
            f"border: 1px solid rgb({red}, {green}, {blue}); border-radius: 4px; }}")
        self.level = level
        self.setVisible(True)
        self._elide()

    def _show_texts(self) -> None:
        self.full_text = rendered(self._text)
        self.label.setToolTip(self.full_text)
        self.action_button.setText(rendered(self._action_text))
        self._elide()

    def clear(self, kind: str = "") -> None:
        """Hide the notice (only if it is of ``kind``, when given)."""
        if kind and kind != self.kind:
            return
        self.kind = ""
        self.full_text = ""
        self._text = self._action_text = ""
        self.setVisible(False)

    def _dismiss(self) -> None:
        kind = self.kind
        self.clear()
        self.dismissed.emit(kind)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(40, self.label.width())
        self.label.setText(self.label.fontMetrics().elidedText(self.full_text, Qt.TextElideMode.ElideRight, width))
