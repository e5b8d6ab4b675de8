"""PassagePopup: a small popup showing the passage of a cited source, with a button to open the file."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.core.chat.records import Citation
from app.ui.chat.citation_chip import chip_text
from app.ui.i18n import follow_language

POPUP_WIDTH = 420


class PassagePopup(QFrame):
    """Closes itself on a click elsewhere (a Qt popup); ``open_requested(Citation)`` from its button."""

    open_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("passagePopup")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFixedWidth(POPUP_WIDTH)
        self.citation: Citation | None = None
        self.title = QLabel(self)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.location = QLabel(self)
        self.location.setWordWrap(True)
        self.location.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.passage = QLabel(self)
        self.passage.setObjectName("passageText")
        self.passage.setWordWrap(True)
        self.passage.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton(self)
        self.open_button.clicked.connect(self._open)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.addWidget(self.title)
        layout.addWidget(self.location)
        layout.addWidget(self.passage)
        layout.addLayout(buttons)
        self._file_exists = False
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.open_button.setText(self.tr("Open the file"))
        self.passage.setAccessibleName(self.tr("Passage"))
        self._show_texts()

    def _show_texts(self) -> None:
        """Where the cited file is and its passage, in the current language."""
        citation = self.citation
        if citation is None:
            return
        self.title.setText(chip_text(citation))
        self.location.setText(citation.path if self._file_exists
                              else self.tr("{0} (the file is no longer there)").format(citation.path))
        self.passage.setText(citation.excerpt or self.tr("No passage text was kept for this source."))

    def show_citation(self, citation: Citation, at: QPoint) -> None:
        """Fill the popup for ``citation`` and show it with its top-left corner at global ``at``."""
        self.citation = citation
        self._file_exists = Path(citation.path).is_file()
        self._show_texts()
        self.open_button.setEnabled(self._file_exists)
        self.adjustSize()
        self.move(at)
        self.show()

    def _open(self) -> None:
        if self.citation is not None:
            self.open_requested.emit(self.citation)
        self.close()
