"""MarkdownBody: a message's text as a column of Markdown parts, so a long answer streams without re-parsing it all."""

from __future__ import annotations

from PySide6.QtCore import QTimer, QUrl, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QVBoxLayout, QWidget

from app.ui.chat.markdown_text import (
    COPY_CODE_SCHEME,
    chunk_ends,
    fenced_code_blocks,
    open_fence,
    soft_cut,
    split_points,
)
from app.ui.chat.markdown_view import MarkdownView
from app.ui.i18n import follow_language

RENDER_INTERVAL_MS = 250
"""While text streams in, Markdown is re-rendered at most this often (plain text is appended in between)."""
PART_CHARS = 2000
"""About how much text one part holds: a re-render parses at most the last part plus the growing tail."""
SOFT_PART_CHARS = 2 * PART_CHARS
"""A last part Markdown gives no place to cut (one long paragraph, list or code block, as a small model writes)
is cut anyway at this length (at a line end or space), so a render or an append never handles more while the
answer streams; when it ends, ``finish`` joins such parts again (as rendering the text in one go shows it)."""


class MarkdownBody(QWidget):
    """The text is cut where Markdown allows it (after a blank line outside code), into parts of about
    ``PART_CHARS``. The finished parts stay as they are; only the last part (the tail) is rendered again.
    While streaming, a tail with no such place is cut at ``SOFT_PART_CHARS`` anyway (a code block cut there
    is opened again in the next part); ``finish`` renders those pieces as one again.

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
        self._reopened: list[str] = []  # the fence line a part opens again (it goes on with a code block), or ""
        self._soft: list[bool] = []  # the part starts where no Markdown split point was (joined by finish)
        self._source = ""
        self._markdown = True
        self.renders = 0
        """Markdown renders so far (each parses at most the last part and the tail)."""
        self.last_render_chars = 0
        """How much text the latest render parsed."""
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
        for index, end in enumerate(ends):
            if fenced_code_blocks(self._part_source(index, end)):
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

    def set_markdown(self, text: str, *, streaming: bool = False) -> None:
        """Render ``text``; ``streaming``: more will be appended (an answer shown while it is written), so a last
        part with no split point is cut as streaming cuts it, until ``finish``."""
        self._render_timer.stop()
        self._markdown = True
        self._source = text
        self._reset_parts()
        for end in chunk_ends(text, 0, PART_CHARS):
            self._render_part(len(self.parts) - 1, end)
            self._add_part(end)
        while streaming and len(text) - self._starts[-1] >= SOFT_PART_CHARS:
            self._cut_softly()
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

    def finish(self) -> None:
        """The text is complete: render what is pending and join the parts cut where Markdown had no split
        point, each run rendered as one part (the text then shows as ``set_markdown`` shows it)."""
        self.flush()
        joined: set[int] = set()
        for index in range(len(self.parts) - 1, 0, -1):
            if self._soft[index]:
                self._remove_part(index)
                joined = {head for head in joined if head < index} | {index - 1}
        ends = [*self._starts[1:], len(self._source)]
        for index in sorted(joined):
            self._render_part(index, ends[index])

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
        self._reopened = [""]
        self._soft = [False]

    def _add_part(self, start: int, *, soft: bool = False) -> None:
        part = MarkdownView(self)
        part.setObjectName("messageText")
        self._name_part(part)
        part.link_activated.connect(self._link_activated)
        self._layout.addWidget(part)
        before = self._part_source(len(self.parts) - 1, start)
        reopened = open_fence(before) if soft else ""
        blocks = len(fenced_code_blocks(before)) - (1 if reopened else 0)  # a reopened block keeps its number
        self._code_numbers.append(self._code_numbers[-1] + blocks)
        self._reopened.append(reopened)
        self._soft.append(soft)
        self.parts.append(part)
        self._starts.append(start)

    def _remove_part(self, index: int) -> None:
        part = self.parts.pop(index)
        self._layout.removeWidget(part)
        part.hide()
        part.deleteLater()
        for kept in (self._starts, self._code_numbers, self._reopened, self._soft):
            del kept[index]

    def _part_source(self, index: int, end: int) -> str:
        """The Markdown of part ``index`` (up to ``end`` in the text): its text, after the fence it reopens."""
        reopened = self._reopened[index]
        text = self._source[self._starts[index]:end]
        return f"{reopened}\n{text}" if reopened else text

    def _render_part(self, index: int, end: int) -> None:
        self.renders += 1
        source = self._part_source(index, end)
        self.last_render_chars = len(source)
        self.parts[index].show_markdown(source, self._code_numbers[index], self.tr("Copy code"),
                                        continued=bool(self._reopened[index]))

    def _render_tail(self) -> None:
        """Re-render the last part; once it has grown past ``PART_CHARS`` at a place Markdown can be cut,
        it is finished there and a new last part takes the rest (past ``SOFT_PART_CHARS`` without such a
        place: cut at a line end or space, joined again by ``finish``)."""
        self._render_timer.stop()
        if not self._markdown:
            return
        last, start = len(self.parts) - 1, self._starts[-1]
        offset = len(self._reopened[last]) + 1 if self._reopened[last] else 0  # the reopened fence line
        tail_points = [point - offset for point in split_points(self._part_source(last, len(self._source)))
                       if point > offset]
        cut = start + tail_points[-1] if tail_points else None
        if cut is not None and cut - start >= PART_CHARS:
            self._render_part(last, cut)
            self._add_part(cut)
        elif len(self._source) - start >= SOFT_PART_CHARS:
            self._cut_softly()
        self._render_part(len(self.parts) - 1, len(self._source))

    def _cut_softly(self) -> None:
        """Finish the last part between ``PART_CHARS`` and ``SOFT_PART_CHARS`` (at a line end or space if there
        is one) and start a new last part there (joined again by ``finish``)."""
        start = self._starts[-1]
        cut = start + soft_cut(self._source[start:start + SOFT_PART_CHARS], PART_CHARS)
        self._render_part(len(self.parts) - 1, cut)
        self._add_part(cut, soft=True)

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
