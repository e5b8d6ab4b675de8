"""What the chat view shows for each message of the branch on show: the message, its alternatives, its state."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.core.chat.prompt import enters_prompt
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


def first_sent_id(branch: Sequence[Message]) -> str | None:
    """The oldest message of ``branch`` its latest answer still sent to the model, when older ones had to be left
    out to fit the context (None when nothing was left out). Counts what the answer's prompt counted: the turns
    before its question that enter a prompt (``history_messages``), oldest dropped first."""
    for index in range(len(branch) - 1, 0, -1):
        answer = branch[index]
        dropped = answer.settings.get("history_dropped") if answer.role == "assistant" else None
        if not isinstance(dropped, int):
            continue
        question = next((position for position in range(index - 1, -1, -1)
                         if branch[position].id == answer.parent_id), None)
        if dropped <= 0 or question is None:
            return None
        sent = [message for message in branch[:question] if enters_prompt(message)]
        return sent[dropped].id if dropped < len(sent) else branch[question].id
    return None


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
