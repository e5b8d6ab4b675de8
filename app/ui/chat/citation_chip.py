"""CitationChip: a small button naming one source of an answer; click opens the file at its page."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSizePolicy, QToolButton, QWidget

from app.core.chat.records import Citation
from app.ui.i18n import follow_language, render

CHIP_MAX_WIDTH = 260
PDF_SUFFIX = ".pdf"


def source_url(citation: Citation) -> QUrl:
    """A file URL for the citation's source; PDFs get ``#page=N`` (what PDF viewers and browsers honour)."""
    url = QUrl.fromLocalFile(citation.path)
    if citation.page is not None and Path(citation.path).suffix.lower() == PDF_SUFFIX:
        url.setFragment(f"page={citation.page}")
    return url


def chip_text(citation: Citation) -> str:
    """``[2] report.pdf, p. 3`` in the current language (the core's label is a Text)."""
    return f"[{citation.number}] {render(citation.label)}"


class CitationChip(QToolButton):
    """``open_requested(Citation)`` on click; its menu also offers ``passage_requested(Citation)``.

    Sources the answer actually cites are drawn highlighted (``cited`` property, styled by the view).
    """

    open_requested = Signal(object)
    passage_requested = Signal(object)

    def __init__(self, citation: Citation, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.citation = citation
        self.setObjectName("citationChip")
        self.setProperty("cited", citation.cited)
        self.setAutoRaise(False)
        self.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        self.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Fixed)
        if citation.cited:
            font = self.font()
            font.setBold(True)
            self.setFont(font)
        menu = QMenu(self)
        self.open_action = QAction(self)
        self.open_action.triggered.connect(lambda: self.open_requested.emit(self.citation))
        self.passage_action = QAction(self)
        self.passage_action.triggered.connect(lambda: self.passage_requested.emit(self.citation))
        menu.addAction(self.open_action)
        menu.addAction(self.passage_action)
        self.setMenu(menu)
        self.clicked.connect(lambda: self.open_requested.emit(self.citation))
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        citation = self.citation
        full = chip_text(citation)
        self.setText(self.fontMetrics().elidedText(full, Qt.TextElideMode.ElideMiddle, CHIP_MAX_WIDTH))
        where = self.tr("page {0}").format(citation.page) if citation.page is not None else ""
        tooltip = [full, citation.path + (f" ({where})" if where else "")]
        if citation.excerpt:
            tooltip += ["", citation.excerpt]
        if not citation.cited:
            tooltip += ["", self.tr("Given to the model as a source; the answer does not cite it.")]
        self.setToolTip("\n".join(tooltip))
        self.setAccessibleName(self.tr("Source {0}").format(full))
        self.open_action.setText(self.tr("Open the file"))
        self.passage_action.setText(self.tr("Show the passage"))
