"""PassagePopup: a small popup showing the passage of a cited source (as formatted text), with buttons to open
the file or copy its path; it opens next to its chip, inside the window."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtGui import QGuiApplication, QTextDocument
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from app.core.chat.records import Citation
from app.ui.chat.citation_chip import chip_text
from app.ui.i18n import follow_language

POPUP_WIDTH = 440
PASSAGE_MAX_HEIGHT = 300
GAP = 4
ERROR_COLOR = "#e53935"

FileOpener = Callable[[Citation], bool]
"""Opens the cited file with the system's program; False when the system could not."""


def placed(size: tuple[int, int], anchor: QRect, bounds: QRect) -> QPoint:
    """Where a popup of ``size`` goes: just below ``anchor`` if it fits inside ``bounds``, else just above it (or
    wherever it covers least of ``bounds``' edge), its left edge at the anchor's, kept inside ``bounds``."""
    width, height = size
    below = anchor.bottom() + 1 + GAP
    above = anchor.top() - GAP - height
    if below + height <= bounds.bottom() + 1:
        top = below
    elif above >= bounds.top():
        top = above
    else:  # fits neither way: the side with more room, pushed inside
        top = below if bounds.bottom() + 1 - below >= anchor.top() - bounds.top() else above
        top = min(max(top, bounds.top()), max(bounds.top(), bounds.bottom() + 1 - height))
    left = min(max(anchor.left(), bounds.left()), max(bounds.left(), bounds.right() + 1 - width))
    return QPoint(left, top)


class PassagePopup(QFrame):
    """Closes itself on a click elsewhere (a Qt popup). ``open_file(citation) -> bool`` opens the file; when it
    cannot, the popup stays and says so (with the path to copy)."""

    def __init__(self, open_file: FileOpener, parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Popup)
        self.setObjectName("passagePopup")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setFixedWidth(POPUP_WIDTH)
        self._open_file = open_file
        self.citation: Citation | None = None
        self.title = QLabel(self)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.location = QLabel(self)
        self.location.setWordWrap(True)
        self.location.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.passage = QTextBrowser(self)
        self.passage.setObjectName("passageText")
        self.passage.setOpenLinks(False)
        self.passage.setFrameShape(QFrame.Shape.NoFrame)
        self.passage.viewport().setAutoFillBackground(False)
        self.passage.setStyleSheet("QTextBrowser { background: transparent; }")
        self.failure = QLabel(self)
        self.failure.setObjectName("openFailure")
        self.failure.setWordWrap(True)
        self.failure.setStyleSheet(f"color: {ERROR_COLOR};")
        self.failure.setVisible(False)
        self.copy_button = QPushButton(self)
        self.copy_button.clicked.connect(self._copy_path)
        self.open_button = QPushButton(self)
        self.open_button.clicked.connect(self._open)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.addWidget(self.title)
        layout.addWidget(self.location)
        layout.addWidget(self.passage)
        layout.addWidget(self.failure)
        layout.addLayout(buttons)
        self._file_exists = False
        self._open_failed = False
        self._anchor = QRect()
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.open_button.setText(self.tr("Open the file"))
        self.copy_button.setText(self.tr("Copy path"))
        self.passage.setAccessibleName(self.tr("Passage"))
        self._show_texts()

    def _show_texts(self) -> None:
        """Where the cited file is, its passage, and why it did not open, in the current language."""
        citation = self.citation
        if citation is None:
            return
        self.title.setText(chip_text(citation))
        self.location.setText(citation.path if self._file_exists
                              else self.tr("{0} (the file is no longer there)").format(citation.path))
        if citation.excerpt:
            self.passage.document().setMarkdown(citation.excerpt, QTextDocument.MarkdownFeature.MarkdownNoHTML)
        else:
            self.passage.setPlainText(self.tr("No passage text was kept for this source."))
        suffix = Path(citation.path).suffix or Path(citation.path).name
        self.failure.setText(self.tr("No program on this computer opens {0} files. Copy the path to open it "
                                     "another way.").format(suffix))
        self.failure.setVisible(self._open_failed)

    def show_citation(self, citation: Citation, anchor: QRect, *, open_failed: bool = False) -> None:
        """Fill the popup for ``citation`` and show it next to ``anchor`` (a global rectangle, e.g. its chip),
        inside the window; ``open_failed`` when the system just failed to open the file."""
        self.citation = citation
        self._file_exists = Path(citation.path).is_file()
        self._open_failed = open_failed
        self._show_texts()
        self.copy_button.setText(self.tr("Copy path"))
        self.open_button.setEnabled(self._file_exists)
        self._anchor = anchor
        self._fit_passage()
        self.adjustSize()
        self.move(placed((self.width(), self.height()), anchor, self._bounds()))
        self.show()

    def _fit_passage(self) -> None:
        """The passage box as tall as its text at the popup's width (a copy is measured: the box resets the width
        of its own document to its current, not yet final, size), at most PASSAGE_MAX_HEIGHT (then it scrolls)."""
        measured = self.passage.document().clone(self)
        measured.setTextWidth(POPUP_WIDTH - 24 - 2 * self.passage.frameWidth())
        height = int(measured.size().height()) + 2 * self.passage.frameWidth() + 2
        measured.deleteLater()
        self.passage.setFixedHeight(min(height, PASSAGE_MAX_HEIGHT))

    def _bounds(self) -> QRect:
        """The window the popup belongs to, within its screen's free area."""
        owner = self.parentWidget()
        screen = (owner.screen() if owner is not None else None) or QGuiApplication.primaryScreen()
        area = screen.availableGeometry()
        if owner is None:
            return area
        window = owner.window()
        frame = QRect(window.mapToGlobal(QPoint(0, 0)), window.size())
        return frame.intersected(area) if frame.intersects(area) else area

    def _open(self) -> None:
        citation = self.citation
        if citation is None:
            return
        if self._open_file(citation):
            self.close()
            return
        self._open_failed = True
        self._show_texts()
        self._fit_passage()
        self.adjustSize()
        self.move(placed((self.width(), self.height()), self._anchor, self._bounds()))

    def _copy_path(self) -> None:
        if self.citation is not None:
            QGuiApplication.clipboard().setText(self.citation.path)
            self.copy_button.setText(self.tr("Copied"))
