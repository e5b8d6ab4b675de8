"""ConversationStore: conversations and their message trees in one SQLite file, safe across threads."""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.core.chat import presets as preset_rows
from app.core.chat.database import database_path, open_database
from app.core.chat.errors import ConversationNotFoundError
from app.core.chat.records import (
    Citation,
    Conversation,
    FinishReason,
    KnowledgeScope,
    Message,
    Role,
    SearchMatch,
    SystemPreset,
)
from app.core.chat.rows import (
    CONVERSATION_COLUMNS,
    MESSAGE_COLUMNS,
    check_finish_reason,
    check_role,
    citations_to_json,
    conversation_from_row,
    message_from_row,
    to_json,
)
from app.core.chat.search import search_messages
from app.core.chat.tree import branch_to, newest_leaf_under
from app.core.util.segmenter import index_terms
from app.core.util.sqlite import transaction

TITLE_CHARS = 60


def new_id() -> str:
    return uuid.uuid4().hex


def title_from(text: str) -> str:
    """A conversation title from its first question: the first line, shortened."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1].rstrip() + "…"


class ConversationStore:
    """All conversations of one user. Every method is thread-safe (one connection behind a lock).

    Messages form a tree through ``parent_id`` (regenerate and edit-and-resend add siblings);
    each conversation remembers the leaf of the branch on show (``current_leaf_id``).
    """

    def __init__(self, path: Path, *, clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self._clock = clock
        self._lock = threading.RLock()
        self._connection = open_database(path)

    @classmethod
    def open(cls, data_dir: Path) -> ConversationStore:
        """The store in the app's data folder (``chat/conversations.db``)."""
        return cls(database_path(data_dir))

    def close(self) -> None:
        with self._lock:
            self._connection.close()

    def __enter__(self) -> ConversationStore:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock, transaction(self._connection) as connection:
            yield connection

    def _read(self, sql: str, parameters: Sequence[Any] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return self._connection.execute(sql, parameters).fetchall()

    # ---- conversations ---------------------------------------------------------------------
    def create_conversation(
        self,
        title: str = "",
        *,
        kb_enabled: bool = True,
        kb_scope: KnowledgeScope | None = None,
        preset_id: str | None = None,
        model: str | None = None,
        conversation_id: str | None = None,
        created_at: float | None = None,
    ) -> Conversation:
        now = self._clock() if created_at is None else created_at
        identifier = conversation_id or new_id()
        with self._write() as connection:
            connection.execute(
                "INSERT INTO conversations (id, title, created_at, updated_at, kb_enabled, kb_scope, preset_id, model) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (identifier, title, now, now, int(kb_enabled), to_json((kb_scope or KnowledgeScope()).to_dict()),
                 preset_id, model),
            )
        return self.conversation(identifier)

    def conversation(self, conversation_id: str) -> Conversation:
        rows = self._read(f"SELECT {CONVERSATION_COLUMNS} FROM conversations WHERE id = ?", (conversation_id,))
        if not rows:
            raise ConversationNotFoundError("conversation", conversation_id)
        return conversation_from_row(rows[0])

    def has_conversation(self, conversation_id: str) -> bool:
        return bool(self._read("SELECT 1 FROM conversations WHERE id = ?", (conversation_id,)))

    def conversations(self) -> list[Conversation]:
        """Pinned conversations first, then the most recently active."""
        rows = self._read(
            f"SELECT {CONVERSATION_COLUMNS} FROM conversations ORDER BY pinned DESC, updated_at DESC, rowid DESC"
        )
        return [conversation_from_row(row) for row in rows]

    def _update_conversation(self, conversation_id: str, assignments: str, values: Sequence[Any]) -> Conversation:
        with self._write() as connection:
            cursor = connection.execute(
                f"UPDATE conversations SET {assignments} WHERE id = ?", (*values, conversation_id)
            )
            if cursor.rowcount == 0:
                raise ConversationNotFoundError("conversation", conversation_id)
        return self.conversation(conversation_id)

    def rename(self, conversation_id: str, title: str) -> Conversation:
        return self._update_conversation(conversation_id, "title = ?", (title.strip(),))

    def set_pinned(self, conversation_id: str, pinned: bool) -> Conversation:
        return self._update_conversation(conversation_id, "pinned = ?", (int(pinned),))

    def set_knowledge(self, conversation_id: str, enabled: bool, scope: KnowledgeScope | None = None) -> Conversation:
        """Turn the knowledge base on/off for a conversation; ``scope`` (if given) limits its documents."""
        if scope is None:
            return self._update_conversation(conversation_id, "kb_enabled = ?", (int(enabled),))
        return self._update_conversation(
            conversation_id, "kb_enabled = ?, kb_scope = ?", (int(enabled), to_json(scope.to_dict()))
        )

    def set_preset(self, conversation_id: str, preset_id: str | None) -> Conversation:
        if preset_id is not None:
            self.preset(preset_id)
        return self._update_conversation(conversation_id, "preset_id = ?", (preset_id,))

    def set_model(self, conversation_id: str, model: str | None) -> Conversation:
        return self._update_conversation(conversation_id, "model = ?", (model,))

    def delete_conversation(self, conversation_id: str) -> None:
        """Delete a conversation and all its messages (and their search entries)."""
        with self._write() as connection:
            cursor = connection.execute("DELETE FROM conversations WHERE id = ?", (conversation_id,))
            if cursor.rowcount == 0:
                raise ConversationNotFoundError("conversation", conversation_id)

    # ---- messages --------------------------------------------------------------------------
    def add_message(
        self,
        conversation_id: str,
        role: Role,
        text: str,
        parent_id: str | None,
        *,
        finished: bool = True,
        finish_reason: FinishReason | None = None,
        model: str | None = None,
        settings: dict[str, Any] | None = None,
        citations: Sequence[Citation] = (),
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        timings: dict[str, Any] | None = None,
        message_id: str | None = None,
        created_at: float | None = None,
        make_current: bool = True,
    ) -> Message:
        """Add a message under ``parent_id`` (None: a new root); it becomes the current leaf.

        The first user message names an untitled conversation.
        """
        check_role(role)
        check_finish_reason(finish_reason)
        now = self._clock() if created_at is None else created_at
        identifier = message_id or new_id()
        with self._write() as connection:
            conversation = connection.execute(
                "SELECT title FROM conversations WHERE id = ?", (conversation_id,)
            ).fetchone()
            if conversation is None:
                raise ConversationNotFoundError("conversation", conversation_id)
            if parent_id is not None:
                parent = connection.execute(
                    "SELECT conversation_id FROM messages WHERE id = ?", (parent_id,)
                ).fetchone()
                if parent is None or parent[0] != conversation_id:
                    raise ConversationNotFoundError("message", parent_id)
            cursor = connection.execute(
                f"INSERT INTO messages ({MESSAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (identifier, conversation_id, parent_id, role, text, citations_to_json(citations), model,
                 to_json(settings or {}), prompt_tokens, completion_tokens, to_json(timings or {}), int(finished),
                 finish_reason, now),
            )
            connection.execute(
                "INSERT INTO message_search (rowid, terms) VALUES (?, ?)", (cursor.lastrowid, index_terms(text))
            )
            title = conversation[0] if conversation[0] or role != "user" else title_from(text)
            if make_current:
                connection.execute(
                    "UPDATE conversations SET current_leaf_id = ?, updated_at = ?, title = ? WHERE id = ?",
                    (identifier, now, title, conversation_id),
                )
            else:
                connection.execute("UPDATE conversations SET updated_at = ?, title = ? WHERE id = ?",
                                   (now, title, conversation_id))
        return self.message(identifier)

    def message(self, message_id: str) -> Message:
        rows = self._read(f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?", (message_id,))
        if not rows:
            raise ConversationNotFoundError("message", message_id)
        return message_from_row(rows[0])

    def messages(self, conversation_id: str) -> list[Message]:
        """Every message of a conversation (all branches), oldest first."""
        rows = self._read(
            f"SELECT {MESSAGE_COLUMNS} FROM messages WHERE conversation_id = ? ORDER BY seq", (conversation_id,)
        )
        return [message_from_row(row) for row in rows]

    def branch(self, conversation_id: str, leaf_id: str | None = None) -> list[Message]:
        """The messages from the root to ``leaf_id`` (default: the current leaf), in order."""
        leaf = leaf_id if leaf_id is not None else self.conversation(conversation_id).current_leaf_id
        if leaf is None:
            return []
        return branch_to(self.messages(conversation_id), leaf)

    def children(self, conversation_id: str, parent_id: str | None) -> list[Message]:
        """Direct replies to ``parent_id`` (None: the roots), oldest first: the alternatives to flip through."""
        return [message for message in self.messages(conversation_id) if message.parent_id == parent_id]

    def select_branch(self, conversation_id: str, message_id: str) -> Conversation:
        """Show the branch through ``message_id``: the current leaf becomes its newest descendant leaf."""
        messages = self.messages(conversation_id)
        if not any(message.id == message_id for message in messages):
            raise ConversationNotFoundError("message", message_id)
        leaf = newest_leaf_under(messages, message_id)
        return self._update_conversation(conversation_id, "current_leaf_id = ?", (leaf,))

    def save_partial(self, message_id: str, text: str) -> None:
        """Store the text of an answer still streaming (it stays marked unfinished)."""
        with self._write() as connection:
            row = connection.execute(
                "UPDATE messages SET text = ?, finished = 0, finish_reason = NULL WHERE id = ? RETURNING seq",
                (text, message_id),
            ).fetchone()
            if row is None:
                raise ConversationNotFoundError("message", message_id)
            connection.execute("UPDATE message_search SET terms = ? WHERE rowid = ?", (index_terms(text), row[0]))

    def finish_message(
        self,
        message_id: str,
        *,
        text: str,
        finish_reason: FinishReason,
        citations: Sequence[Citation] = (),
        model: str | None = None,
        settings: dict[str, Any] | None = None,
        prompt_tokens: int | None = None,
        completion_tokens: int | None = None,
        timings: dict[str, Any] | None = None,
    ) -> Message:
        """Store an answer's final text and what produced it, and mark it finished."""
        check_finish_reason(finish_reason)
        with self._write() as connection:
            row = connection.execute(
                "UPDATE messages SET text = ?, finished = 1, finish_reason = ?, citations = ?, "
                "model = COALESCE(?, model), settings = ?, prompt_tokens = ?, completion_tokens = ?, timings = ? "
                "WHERE id = ? RETURNING seq, conversation_id",
                (text, finish_reason, citations_to_json(citations), model, to_json(settings or {}), prompt_tokens,
                 completion_tokens, to_json(timings or {}), message_id),
            ).fetchone()
            if row is None:
                raise ConversationNotFoundError("message", message_id)
            connection.execute("UPDATE message_search SET terms = ? WHERE rowid = ?", (index_terms(text), row[0]))
            connection.execute("UPDATE conversations SET updated_at = ? WHERE id = ?", (self._clock(), row[1]))
        return self.message(message_id)

    def delete_message(self, message_id: str) -> Conversation:
        """Delete a message and every reply below it; the branch shown moves to a remaining leaf."""
        message = self.message(message_id)
        with self._write() as connection:
            connection.execute("DELETE FROM messages WHERE id = ?", (message_id,))
        remaining = self.messages(message.conversation_id)
        current = self.conversation(message.conversation_id).current_leaf_id
        if any(item.id == current for item in remaining):
            return self.conversation(message.conversation_id)
        start = message.parent_id if message.parent_id is not None else None
        if start is None:
            roots = [item for item in remaining if item.parent_id is None]
            leaf = newest_leaf_under(remaining, roots[-1].id) if roots else None
        else:
            leaf = newest_leaf_under(remaining, start)
        return self._update_conversation(message.conversation_id, "current_leaf_id = ?", (leaf,))

    def insert_copy(self, conversation: Conversation, messages: Sequence[Message]) -> Conversation:
        """Insert a whole conversation as given (ids, times, branches) in one transaction (imports).

        ``messages`` must list parents before their replies.
        """
        with self._write() as connection:
            connection.execute(
                f"INSERT INTO conversations ({CONVERSATION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (conversation.id, conversation.title, conversation.created_at, conversation.updated_at,
                 int(conversation.pinned), int(conversation.kb_enabled), to_json(conversation.kb_scope.to_dict()),
                 conversation.preset_id, conversation.model, conversation.current_leaf_id),
            )
            for message in messages:
                cursor = connection.execute(
                    f"INSERT INTO messages ({MESSAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (message.id, conversation.id, message.parent_id, message.role, message.text,
                     citations_to_json(message.citations), message.model, to_json(message.settings),
                     message.prompt_tokens, message.completion_tokens, to_json(message.timings),
                     int(message.finished), message.finish_reason, message.created_at),
                )
                connection.execute(
                    "INSERT INTO message_search (rowid, terms) VALUES (?, ?)",
                    (cursor.lastrowid, index_terms(message.text)),
                )
        return self.conversation(conversation.id)

    def has_message(self, message_id: str) -> bool:
        return bool(self._read("SELECT 1 FROM messages WHERE id = ?", (message_id,)))

    # ---- system prompt presets -------------------------------------------------------------
    def presets(self) -> list[SystemPreset]:
        with self._lock:
            return preset_rows.all_presets(self._connection)

    def preset(self, preset_id: str) -> SystemPreset:
        with self._lock:
            return preset_rows.get_preset(self._connection, preset_id)

    def create_preset(self, name: str, text: str, *, preset_id: str | None = None) -> SystemPreset:
        with self._write() as connection:
            preset_id = preset_rows.insert_preset(connection, preset_id or new_id(), name, text, self._clock())
        return self.preset(preset_id)

    def update_preset(self, preset_id: str, *, name: str | None = None, text: str | None = None) -> SystemPreset:
        with self._write() as connection:
            preset_rows.update_preset(connection, preset_id, name, text)
        return self.preset(preset_id)

    def delete_preset(self, preset_id: str) -> None:
        """Delete a user preset (conversations using it fall back to the default)."""
        with self._write() as connection:
            preset_rows.delete_preset(connection, preset_id)

    def system_prompt(self, conversation: Conversation) -> str:
        """The system prompt text the conversation uses (its preset, else the default preset)."""
        with self._lock:
            return preset_rows.system_prompt_for(self._connection, conversation.preset_id)

    def default_system_prompt(self) -> str:
        """The default preset's text (the user may have edited it)."""
        with self._lock:
            return preset_rows.system_prompt_for(self._connection, None)

    # ---- search ----------------------------------------------------------------------------
    def search(self, query: str, limit: int = 50) -> list[SearchMatch]:
        """Messages of every conversation containing all words of ``query`` (Chinese included), best first."""
        with self._lock:
            return search_messages(self._connection, query, limit)
