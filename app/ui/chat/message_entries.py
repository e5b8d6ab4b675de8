"""What the chat view shows for each message of the branch on show: the message, its alternatives, its state."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.core.chat.records import Message


@dataclass(frozen=True)
class MessageEntry:
    """One message as the view shows it.

    ``streaming``: its answer is being written now (text comes from the running job, not the store).
    ``busy``: its conversation is generating, so actions that start another answer are off.
    """

    message: Message
    position: int = 1
    alternatives: int = 1
    previous_id: str | None = None
    next_id: str | None = None
    streaming: bool = False
    busy: bool = False

    @property
    def can_continue(self) -> bool:
        message = self.message
        return message.can_continue and bool(message.text.strip()) and not self.streaming


def entries_for(
    branch: Sequence[Message], all_messages: Sequence[Message], streaming_id: str | None
) -> list[MessageEntry]:
    """Entries for ``branch`` (root to leaf); ``all_messages`` (creation order) gives each one's alternatives."""
    siblings: dict[str | None, list[str]] = {}
    for message in all_messages:
        siblings.setdefault(message.parent_id, []).append(message.id)
    busy = streaming_id is not None
    entries = []
    for message in branch:
        alternatives = siblings.get(message.parent_id, [message.id])
        index = alternatives.index(message.id) if message.id in alternatives else 0
        entries.append(MessageEntry(
            message=message,
            position=index + 1,
            alternatives=len(alternatives),
            previous_id=alternatives[index - 1] if index > 0 else None,
            next_id=alternatives[index + 1] if index + 1 < len(alternatives) else None,
            streaming=message.id == streaming_id,
            busy=busy,
        ))
    return entries
