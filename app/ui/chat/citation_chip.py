"""CitationChip: a small button naming one source of an answer; click opens the file at its page."""

from __future__ import annotations

import html
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QAction, QFontMetrics, QTextDocument
from PySide6.QtWidgets import QMenu, QSizePolicy, QToolButton, QWidget

from app.core.chat.records import Citation, source_label
from app.ui.i18n import follow_language, render

CHIP_MAX_WIDTH = 320
NAME_SHARE = 0.6
"""A long file name may take this share of a chip before it is shortened (in its middle, keeping the extension)."""
ZERO_WIDTH_SPACE = "\u200b"
TOOLTIP_EXCERPT_CHARS = 280
OPENING_CHARS = 28
HEADING_SEPARATOR = " > "
PDF_SUFFIX = ".pdf"


def source_url(citation: Citation) -> QUrl:
    """A file URL for the citation's source; PDFs get ``#page=N`` (what PDF viewers and browsers honour)."""
    url = QUrl.fromLocalFile(citation.path)
    if citation.page is not None and Path(citation.path).suffix.lower() == PDF_SUFFIX:
        url.setFragment(f"page={citation.page}")
    return url


def chip_text(citation: Citation) -> str:
    """``[2] report.pdf, p. 3, Cooling > Airflow`` in the current language (the core's label is a Text)."""
    return f"[{citation.number}] {render(citation.label)}"


def plain_passage(excerpt: str) -> str:
    """The passage as a reader sees it: Markdown marks gone, whitespace collapsed."""
    document = QTextDocument()
    document.setMarkdown(excerpt, QTextDocument.MarkdownFeature.MarkdownNoHTML)
    return " ".join(document.toPlainText().split())


def _opening(citation: Citation) -> str:
    """The first words of the passage (after its own heading, if it starts with it), for telling passages apart."""
    text = plain_passage(citation.excerpt)
    section = citation.heading.split(HEADING_SEPARATOR)[-1].strip()
    if section and text.startswith(section):
        text = text[len(section):].lstrip()
    if len(text) <= OPENING_CHARS:
        return text
    cut = text[:OPENING_CHARS]
    if " " in cut[OPENING_CHARS // 2 :]:
        cut = cut[: cut.rindex(" ")]
    return cut.rstrip(" ,.;:") + "…"


def chip_parts(citations: Sequence[Citation]) -> list[tuple[str, str]]:
    """Each chip's (``[n] file name``, rest) in the current language: the rest is the page and the innermost
    heading; when two chips would read the same (two passages of one section), it also quotes the passage's
    first words."""
    labels: list[tuple[str, str]] = []
    for citation in citations:
        name = os.path.basename(citation.path) or citation.path
        section = citation.heading.split(HEADING_SEPARATOR)[-1].strip()
        label = render(source_label(citation.path, citation.page, section))
        labels.append((name, label[len(name):]) if label.startswith(name) else (label, ""))
    same = Counter(labels)
    parts = []
    for citation, (name, rest) in zip(citations, labels, strict=True):
        opening = _opening(citation) if same[(name, rest)] > 1 else ""
        parts.append((f"[{citation.number}] {name}", f"{rest} “{opening}”" if opening else rest))
    return parts


def fitted(metrics: QFontMetrics, name: str, rest: str, width: int) -> str:
    """``name + rest`` within ``width`` pixels: a long name is shortened in its middle (its start and
    extension stay), then the end is cut, so the number, the file and the start of its section stay readable."""
    full = name + rest
    if metrics.horizontalAdvance(full) <= width:
        return full
    room = int(width * NAME_SHARE)
    if metrics.horizontalAdvance(name) > room:
        name = metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, room)
    return metrics.elidedText(name + rest, Qt.TextElideMode.ElideRight, width)


class CitationChip(QToolButton):
    """``open_requested(Citation)`` on click; its menu also offers ``passage_requested(Citation)``.

    Sources the answer actually cites are drawn highlighted (``cited`` property, styled by the view).
    ``siblings`` are all the answer's citations (this one among them): chips that would read the same differ.
    """

    open_requested = Signal(object)
    passage_requested = Signal(object)

    def __init__(self, citation: Citation, parent: QWidget | None = None,
                 siblings: Sequence[Citation] = ()) -> None:
        super().__init__(parent)
        self.citation = citation
        self._siblings = tuple(siblings) if citation in siblings else (citation,)
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
        name, rest = chip_parts(self._siblings)[self._siblings.index(citation)]
        self.setText(fitted(self.fontMetrics(), name, rest, CHIP_MAX_WIDTH))
        self.setToolTip(self._tooltip())
        self.setAccessibleName(self.tr("Source {0}").format(chip_text(citation)))
        self.open_action.setText(self.tr("Open the file"))
        self.passage_action.setText(self.tr("Show the passage"))

    def _tooltip(self) -> str:
        """Rich text, so Qt wraps it: the full source name, where the file is, and the start of the passage."""
        citation = self.citation
        path = html.escape(citation.path).replace(os.sep, os.sep + ZERO_WIDTH_SPACE)  # long paths wrap at separators
        if citation.page is not None:
            where = self.tr("page {0}").format(citation.page)
            path += html.escape(f" ({where})")
        lines = [f"<b>{html.escape(chip_text(citation))}</b>", path]
        excerpt = plain_passage(citation.excerpt)
        if excerpt:
            shown = excerpt if len(excerpt) <= TOOLTIP_EXCERPT_CHARS else excerpt[:TOOLTIP_EXCERPT_CHARS] + "…"
            lines.append(f"<br>{html.escape(shown)}")
        if not citation.cited:
            lines.append("<br><i>" + html.escape(self.tr("Given to the model as a source; the answer does not cite "
                                                         "it.")) + "</i>")
        return "<p>" + "<br>".join(lines) + "</p>"
