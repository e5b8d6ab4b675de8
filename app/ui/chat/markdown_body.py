"""MarkdownBody: a message's text as a column of Markdown parts, so a long answer streams without re-parsing it all."""

from __future__ import annotations

from PySide6.QtCore import QTimer, QUrl, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.ui.chat.markdown_text import COPY_CODE_SCHEME, chunk_ends, fenced_code_blocks, split_points
from app.ui.chat.markdown_view import MarkdownView
from app.ui.i18n import follow_language

RENDER_INTERVAL_MS = 250
"""While text streams in, Markdown is re-rendered at most this often (plain text is appended in between)."""
PART_CHARS = 2000
"""About how much text one part holds: a re-render parses at most the last part plus the growing tail."""


class MarkdownBody(QWidget):
    """The text is cut only where Markdown allows it (after a blank line outside code), into parts of about
    ``PART_CHARS``. The finished parts stay as they are; only the last part (the tail) is rendered again.

    ``set_markdown`` renders at once; ``append`` shows streamed text at once as plain text and schedules
    one Markdown render within ``RENDER_INTERVAL_MS``. Links ``copy-code:N`` copy code block N of the
    whole text (``code_copied(N)``); other links are emitted as ``link_activated``.
    """

    link_activated = Signal(QUrl)
    code_copied = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.setSpacing(0)
        self.parts: list[MarkdownView] = []
        self._starts: list[int] = []  # where each part's text starts in the source
        self._code_numbers: list[int] = []  # code blocks before each part
        self._source = ""
        self._markdown = True
        self.renders = 0
        """Markdown renders so far (each parses at most the last part and the tail)."""
        self._render_timer = QTimer(self)
        self._render_timer.setSingleShot(True)
        self._render_timer.setInterval(RENDER_INTERVAL_MS)
        self._render_timer.timeout.connect(self._render_tail)
        self._reset_parts()
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        """Name the parts and render again those with code blocks (their "Copy code" links) in the current language."""
        for part in self.parts:
            self._name_part(part)
        if not self._markdown:
            return
        ends = [*self._starts[1:], len(self._source)]
        for index, (start, end) in enumerate(zip(self._starts, ends, strict=True)):
            if fenced_code_blocks(self._source[start:end]):
                self._render_part(index, end)

    def _name_part(self, part: MarkdownView) -> None:
        part.setAccessibleName(self.tr("Message text"))

    # ---- content ------------------------------------------------------------------------------
    @property
    def source_text(self) -> str:
        """The text as given (Markdown source, or plain text)."""
        return self._source

    def plain_text(self) -> str:
        """What is on show, as plain text."""
        return "\n".join(part.toPlainText() for part in self.parts)

    def set_markdown(self, text: str) -> None:
        self._render_timer.stop()
        self._markdown = True
        self._source = text
        self._reset_parts()
        for end in chunk_ends(text, 0, PART_CHARS):
            self._render_part(len(self.parts) - 1, end)
            self._add_part(end)
        self._render_part(len(self.parts) - 1, len(text))

    def set_plain(self, text: str) -> None:
        """Show ``text`` as typed (the user's own messages)."""
        self._render_timer.stop()
        self._markdown = False
        self._source = text
        self._reset_parts()
        self.parts[0].show_plain(text)

    def append(self, piece: str) -> None:
        """Add streamed text: shown at once as plain text, rendered as Markdown within a quarter second."""
        if not piece:
            return
        self._source += piece
        self.parts[-1].append_plain(piece)
        if self._markdown and not self._render_timer.isActive():
            self._render_timer.start()

    def flush(self) -> None:
        """Render a pending Markdown update now."""
        if self._render_timer.isActive():
            self._render_tail()

    def render_pending(self) -> bool:
        return self._render_timer.isActive()

    # ---- parts --------------------------------------------------------------------------------
    def _reset_parts(self) -> None:
        for part in self.parts[1:]:
            self._layout.removeWidget(part)
            part.hide()
            part.deleteLater()
        if not self.parts:
            first = MarkdownView(self)
            first.setObjectName("messageText")
            self._name_part(first)
            first.link_activated.connect(self._link_activated)
            self._layout.addWidget(first)
            self.parts = [first]
        self.parts = self.parts[:1]
        self._starts = [0]
        self._code_numbers = [0]

    def _add_part(self, start: int) -> None:
        part = MarkdownView(self)
        part.setObjectName("messageText")
        self._name_part(part)
        part.link_activated.connect(self._link_activated)
        self._layout.addWidget(part)
        previous = self._starts[-1]
        self._code_numbers.append(self._code_numbers[-1] + len(fenced_code_blocks(self._source[previous:start])))
        self.parts.append(part)
        self._starts.append(start)

    def _render_part(self, index: int, end: int) -> None:
        self.renders += 1
        start = self._starts[index]
        self.parts[index].show_markdown(self._source[start:end], self._code_numbers[index], self.tr("Copy code"))

    def _render_tail(self) -> None:
        """Re-render the last part; once it has grown past ``PART_CHARS`` at a place Markdown can be cut,
        it is finished there and a new last part takes the rest."""
        self._render_timer.stop()
        if not self._markdown:
            return
        start = self._starts[-1]
        tail_points = split_points(self._source[start:])  # a part always starts outside fenced code
        cut = start + tail_points[-1] if tail_points else None
        if cut is not None and cut - start >= PART_CHARS:
            self._render_part(len(self.parts) - 1, cut)
            self._add_part(cut)
        self._render_part(len(self.parts) - 1, len(self._source))

    # ---- links --------------------------------------------------------------------------------
    def _link_activated(self, url: QUrl) -> None:
        if url.scheme() == COPY_CODE_SCHEME:
            self.copy_code(int(url.path()) if url.path().isdigit() else -1)
        else:
            self.link_activated.emit(url)

    def code_blocks(self) -> list[str]:
        return [block.code for block in fenced_code_blocks(self._source)] if self._markdown else []

    def copy_code(self, number: int) -> bool:
        """Put code block ``number`` on the clipboard; False if there is no such block."""
        blocks = self.code_blocks()
        if not 0 <= number < len(blocks):
            return False
        QGuiApplication.clipboard().setText(blocks[number])
        self.code_copied.emit(number)
        return True
