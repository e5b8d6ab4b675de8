"""FirstRunPage: shown while no model is on this computer: what UniDesk needs, the model recommended for this
machine (downloaded here, with pause and resume), and that nothing leaves the machine."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.core.util.translatable import join_sentences
from app.ui.models.download_box import DownloadBox


class FirstRunPage(QWidget):
    """``browse_requested()`` (go to the catalog) and ``own_file_requested()`` (use a model file the user has).

    ``show_recommendation`` names the model recommended for this machine and why; its ``download_box`` (Download,
    progress, Pause/Resume, Cancel, Use) is driven by the model manager like the catalog's.
    """

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
        self.recommended_title = QLabel(self)
        self.recommended_title.setObjectName("recommendedModel")
        title_font = self.recommended_title.font()
        title_font.setBold(True)
        self.recommended_title.setFont(title_font)
        self.recommended_reason = QLabel(self)
        self.recommended_reason.setObjectName("recommendedReason")
        self.recommended_reason.setWordWrap(True)
        self.download_box = DownloadBox(self)
        self.download_box.setObjectName("recommendedDownload")
        self._recommended_name = self._recommended_reason = ""
        for widget in (self.recommended_title, self.recommended_reason, self.download_box):
            widget.setVisible(False)
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
        layout.addWidget(self.recommended_title)
        layout.addWidget(self.recommended_reason)
        layout.addWidget(self.download_box)
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
            "the internet (from the Hugging Face hub, a mirror or ModelScope: Settings > Download source)."))
        self.offline.setText(self.tr(
            "Once a model is on this computer, UniDesk works offline."))
        self.browse_button.setText(self.tr("Browse the catalog"))
        self.own_file_button.setText(self.tr("Use a model file I have…"))
        if self._recommended_name:
            self.recommended_title.setText(self.tr("Recommended for this computer: {0}").format(
                self._recommended_name))
            self.recommended_reason.setText(join_sentences((self._recommended_reason, self.tr(
                "Downloading it also fetches the multilingual model that searches your documents (the knowledge "
                "panel shows its progress)."))))

    def show_recommendation(self, name: str, reason: str) -> None:
        """Name the recommended model (``reason`` already in the current language) and show its download box."""
        self._recommended_name, self._recommended_reason = name, reason
        for widget in (self.recommended_title, self.recommended_reason, self.download_box):
            widget.setVisible(True)
        self.browse_button.setDefault(False)
        self.download_box.download_button.setDefault(True)
        self.retranslate_ui()

    def show_no_recommendation(self) -> None:
        """Nothing in the catalog fits: only browsing and the user's own file are offered."""
        self._recommended_name = ""
        for widget in (self.recommended_title, self.recommended_reason, self.download_box):
            widget.setVisible(False)
        self.browse_button.setDefault(True)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)
