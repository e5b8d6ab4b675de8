"""MarkdownView: one part of a message rendered as Markdown (or plain text), exactly as tall as its content."""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QSize, Qt, QUrl, Signal
from PySide6.QtGui import (
    QColor,
    QGuiApplication,
    QPalette,
    QTextBlockFormat,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QWheelEvent,
)
from PySide6.QtWidgets import QFrame, QSizePolicy, QTextBrowser, QWidget

from app.ui.chat.code_highlighter import CodeHighlighter
from app.ui.chat.markdown_text import with_copy_links
from app.ui.theme import is_dark

__all__ = ["CODE_BACKGROUND_DARK", "CODE_BACKGROUND_LIGHT", "MarkdownView", "is_dark"]

CODE_BACKGROUND_LIGHT = "#f1f3f5"
CODE_BACKGROUND_DARK = "#2b2d31"


def baked_colors(palette: QPalette) -> tuple[bool, int]:
    """What a render bakes into the document: dark or light code colours, and the link colour (Qt's Markdown
    importer takes it from the application palette). A palette change that alters neither needs no re-render."""
    return is_dark(palette), QGuiApplication.palette().color(QPalette.ColorRole.Link).rgba()


class MarkdownView(QTextBrowser):
    """Read-only rich text that sizes itself to its document (the message list scrolls, not the message).

    Fenced code gets a shaded background, highlighting and a "Copy code" link; every link is emitted as
    ``link_activated`` (the message decides what ``copy-code:N`` and web links do).
    """

    link_activated = Signal(QUrl)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.highlighter = CodeHighlighter(self.document(), dark=is_dark(self.palette()))
        self._shown_markdown: tuple[str, int, str, bool] | None = None
        self._baked = baked_colors(self.palette())
        self.setOpenLinks(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.setStyleSheet("QTextBrowser { background: transparent; }")
        self.document().setDocumentMargin(2)
        self.anchorClicked.connect(self.link_activated)
        self.document().documentLayout().documentSizeChanged.connect(self._fit_height)
        self._fit_height()

    def show_markdown(self, source: str, first_code_number: int = 0, copy_label: str = "Copy code",
                      continued: bool = False) -> None:
        """Render ``source``; its code blocks' copy links count from ``first_code_number`` (``continued``: its
        first block goes on from the part above and has no link of its own)."""
        self._shown_markdown = (source, first_code_number, copy_label, continued)
        self._baked = baked_colors(self.palette())
        self.highlighter.set_dark(self._baked[0], rehighlight=False)  # setMarkdown colours the new text
        self.document().setMarkdown(with_copy_links(source, copy_label, first_code_number, continued=continued))
        self._shade_code_blocks(self.document())

    def show_plain(self, text: str) -> None:
        self._shown_markdown = None
        self.setPlainText(text)

    def append_plain(self, piece: str) -> None:
        """Add text at the end as it is (cheap: only the last lines are laid out again)."""
        cursor = QTextCursor(self.document())
        cursor.movePosition(QTextCursor.MoveOperation.End)
        cursor.insertText(piece)

    def _shade_code_blocks(self, document: QTextDocument) -> None:
        shade = QTextBlockFormat()
        shade.setBackground(QColor(CODE_BACKGROUND_DARK if is_dark(self.palette()) else CODE_BACKGROUND_LIGHT))
        cursor = QTextCursor(document)
        cursor.beginEditBlock()  # one layout pass for all blocks, not one per block
        block = document.begin()
        while block.isValid():
            if block.blockFormat().hasProperty(QTextFormat.Property.BlockCodeFence):
                cursor.setPosition(block.position())
                cursor.mergeBlockFormat(shade)
            block = block.next()
        cursor.endEditBlock()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.follow_palette()

    def follow_palette(self) -> None:
        """After a theme change: render again with the new link, code-shade and highlight colours
        (nothing to do when the colours baked into the document are still right)."""
        if baked_colors(self.palette()) == self._baked:
            return
        if self._shown_markdown is not None:
            self.show_markdown(*self._shown_markdown)
        else:
            self._baked = baked_colors(self.palette())
            self.highlighter.set_dark(self._baked[0])

    def _fit_height(self) -> None:
        margins = self.contentsMargins()
        height = max(8, math.ceil(self.document().size().height()) + margins.top() + margins.bottom())
        if height != self.minimumHeight() or height != self.maximumHeight():
            self.setFixedHeight(height)

    def sizeHint(self) -> QSize:
        return QSize(super().sizeHint().width(), self.height())

    def wheelEvent(self, event: QWheelEvent) -> None:
        event.ignore()  # the message list scrolls; this view is always as tall as its text
