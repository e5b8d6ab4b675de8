"""How one conversation appears in the sidebar list: title, pinned and answering marks, search passage."""

from __future__ import annotations

from datetime import datetime

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QListWidgetItem

from app.core.chat.records import Conversation, SearchMatch
from app.ui.conversations.search_results import SNIPPET_ROLE, shown_snippet

ID_ROLE = Qt.ItemDataRole.UserRole
PINNED_MARK = "★"
RUNNING_MARK = "●"


def conversation_item(conversation: Conversation, running: bool, match: SearchMatch | None,
                      untitled: str) -> QListWidgetItem:
    """A list item for ``conversation``; its id is under ``ID_ROLE``."""
    item = QListWidgetItem()
    item.setData(ID_ROLE, conversation.id)
    show_conversation_texts(item, conversation, running, match, untitled)
    return item


def show_conversation_texts(item: QListWidgetItem, conversation: Conversation, running: bool,
                            match: SearchMatch | None, untitled: str) -> None:
    """Write the item's title, search passage and tooltip in the current language."""
    text, tooltip = conversation_texts(conversation, running, match, untitled)
    item.setText(text)
    item.setToolTip(tooltip)
    item.setData(SNIPPET_ROLE, shown_snippet(match))


def conversation_texts(conversation: Conversation, running: bool, match: SearchMatch | None,
                       untitled: str) -> tuple[str, str]:
    """The item's text (marks and title) and tooltip (with the matching passage), in the current language."""
    marks = [mark for mark, on in ((PINNED_MARK, conversation.pinned), (RUNNING_MARK, running)) if on]
    title = conversation.title or untitled
    text = " ".join([*marks, title])
    updated = datetime.fromtimestamp(conversation.updated_at).strftime("%Y-%m-%d %H:%M")
    tooltip = [title, updated]
    if conversation.pinned:
        tooltip.append(QCoreApplication.translate("ConversationSidebar", "Pinned"))
    if running:
        tooltip.append(QCoreApplication.translate("ConversationSidebar", "Writing an answer…"))
    if shown_snippet(match):
        tooltip.append(shown_snippet(match))
    return text, "\n".join(tooltip)
