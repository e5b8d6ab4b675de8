"""WelcomePage: the central area before the chat view exists: what to do next and what this machine is."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.ui.i18n import TextSource, follow_language, rendered
from app.ui.welcome.machine_summary import MachineSummaryView


class WelcomePage(QWidget):
    """Headline, the model state in words, Load / Settings buttons and the machine summary.

    ``set_message`` and ``set_machine_summary`` take a :data:`TextSource`, so a language switch rewrites them.
    """

    load_requested = Signal()
    settings_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("chatArea")
        self._message: TextSource | None = None
        self._machine_summary: TextSource | None = None
        self.headline = QLabel(self)
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        self.headline.setFont(font)
        self.message = QLabel(self)
        self.message.setObjectName("welcomeMessage")
        self.message.setWordWrap(True)
        self.load_button = QPushButton(self)
        self.load_button.clicked.connect(self.load_requested)
        self.settings_button = QPushButton(self)
        self.settings_button.clicked.connect(self.settings_requested)
        buttons = QHBoxLayout()
        buttons.addWidget(self.load_button)
        buttons.addWidget(self.settings_button)
        buttons.addStretch(1)
        self.machine_title = QLabel(self)
        title_font = self.machine_title.font()
        title_font.setBold(True)
        self.machine_title.setFont(title_font)
        self.machine_summary = MachineSummaryView(self)
        self.settings_banner = QLabel(self)
        self.settings_banner.setObjectName("settingsBanner")
        self.settings_banner.setWordWrap(True)
        self.settings_banner.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 24, 32, 24)
        layout.setSpacing(10)
        layout.addWidget(self.settings_banner)
        layout.addWidget(self.headline)
        layout.addWidget(self.message)
        layout.addLayout(buttons)
        layout.addSpacing(16)
        layout.addWidget(self.machine_title)
        layout.addWidget(self.machine_summary)
        layout.addStretch(1)
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.headline.setText(self.tr("UniDesk"))
        self.load_button.setText(self.tr("Load model…"))
        self.load_button.setAccessibleName(self.tr("Load model"))
        self.settings_button.setText(self.tr("Settings…"))
        self.settings_button.setAccessibleName(self.tr("Open settings"))
        self.machine_title.setText(self.tr("This machine"))
        self.machine_summary.setAccessibleName(self.tr("This machine"))
        self._show_message()
        self._show_machine_summary()

    def set_message(self, text: TextSource) -> None:
        """What to do next or what the model is doing (a function: rewritten after a language switch)."""
        self._message = text
        self._show_message()

    def set_machine_summary(self, text: TextSource) -> None:
        self._machine_summary = text
        self._show_machine_summary()

    def show_settings_problems(self, lines: list[str]) -> None:
        self.settings_banner.setText("\n".join(lines))
        self.settings_banner.setVisible(bool(lines))

    def _show_message(self) -> None:
        message = self._message
        self.message.setText(rendered(message) if message is not None
                             else self.tr("A private assistant that runs on this computer."))

    def _show_machine_summary(self) -> None:
        summary = self._machine_summary
        self.machine_summary.show_summary(summary if summary is not None else self.tr("Looking at this machine…"))
