"""How search results appear in the sidebar: one row per conversation, its title and one matching passage
(never the title again), the passage cut around the match so the match shows, every match highlighted."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRect, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QApplication, QStyle, QStyledItemDelegate, QStyleOptionViewItem

from app.core.chat.records import SearchMatch
from app.core.util.segmenter import pieces

SNIPPET_ROLE = Qt.ItemDataRole.UserRole + 1
"""The matching passage shown under a result's title ("" when the title itself matched)."""
HIGHLIGHT_LIGHT = QColor("#ffe08a")
HIGHLIGHT_DARK = QColor("#7a5c00")
PADDING = 4
ELLIPSIS = "…"
LEAD_CHARS = 10
"""Characters kept before the first match when the passage must be cut to fit."""

Span = tuple[int, int]


def _folded(text: str) -> str:
    return " ".join(text.split()).strip(ELLIPSIS + " ").casefold()


def repeats_title(match: SearchMatch) -> bool:
    """Whether the passage only says the title again (a conversation is titled after its first message)."""
    title, passage = _folded(match.conversation_title), _folded(match.snippet)
    return bool(title) and (passage in title or title.startswith(passage) or passage.startswith(title))


def best_matches(matches: Iterable[SearchMatch]) -> dict[str, SearchMatch]:
    """One match per conversation: the best one whose passage is not just its title (matches come best first)."""
    chosen: dict[str, SearchMatch] = {}
    for match in matches:
        known = chosen.get(match.conversation_id)
        if known is None or (repeats_title(known) and not repeats_title(match)):
            chosen[match.conversation_id] = match
    return chosen


def shown_snippet(match: SearchMatch | None) -> str:
    """The passage shown under the title ("" when none, or when it would repeat the title)."""
    if match is None or repeats_title(match):
        return ""
    return " ".join(match.snippet.split())


def match_spans(text: str, query: str) -> list[Span]:
    """(start, end) of every place in ``text`` where a word or CJK run of ``query`` occurs (any case)."""
    folded = text.lower()
    spans: list[Span] = []
    for piece in pieces(query):
        start = folded.find(piece.text)
        while start >= 0 and piece.text:
            spans.append((start, start + len(piece.text)))
            start = folded.find(piece.text, start + len(piece.text))
    spans.sort()
    merged: list[Span] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def fitted_around_match(text: str, query: str, metrics: QFontMetrics, width: int) -> str:
    """``text`` within ``width`` pixels, cut so that its first match is visible (a little context before it)."""
    if metrics.horizontalAdvance(text) <= width:
        return text
    spans = match_spans(text, query)
    start = max(0, spans[0][0] - LEAD_CHARS) if spans else 0
    if start > 0:
        text = ELLIPSIS + text[start:].lstrip(ELLIPSIS)
    return metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)


class SearchResultDelegate(QStyledItemDelegate):
    """Draws rows of the conversation list; while ``query`` is set, a row with a passage gets a second line,
    and matches of the query in the title and the passage are highlighted."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.query = ""

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        """As tall as the row's lines; no width of its own, so a row is as wide as the list and its title is
        elided there (a long title's width made the list scroll sideways and clipped every title)."""
        size = super().sizeHint(option, index)
        if self.query and index.data(SNIPPET_ROLE):
            return QSize(1, size.height() + option.fontMetrics.height() + PADDING)
        return QSize(1, size.height())

    def lines(self, index: QModelIndex | QPersistentModelIndex, metrics: QFontMetrics,
              width: int) -> list[tuple[str, list[Span]]]:
        """The row's text lines as drawn within ``width`` pixels, each with its highlighted spans."""
        title = metrics.elidedText(str(index.data(Qt.ItemDataRole.DisplayRole) or ""), Qt.TextElideMode.ElideRight,
                                   width)
        shown = [(title, match_spans(title, self.query) if self.query else [])]
        snippet = str(index.data(SNIPPET_ROLE) or "") if self.query else ""
        if snippet:
            line = fitted_around_match(snippet, self.query, metrics, width)
            shown.append((line, match_spans(line, self.query)))
        return shown

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        if not self.query:
            super().paint(painter, option, index)
            return
        item = QStyleOptionViewItem(option)
        self.initStyleOption(item, index)
        item.text = ""
        style = item.widget.style() if item.widget is not None else QApplication.style()
        style.drawControl(QStyle.ControlElement.CE_ItemViewItem, item, painter, item.widget)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        text_color = option.palette.color(role)
        dark = option.palette.color(QPalette.ColorRole.Base).lightness() < 128
        rect = option.rect.adjusted(PADDING, PADDING // 2, -PADDING, 0)
        painter.save()
        for number, (line, spans) in enumerate(self.lines(index, option.fontMetrics, rect.width())):
            font = QFont(option.font)
            if number > 0:
                text_color.setAlpha(190)
            line_rect = QRect(rect.left(), rect.top() + number * (option.fontMetrics.height() + PADDING),
                              rect.width(), option.fontMetrics.height())
            self._draw_line(painter, line_rect, line, spans, font, text_color,
                            HIGHLIGHT_DARK if dark and not selected else HIGHLIGHT_LIGHT, selected)
        painter.restore()

    @staticmethod
    def _draw_line(painter: QPainter, rect: QRect, line: str, spans: Sequence[Span], font: QFont,
                   color: QColor, highlight: QColor, selected: bool) -> None:
        metrics = QFontMetrics(font)
        dark_mark = highlight == HIGHLIGHT_DARK
        x = rect.left()
        position = 0
        for start, end in [*spans, (len(line), len(line))]:
            for piece, marked in ((line[position:start], False), (line[start:end], True)):
                if not piece:
                    continue
                width = metrics.horizontalAdvance(piece)
                if marked:
                    painter.fillRect(QRect(x, rect.top(), width, rect.height()), highlight)
                painter.setPen(QColor("black") if marked and not selected and not dark_mark else color)
                painter.setFont(font)
                painter.drawText(QRect(x, rect.top(), width + 2, rect.height()),
                                 int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), piece)
                x += width
            position = end
