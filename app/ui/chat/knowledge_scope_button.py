"""KnowledgeScopeButton: beside the input, whether the conversation on show uses the knowledge base and which part."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, Qt, QTimer, Signal
from PySide6.QtWidgets import QToolButton, QWidget

from app.core.chat.records import Conversation, KnowledgeScope
from app.ui.bridge import Bridge
from app.ui.chat.knowledge_scope_dialog import KnowledgeScopeDialog
from app.ui.conversations.store_calls import StoreCalls

if TYPE_CHECKING:
    from app.core.kb.catalog import DocumentRecord
    from app.core.kb.knowledge_base import KnowledgeBase

log = logging.getLogger(__name__)

DOCUMENTS_LANE = "scope-documents"
SHOW_LANE = "scope-of-conversation"
AVAILABILITY_POLL_MS = 1000
KnowledgeBaseSource = Callable[[], "KnowledgeBase | None"]
"""The knowledge base once it is open (None while there is none); called on the GUI thread, must not block."""


class KnowledgeScopeButton(QToolButton):
    """Shows "Knowledge base: off / all documents / 3 documents" for the conversation on show
    (:meth:`show_conversation`) and opens a :class:`KnowledgeScopeDialog` to change it; saving stores it with
    ``ConversationStore.set_knowledge``. With no conversation on show it edits the next new chat's choice,
    which the chat view stores with the new conversation (:meth:`new_chat_choice`). Disabled, saying why,
    while there is no knowledge base.
    ``knowledge_changed(conversation_id)`` after a save ("" for the next new chat)."""

    knowledge_changed = Signal(str)

    def __init__(self, calls: StoreCalls, knowledge_base: KnowledgeBaseSource,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("knowledgeScopeButton")
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        self.calls = calls
        self.knowledge_base = knowledge_base
        self.conversation_id: str | None = None
        self.enabled_for_chat = True
        self.scope = KnowledgeScope()
        self._new_chat: tuple[bool, KnowledgeScope] = (True, KnowledgeScope())
        self._new_chat_went_to: str | None = None
        self.dialog: KnowledgeScopeDialog | None = None
        self._editing: str | None = None
        self._bridge = Bridge(self)
        self._poll = QTimer(self)
        self._poll.setInterval(AVAILABILITY_POLL_MS)
        self._poll.timeout.connect(self.refresh_availability)
        self.clicked.connect(self.open_dialog)
        self.refresh_availability()

    # ---- language --------------------------------------------------------------------------
    def retranslate_ui(self) -> None:
        available = self.available
        self.setText(self.summary_text(self.enabled_for_chat, self.scope) if available else self.tr("Knowledge base"))
        self.setToolTip(
            self.tr("Choose whether this conversation answers from the knowledge base, and from which documents")
            if available else
            self.tr("There is no knowledge base yet. Add documents in the Knowledge base panel to answer from them."))
        self.setAccessibleName(self.tr("Knowledge base for this conversation"))
        self.setAccessibleDescription(self.text() + ". " + self.toolTip())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def summary_text(self, enabled: bool, scope: KnowledgeScope) -> str:
        """"Knowledge base: off", "…: all documents", "…: 1 folder, 3 documents"."""
        if not enabled:
            return self.tr("Knowledge base: off")
        if scope.everything:
            return self.tr("Knowledge base: all documents")
        parts = []
        folders, documents = len(scope.folders), len(scope.document_ids)
        if folders:
            parts.append(self.tr("1 folder") if folders == 1 else self.tr("{0} folders").format(folders))
        if documents:
            parts.append(self.tr("1 document") if documents == 1 else self.tr("{0} documents").format(documents))
        shown = parts[0] if len(parts) == 1 else self.tr("{0}, {1}").format(*parts)
        return self.tr("Knowledge base: {0}").format(shown)

    # ---- what it shows ---------------------------------------------------------------------
    @property
    def available(self) -> bool:
        """True once there is a knowledge base to choose from."""
        return self.knowledge_base() is not None

    def refresh_availability(self) -> None:
        """Enable the button once a knowledge base is open (polled cheaply until then)."""
        available = self.available
        self.setEnabled(available)
        if available:
            self._poll.stop()
        elif not self._poll.isActive():
            self._poll.start()
        self.retranslate_ui()

    def show_conversation(self, conversation_id: str | None) -> None:
        """Show the choice of ``conversation_id`` (None: the next new chat's); it is read on the store's worker."""
        self.conversation_id = conversation_id
        if conversation_id is None:
            self.calls.drop(SHOW_LANE)
            self._show(None)
            return
        self.calls.latest(SHOW_LANE, lambda store: store.conversation(conversation_id), self._show,
                          lambda _error: self._show(None))  # deleted meanwhile: nothing on show

    def _show(self, conversation: Conversation | None) -> None:
        if conversation is not None and conversation.id != self.conversation_id:
            return
        if conversation is not None:
            if conversation.id == self._new_chat_went_to:  # the new chat exists now: the next one starts afresh
                self._new_chat, self._new_chat_went_to = (True, KnowledgeScope()), None
            self.enabled_for_chat, self.scope = conversation.kb_enabled, conversation.kb_scope
        else:
            self.enabled_for_chat, self.scope = self._new_chat
        self.refresh_availability()

    def new_chat_choice(self, conversation_id: str) -> tuple[bool, KnowledgeScope]:
        """The next new chat's choice, for the conversation about to be created for it (``conversation_id``).
        The choice is kept for another try until that conversation is shown (a first message that fails
        deletes it again)."""
        self._new_chat_went_to = conversation_id
        return self._new_chat

    # ---- choosing ----------------------------------------------------------------------------
    def open_dialog(self) -> KnowledgeScopeDialog | None:
        """Open the dialog for the conversation on show; its documents are read on a worker."""
        knowledge_base = self.knowledge_base()
        if knowledge_base is None:
            self.refresh_availability()
            return None
        if self.dialog is None:
            self.dialog = KnowledgeScopeDialog(self.window())
            self.dialog.saved.connect(self._saved)
        self._editing = self.conversation_id
        self.dialog.edit(self.enabled_for_chat, self.scope, new_chat=self.conversation_id is None)
        dialog = self.dialog
        self._bridge.run_latest(
            DOCUMENTS_LANE, lambda: (knowledge_base.documents(), knowledge_base.watched_folders()),
            self._show_documents, lambda error: dialog.show_error(str(error) or type(error).__name__))
        dialog.open()
        return dialog

    def _show_documents(self, result: tuple[list[DocumentRecord], list[str]]) -> None:
        if self.dialog is not None:
            self.dialog.show_documents(*result)

    def _saved(self, enabled: bool, scope: KnowledgeScope) -> None:
        conversation_id = self._editing
        if conversation_id is None:
            self._new_chat = (enabled, scope)
        else:
            self._store(conversation_id, enabled, scope)
        if conversation_id == self.conversation_id:
            self.enabled_for_chat, self.scope = enabled, scope
            self.retranslate_ui()
        self.knowledge_changed.emit(conversation_id or "")

    def _store(self, conversation_id: str, enabled: bool, scope: KnowledgeScope) -> None:
        self.calls.call(lambda store: store.set_knowledge(conversation_id, enabled, scope), None,
                        lambda error: log.info("knowledge choice not stored: %s", error))  # deleted meanwhile

    def shutdown(self, timeout_ms: int = 3000) -> None:
        """Stop polling and wait for a document read still running (before the knowledge base closes)."""
        self._poll.stop()
        self._bridge.drop_lane(DOCUMENTS_LANE)
        self._bridge.wait_for_all(timeout_ms)
