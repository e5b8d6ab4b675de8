"""MessageWidget: one message: who wrote it, its text (Markdown for answers), sources, state and actions."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QTimer, QUrl, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.core.chat.records import Citation
from app.ui.chat.citation_chip import CitationChip
from app.ui.chat.flow_layout import FlowLayout
from app.ui.chat.markdown_body import MarkdownBody
from app.ui.chat.message_entries import MessageEntry
from app.ui.i18n import follow_language

COPIED_FEEDBACK_MS = 1500
ERROR_COLOR = "#e53935"
USER_TINT = "rgba(61, 123, 217, 0.10)"  # the user's own messages


class MessageWidget(QFrame):
    """Signals carry message ids: ``regenerate_requested``, ``continue_requested``, ``edit_submitted(id, text)``,
    ``branch_requested(sibling id)``; sources: ``citation_open_requested(Citation)``,
    ``citation_passage_requested(Citation, QRect)`` (the chip, global); other links: ``link_activated(QUrl)``.
    """

    regenerate_requested = Signal(str)
    continue_requested = Signal(str)
    edit_submitted = Signal(str, str)
    branch_requested = Signal(str)
    citation_open_requested = Signal(object)
    citation_passage_requested = Signal(object, QRect)
    link_activated = Signal(QUrl)

    def __init__(self, entry: MessageEntry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.entry = entry
        is_user = entry.message.role == "user"
        self.setObjectName("userMessage" if is_user else "assistantMessage")
        self.setFrameShape(QFrame.Shape.NoFrame)
        if is_user:  # a tint of the highlight colour: reads on light and dark palettes, follows theme changes
            self.setStyleSheet(f"QFrame#userMessage {{ background: {USER_TINT}; border-radius: 6px; }}")
        self.author = QLabel(self)
        font = self.author.font()
        font.setBold(True)
        self.author.setFont(font)
        self.previous_button = self._tool_button(self._show_previous)
        self.previous_button.setText("‹")
        self.alternatives = QLabel(self)
        self.next_button = self._tool_button(self._show_next)
        self.next_button.setText("›")
        self.notes = QLabel(self)
        self.notes.setObjectName("messageNotes")
        icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MessageBoxInformation)
        self.notes.setPixmap(icon.pixmap(14, 14))
        self.notes.setVisible(False)
        header = QHBoxLayout()
        header.addWidget(self.author)
        header.addWidget(self.notes)
        header.addStretch(1)
        for widget in (self.previous_button, self.alternatives, self.next_button):
            header.addWidget(widget)

        self.body = MarkdownBody(self)
        self.body.setObjectName("messageBody")
        self.body.link_activated.connect(self.link_activated)
        self.editor = QPlainTextEdit(self)
        self.editor.setObjectName("messageEditor")
        self.editor.setVisible(False)
        self.editor.setFixedHeight(96)
        self.save_edit_button = QPushButton(self)
        self.save_edit_button.clicked.connect(self._submit_edit)
        self.cancel_edit_button = QPushButton(self)
        self.cancel_edit_button.clicked.connect(self.cancel_edit)
        self.edit_buttons = QWidget(self)
        edit_row = QHBoxLayout(self.edit_buttons)
        edit_row.setContentsMargins(0, 0, 0, 0)
        edit_row.addStretch(1)
        edit_row.addWidget(self.cancel_edit_button)
        edit_row.addWidget(self.save_edit_button)
        self.edit_buttons.setVisible(False)

        self.sources = QWidget(self)
        self.sources.setObjectName("citationChips")
        self.sources_layout = FlowLayout(self.sources)
        self.chips: list[CitationChip] = []
        self.status = QLabel(self)
        self.status.setObjectName("messageStatus")
        self.status.setWordWrap(True)
        self.status.setEnabled(False)  # drawn in the palette's muted text colour

        self.copy_button = self._tool_button(self.copy_text)
        self.edit_button = self._tool_button(self.start_edit)
        self.regenerate_button = self._tool_button(lambda: self.regenerate_requested.emit(self.entry.message.id))
        self.continue_button = self._tool_button(lambda: self.continue_requested.emit(self.entry.message.id))
        actions = QHBoxLayout()
        for button in (self.copy_button, self.edit_button, self.regenerate_button, self.continue_button):
            actions.addWidget(button)
        actions.addStretch(1)
        self._copied_timer = QTimer(self)
        self._copied_timer.setSingleShot(True)
        self._copied_timer.setInterval(COPIED_FEEDBACK_MS)
        self._copied_timer.timeout.connect(self._show_copy_text)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 6)
        layout.setSpacing(4)
        layout.addLayout(header)
        layout.addWidget(self.body)
        layout.addWidget(self.editor)
        layout.addWidget(self.edit_buttons)
        layout.addWidget(self.sources)
        layout.addWidget(self.status)
        layout.addLayout(actions)
        self._shown_text: str | None = None
        self._shown_citations: tuple[Citation, ...] | None = None
        self.update_entry(entry)
        follow_language(self, self.retranslate_ui)

    def _tool_button(self, slot: object) -> QToolButton:
        button = QToolButton(self)
        button.setAutoRaise(True)
        button.clicked.connect(slot)
        return button

    def retranslate_ui(self) -> None:
        """Texts in the current language, from the entry on show (the text and an edit in progress stay)."""
        described = (
            (self.previous_button, self.tr("Previous alternative")),
            (self.next_button, self.tr("Next alternative")),
            (self.copy_button, self.tr("Copy the message")),
            (self.edit_button, self.tr("Edit and ask again (a new branch)")),
            (self.regenerate_button, self.tr("Write another answer (this one is kept as an alternative)")),
            (self.continue_button, self.tr("Go on writing this answer")),
        )
        for button, description in described:
            button.setToolTip(description)
            button.setAccessibleName(description)
        self._show_copy_text()
        self.edit_button.setText(self.tr("Edit"))
        self.regenerate_button.setText(self.tr("Regenerate"))
        self.continue_button.setText(self.tr("Continue"))
        self.save_edit_button.setText(self.tr("Send"))
        self.save_edit_button.setToolTip(self.tr("Ask the edited question; the original stays as an alternative"))
        self.cancel_edit_button.setText(self.tr("Cancel"))
        self.editor.setAccessibleName(self.tr("Edit the question"))
        self.alternatives.setAccessibleName(self.tr("Alternative"))
        self.notes.setAccessibleName(self.tr("Notes"))
        self._show_author()
        self._show_status(self.entry)

    def _show_copy_text(self) -> None:
        self.copy_button.setText(self.tr("Copied") if self._copied_timer.isActive() else self.tr("Copy"))

    # ---- content ----------------------------------------------------------------------------
    def update_entry(self, entry: MessageEntry, streamed_text: str | None = None) -> None:
        """Show ``entry``; a streaming answer shows ``streamed_text`` (what the running job wrote so far)."""
        self.entry = entry
        message = entry.message
        is_user = message.role == "user"
        text = streamed_text if entry.streaming and streamed_text is not None else message.text
        if text != self._shown_text:
            if is_user:
                self.body.set_plain(text)
            else:
                self.body.set_markdown(text, streaming=entry.streaming)
            self._shown_text = text
        elif not entry.streaming:
            self.body.finish()  # the answer has ended: its last words as Markdown now, in one piece
        self._show_author()
        self._show_alternatives(entry)
        self._show_citations(message.citations if not entry.streaming else ())
        self._show_status(entry)
        self.edit_button.setVisible(is_user)
        self.edit_button.setEnabled(not entry.busy)
        self.regenerate_button.setVisible(not is_user)
        self.regenerate_button.setEnabled(not entry.busy)
        self.continue_button.setVisible(not is_user and entry.can_continue)
        self.continue_button.setEnabled(not entry.busy)
        self.copy_button.setEnabled(bool(text))
        if not self.editing:
            self.body.setVisible(bool(text) or entry.streaming or is_user)

    def _show_author(self) -> None:
        message = self.entry.message
        is_user = message.role == "user"
        author = self.tr("You") if is_user else self.tr("Assistant")
        if message.model and not is_user:
            author += f" · {message.model}"
        self.author.setText(author)

    def append(self, piece: str) -> None:
        """More text of the answer being written."""
        self.body.setVisible(True)
        self.body.append(piece)
        self._shown_text = self.body.source_text
        self.copy_button.setEnabled(True)

    @property
    def text(self) -> str:
        return self.body.source_text

    def _show_alternatives(self, entry: MessageEntry) -> None:
        several = entry.alternatives > 1
        for widget in (self.previous_button, self.alternatives, self.next_button):
            widget.setVisible(several)
        self.alternatives.setText(f"{entry.position} / {entry.alternatives}")
        self.previous_button.setEnabled(entry.previous_id is not None and not entry.busy)
        self.next_button.setEnabled(entry.next_id is not None and not entry.busy)

    def _show_citations(self, citations: tuple[Citation, ...]) -> None:
        if citations == self._shown_citations:
            return
        self._shown_citations = citations
        for chip in self.chips:
            self.sources_layout.removeWidget(chip)
            chip.deleteLater()
        self.chips = []
        for citation in citations:
            chip = CitationChip(citation, self.sources, citations)
            chip.open_requested.connect(self.citation_open_requested)
            chip.passage_requested.connect(self._passage_requested)
            self.sources_layout.addWidget(chip)
            self.chips.append(chip)
        self.sources.setVisible(bool(citations))

    def _passage_requested(self, citation: Citation) -> None:
        chip = next((chip for chip in self.chips if chip.citation == citation), None)
        shown = chip if chip is not None else self
        self.citation_passage_requested.emit(citation, QRect(shown.mapToGlobal(QPoint(0, 0)), shown.size()))

    def _show_status(self, entry: MessageEntry) -> None:
        message = entry.message
        lines: list[str] = []
        failed = message.role == "assistant" and message.finish_reason == "error" and not entry.streaming
        self.status.setEnabled(failed)  # failures in the error colour, other states muted
        self.status.setStyleSheet(f"color: {ERROR_COLOR};" if failed else "")
        if entry.streaming:
            lines.append(self.tr("Writing…"))
        elif message.role == "assistant":
            if message.finish_reason == "cancelled":
                lines.append(self.tr("Stopped. The answer so far is kept; Continue goes on from here."))
            elif message.finish_reason == "length":
                lines.append(self.tr("Cut off at the length limit; Continue goes on from here."))
            elif message.finish_reason == "error":
                error = str(message.settings.get("error") or self.tr("unknown error"))
                lines.append(self.tr("This answer failed: {0}").format(error))
            elif not message.finished:
                lines.append(self.tr("Interrupted before it finished; Continue goes on from here."))
        notes = message.settings.get("notes") if message.role == "assistant" and not entry.streaming else None
        notes_text = "\n".join(str(note) for note in notes) if isinstance(notes, list) else ""
        self.notes.setToolTip(notes_text)
        self.notes.setAccessibleDescription(notes_text)
        self.notes.setVisible(bool(notes_text))
        self.status.setText("\n".join(lines))
        self.status.setVisible(bool(lines))

    # ---- actions ----------------------------------------------------------------------------
    def copy_text(self) -> None:
        QGuiApplication.clipboard().setText(self.text)
        self._copied_timer.start()
        self._show_copy_text()

    def start_edit(self) -> None:
        if self.entry.message.role != "user" or self.entry.busy:
            return
        self.editor.setPlainText(self.entry.message.text)
        self._set_editing(True)
        self.editor.setFocus()

    def cancel_edit(self) -> None:
        self._set_editing(False)

    @property
    def editing(self) -> bool:
        return self.editor.isVisible()

    def _set_editing(self, editing: bool) -> None:
        self.body.setVisible(not editing)
        self.editor.setVisible(editing)
        self.edit_buttons.setVisible(editing)
        self.edit_button.setVisible(not editing and self.entry.message.role == "user")

    def _submit_edit(self) -> None:
        text = self.editor.toPlainText()
        if not text.strip():
            return
        self._set_editing(False)
        self.edit_submitted.emit(self.entry.message.id, text)

    def _show_previous(self) -> None:
        if self.entry.previous_id is not None:
            self.branch_requested.emit(self.entry.previous_id)

    def _show_next(self) -> None:
        if self.entry.next_id is not None:
            self.branch_requested.emit(self.entry.next_id)
