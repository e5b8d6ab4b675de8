"""ConversationSidebar: the conversations, pinned first; new, rename, pin, delete, and full-text search."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QPoint, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QInputDialog,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMenu,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.chat.records import Conversation, SearchMatch
from app.core.chat.store import ConversationStore, new_id
from app.ui.conversations.conversation_item import ID_ROLE, conversation_item, show_conversation_texts
from app.ui.conversations.search_results import SearchResultDelegate, best_matches
from app.ui.conversations.selection_memory import SelectionMemory
from app.ui.conversations.store_calls import StoreCalls
from app.ui.i18n import follow_language
from app.ui.icons import themed_icon

SEARCH_DELAY_MS = 200
SEARCH_LANE = "conversation-search"
LIST_LANE = "conversation-list"
SIDEBAR_MIN_WIDTH = 160
"""Titles are elided; narrower than this the search field and New chat button would be cut."""
SIDEBAR_WIDTH = 190
"""The width it asks for (a 900 px window leaves the chat and the docks the rest)."""


class ConversationSidebar(QWidget):
    """``conversation_selected(id)`` ("" when none is left), ``delete_requested(id)`` (after confirmation) and
    ``conversation_changed(id)`` (renamed or pinned).

    ``confirm_delete(title) -> bool`` and ``ask_title(current) -> str | None`` are the dialogs; tests
    replace them. Conversations being answered (``set_running``) are marked. The store is read and written
    through ``calls`` (:class:`StoreCalls`, shared with the chat view): the list is redrawn when a read arrives.
    """

    conversation_selected = Signal(str)
    delete_requested = Signal(str)
    conversation_changed = Signal(str)

    def __init__(self, calls: StoreCalls, memory: SelectionMemory, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("conversationSidebar")
        self.setMinimumWidth(SIDEBAR_MIN_WIDTH)
        self.calls = calls
        self.memory = memory
        self.confirm_delete: Callable[[str], bool] = self._confirm_delete_dialog
        self.ask_title: Callable[[str], str | None] = self._ask_title_dialog
        self._running: frozenset[str] = frozenset()
        self._hidden: set[str] = set()
        self._matches: dict[str, SearchMatch] | None = None
        self._selecting: str | None = None
        """A conversation to select once the list being read arrives."""
        self._or_first = False
        self._shown: dict[str, Conversation] = {}
        """The conversations in the list as last read (their rows are rewritten from these after a language switch)."""

        self.new_button = QPushButton(self)
        self.new_button.setObjectName("newChatButton")
        self.new_button.setIcon(themed_icon("new-chat"))
        self.new_button.clicked.connect(self.new_conversation)
        self.search = QLineEdit(self)
        self.search.setObjectName("conversationSearch")
        self.search.setClearButtonEnabled(True)
        self.search.addAction(themed_icon("search"), QLineEdit.ActionPosition.LeadingPosition)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.run_search)
        self.search.textChanged.connect(lambda _text: self._search_timer.start())
        self.list = QListWidget(self)
        self.list.setObjectName("conversationList")
        self.list.setWordWrap(False)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)  # long titles end in "…"; the tooltip has them whole
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results = SearchResultDelegate(self.list)
        self.list.setItemDelegate(self.results)
        self.list.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.list.customContextMenuRequested.connect(self._context_menu)
        self.list.currentItemChanged.connect(self._current_changed)
        self.rename_action = self._action(self.rename_current, QKeySequence("F2"))
        self.pin_action = self._action(self.toggle_pin_current, None)
        self.delete_action = self._action(self.delete_current, QKeySequence.StandardKey.Delete)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 4, 8)
        layout.setSpacing(6)
        layout.addWidget(self.new_button)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        follow_language(self, self.retranslate_ui)

    def sizeHint(self) -> QSize:
        return QSize(SIDEBAR_WIDTH, super().sizeHint().height())

    def _action(self, slot: Callable[[], object],
                shortcut: QKeySequence | QKeySequence.StandardKey | None) -> QAction:
        action = QAction(self.list)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
            self.list.addAction(action)
        action.triggered.connect(slot)
        return action

    def retranslate_ui(self) -> None:
        """Texts in the current language; the list keeps its rows, selection and scroll position."""
        self.new_button.setText(self.tr("New chat"))
        self.new_button.setShortcut(QKeySequence.StandardKey.New)  # after the text: setText drops the shortcut
        self.new_button.setToolTip(self.tr("Start a new conversation ({0})").format(
            self.new_button.shortcut().toString(QKeySequence.SequenceFormat.NativeText)))
        self.search.setPlaceholderText(self.tr("Search conversations"))
        self.search.setAccessibleName(self.tr("Search conversations"))
        self.list.setAccessibleName(self.tr("Conversations"))
        self.rename_action.setText(self.tr("Rename…"))
        self.pin_action.setText(self.tr("Pin"))
        self.delete_action.setText(self.tr("Delete…"))
        for row in range(self.list.count()):
            item = self.list.item(row)
            conversation = self._shown.get(str(item.data(ID_ROLE)))
            if conversation is None:
                continue
            match = self._matches.get(conversation.id) if self._matches is not None else None
            show_conversation_texts(item, conversation, conversation.id in self._running, match, self.tr("New chat"))

    # ---- the list ---------------------------------------------------------------------------
    @property
    def selected_id(self) -> str | None:
        item = self.list.currentItem()
        value = item.data(ID_ROLE) if item is not None else None
        return value if isinstance(value, str) else None

    def shown_ids(self) -> list[str]:
        return [str(self.list.item(row).data(ID_ROLE)) for row in range(self.list.count())]

    def restore_selection(self) -> None:
        """Fill the list and select the conversation remembered from last time (else the first one)."""
        self.refresh(select=self.memory.selected(), or_first=True)

    def refresh(self, select: str | None = None, *, or_first: bool = False) -> None:
        """Re-read the conversations (keeping the selection, or selecting ``select``; ``or_first``: the first
        one when that is not there); the list is redrawn when the read arrives."""
        if select:
            self._selecting = select  # kept when a newer read supersedes this one
        or_first = or_first or self._or_first
        self._or_first = or_first
        self.calls.latest(LIST_LANE, lambda store: store.conversations(),
                          lambda conversations: self._listed(conversations, or_first))

    def _listed(self, conversations: list[Conversation], or_first: bool) -> None:
        wanted = self._selecting or self.selected_id
        self._selecting, self._or_first = None, False
        self._hidden &= {item.id for item in conversations}
        shown = [item for item in conversations if item.id not in self._hidden]
        if self._matches is not None:
            shown = self._filter(shown, self._matches)
        self._fill(shown, wanted)
        if or_first and self.selected_id is None and self.list.count():
            self.list.setCurrentRow(0)

    def _fill(self, conversations: Sequence[Conversation], wanted: str | None) -> None:
        previous = self.selected_id
        self._shown = {conversation.id: conversation for conversation in conversations}
        self.list.blockSignals(True)
        try:
            self.list.clear()
            for conversation in conversations:
                match = self._matches.get(conversation.id) if self._matches is not None else None
                item = conversation_item(conversation, conversation.id in self._running, match,
                                         self.tr("New chat"))
                self.list.addItem(item)
                if conversation.id == wanted:
                    self.list.setCurrentItem(item)
        finally:
            self.list.blockSignals(False)
        if self.selected_id != previous and self.selected_id is not None:
            self._selected(self.selected_id)

    def set_running(self, conversation_ids: frozenset[str]) -> None:
        """Mark the conversations whose answers are being written."""
        if conversation_ids != self._running:
            self._running = conversation_ids
            self.refresh()

    def _current_changed(self, current: QListWidgetItem | None, _previous: QListWidgetItem | None) -> None:
        if current is not None:
            self._selected(str(current.data(ID_ROLE)))

    def _selected(self, conversation_id: str) -> None:
        self.memory.remember(conversation_id)
        self.conversation_selected.emit(conversation_id)

    def select(self, conversation_id: str) -> None:
        """Select a conversation (clearing a search that hides it)."""
        if conversation_id not in self.shown_ids() and self.search.text():
            self.search.clear()
            self._matches = None
            self.results.query = ""
        self.refresh(select=conversation_id)

    # ---- actions ----------------------------------------------------------------------------
    def new_conversation(self) -> None:
        """Start a new conversation (the one on show is reused if it has no messages yet) and select it."""
        current, fresh = self.selected_id, new_id()

        def create(store: ConversationStore) -> str:
            if current is not None and store.has_conversation(current) and not store.messages(current):
                return current
            return store.create_conversation(conversation_id=fresh).id

        self.calls.call(create, self.select)

    def _current_conversation(self) -> Conversation | None:
        conversation_id = self.selected_id
        return self._shown.get(conversation_id) if conversation_id is not None else None

    def _changed(self, conversation_id: str) -> None:
        self.refresh()
        self.conversation_changed.emit(conversation_id)

    def rename_current(self) -> None:
        conversation = self._current_conversation()
        if conversation is None:
            return
        title = self.ask_title(conversation.title)
        if title is not None and title.strip():
            self.calls.call(lambda store: store.rename(conversation.id, title),
                            lambda _renamed: self._changed(conversation.id))

    def toggle_pin_current(self) -> None:
        conversation = self._current_conversation()
        if conversation is not None:
            self.calls.call(lambda store: store.set_pinned(conversation.id, not conversation.pinned),
                            lambda _pinned: self._changed(conversation.id))

    def delete_current(self) -> None:
        conversation = self._current_conversation()
        if conversation is None:
            return
        conversation_id = conversation.id
        if not self.confirm_delete(conversation.title or self.tr("New chat")):
            return
        row = self.list.currentRow()
        self._hidden.add(conversation_id)
        self.list.blockSignals(True)
        self.list.takeItem(row)
        self.list.blockSignals(False)
        self._shown.pop(conversation_id, None)
        self.delete_requested.emit(conversation_id)
        if self.list.count():
            self.list.blockSignals(True)
            self.list.setCurrentRow(min(row, self.list.count() - 1))
            self.list.blockSignals(False)
            self._selected(str(self.list.currentItem().data(ID_ROLE)))
        else:
            self.memory.remember(None)
            self.conversation_selected.emit("")

    def _context_menu(self, position: QPoint) -> None:
        item = self.list.itemAt(position)
        if item is None:
            return
        self.list.setCurrentItem(item)
        conversation = self._shown.get(str(item.data(ID_ROLE)))
        pinned = conversation is not None and conversation.pinned
        self.pin_action.setText(self.tr("Unpin") if pinned else self.tr("Pin to the top"))
        menu = QMenu(self)
        for action in (self.rename_action, self.pin_action, self.delete_action):
            menu.addAction(action)
        menu.exec(self.list.viewport().mapToGlobal(position))

    # ---- search -----------------------------------------------------------------------------
    def run_search(self) -> None:
        """Search now (typing starts it after a short pause): titles, and message text through the store's index."""
        self._search_timer.stop()
        query = self.search.text().strip()
        if not query:
            self.calls.drop(SEARCH_LANE)
            self._matches = None
            self.results.query = ""
            self.refresh()
            return
        self.calls.latest(SEARCH_LANE, lambda store: store.search(query), self._show_matches)

    def _show_matches(self, matches: list[SearchMatch]) -> None:
        self._matches = best_matches(matches)
        self.results.query = self.search.text().strip()
        self.refresh()

    def _filter(self, conversations: Sequence[Conversation], matches: dict[str, SearchMatch]) -> list[Conversation]:
        query = self.search.text().strip().casefold()
        return [item for item in conversations if item.id in matches or (query and query in item.title.casefold())]

    def wait(self, timeout_ms: int = 3000) -> bool:
        return self.calls.wait(timeout_ms)

    # ---- dialogs ----------------------------------------------------------------------------
    def _confirm_delete_dialog(self, title: str) -> bool:
        answer = QMessageBox.question(
            self, self.tr("Delete conversation"),
            self.tr("Delete “{0}” and all its messages? This cannot be undone.").format(title),
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Yes

    def _ask_title_dialog(self, current: str) -> str | None:
        title, accepted = QInputDialog.getText(self, self.tr("Rename conversation"), self.tr("Title:"),
                                               QLineEdit.EchoMode.Normal, current)
        return title if accepted else None

