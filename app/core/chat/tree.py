"""Walking a conversation's message tree: the branch to a leaf, the newest leaf below a message."""

from __future__ import annotations

from collections.abc import Sequence

from app.core.chat.records import Message


def branch_to(messages: Sequence[Message], leaf_id: str) -> list[Message]:
    """The path from the root to ``leaf_id`` (empty if it is not among ``messages``)."""
    by_id = {message.id: message for message in messages}
    path: list[Message] = []
    current = by_id.get(leaf_id)
    while current is not None:
        path.append(current)
        if len(path) > len(by_id):  # a cycle can only come from a hand-edited file
            raise ValueError("the message tree has a cycle")
        current = by_id.get(current.parent_id) if current.parent_id is not None else None
    path.reverse()
    return path


def newest_leaf_under(messages: Sequence[Message], message_id: str) -> str:
    """Follow the newest reply from ``message_id`` down to a message with no replies.

    ``messages`` must be in creation order (as the store returns them).
    """
    newest_child: dict[str, str] = {}
    for message in messages:
        if message.parent_id is not None:
            newest_child[message.parent_id] = message.id
    current = message_id
    for _ in range(len(messages) + 1):
        child = newest_child.get(current)
        if child is None:
            return current
        current = child
    raise ValueError("the message tree has a cycle")
