"""How one conversation appears in the sidebar list: title, pinned and answering marks, search snippet."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QListWidgetItem

from app.core.chat.records import Conversation, SearchMatch

ID_ROLE = Qt.ItemDataRole.UserRole
PINNED_MARK = "★"
RUNNING_MARK = "●"


def search_matches_by_conversation(matches: Iterable[SearchMatch]) -> dict[str, SearchMatch]:
    """The best match of each conversation (matches come best first)."""
    best: dict[str, SearchMatch] = {}
    for match in matches:
        best.setdefault(match.conversation_id, match)
    return best


def conversation_item(conversation: Conversation, running: bool, match: SearchMatch | None,
                      untitled: str) -> QListWidgetItem:
    """A list item for ``conversation``; its id is under ``ID_ROLE``."""
    text, tooltip = conversation_texts(conversation, running, match, untitled)
    item = QListWidgetItem(text)
    item.setData(ID_ROLE, conversation.id)
    item.setToolTip(tooltip)
    return item


def conversation_texts(conversation: Conversation, running: bool, match: SearchMatch | None,
                       untitled: str) -> tuple[str, str]:
    """The item's text (marks, title, search snippet) and tooltip, in the current language."""
    marks = [mark for mark, on in ((PINNED_MARK, conversation.pinned), (RUNNING_MARK, running)) if on]
    title = conversation.title or untitled
    text = " ".join([*marks, title])
    if match is not None:
        text += "\n" + match.snippet
    updated = datetime.fromtimestamp(conversation.updated_at).strftime("%Y-%m-%d %H:%M")
    tooltip = [title, updated]
    if conversation.pinned:
        tooltip.append(QCoreApplication.translate("ConversationSidebar", "Pinned"))
    if running:
        tooltip.append(QCoreApplication.translate("ConversationSidebar", "Writing an answer…"))
    return text, "\n".join(tooltip)
