"""FirstRunPage: shown while no model is on this computer: what UniDesk needs; nothing leaves the machine."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


class FirstRunPage(QWidget):
    """``browse_requested()`` (go to the catalog) and ``own_file_requested()`` (use a model file the user has)."""

    browse_requested = Signal()
    own_file_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("firstRunPage")
        self.headline = QLabel(self)
        font = self.headline.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        self.headline.setFont(font)
        self.explanation = QLabel(self)
        self.explanation.setObjectName("firstRunExplanation")
        self.explanation.setWordWrap(True)
        self.privacy = QLabel(self)
        self.privacy.setObjectName("firstRunPrivacy")
        self.privacy.setWordWrap(True)
        privacy_font = self.privacy.font()
        privacy_font.setBold(True)
        self.privacy.setFont(privacy_font)
        self.offline = QLabel(self)
        self.offline.setObjectName("firstRunOffline")
        self.offline.setWordWrap(True)
        self.browse_button = QPushButton(self)
        self.browse_button.setObjectName("browseCatalogButton")
        self.browse_button.setDefault(True)
        self.browse_button.clicked.connect(self.browse_requested)
        self.own_file_button = QPushButton(self)
        self.own_file_button.setObjectName("useOwnModelButton")
        self.own_file_button.clicked.connect(self.own_file_requested)
        buttons = QHBoxLayout()
        buttons.addWidget(self.browse_button)
        buttons.addWidget(self.own_file_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(32, 24, 32, 24)
        layout.setSpacing(12)
        layout.addWidget(self.headline)
        layout.addWidget(self.explanation)
        layout.addWidget(self.privacy)
        layout.addWidget(self.offline)
        layout.addSpacing(8)
        layout.addLayout(buttons)
        layout.addStretch(1)
        for label in (self.explanation, self.privacy, self.offline):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        self.headline.setText(self.tr("Choose a language model"))
        self.explanation.setText(self.tr(
            "UniDesk answers with a language model that runs on this computer. There is none here yet: "
            "pick one from the catalog (each is marked by whether it fits this machine), or use a model file "
            "you already have."))
        self.privacy.setText(self.tr(
            "Nothing you type, ask or add leaves this machine. Only the model download itself comes from "
            "the internet (from the Hugging Face hub)."))
        self.offline.setText(self.tr(
            "Once a model is on this computer, UniDesk works offline."))
        self.browse_button.setText(self.tr("Browse the catalog"))
        self.own_file_button.setText(self.tr("Use a model file I have…"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)
