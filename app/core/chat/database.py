"""The conversations SQLite file: opening it (WAL, foreign keys), its schema and migrations."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from app.core.chat.errors import ChatDatabaseError
from app.core.util.segmenter import index_terms
from app.core.util.sqlite import transaction

DATABASE_FOLDER = "chat"
DATABASE_FILE_NAME = "conversations.db"
BUSY_TIMEOUT_S = 30.0

DEFAULT_SYSTEM_PROMPT = (
    "You are UniDesk, a helpful assistant running privately on the user's computer. "
    "Answer clearly and concisely. When sources are given, base the answer on them and cite "
    "them by their number in square brackets, like [1]; if they do not contain the answer, say so."
)

_SCHEMA_1 = (
    """
CREATE TABLE presets (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    text TEXT NOT NULL,
    builtin INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL
)""",
    """CREATE TABLE conversations (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL DEFAULT '',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    pinned INTEGER NOT NULL DEFAULT 0,
    kb_enabled INTEGER NOT NULL DEFAULT 1,
    kb_scope TEXT NOT NULL DEFAULT '{}',
    preset_id TEXT REFERENCES presets (id) ON DELETE SET NULL,
    model TEXT,
    current_leaf_id TEXT
)""",
    """CREATE TABLE messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    conversation_id TEXT NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
    parent_id TEXT REFERENCES messages (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
    text TEXT NOT NULL DEFAULT '',
    citations TEXT NOT NULL DEFAULT '[]',
    model TEXT,
    settings TEXT NOT NULL DEFAULT '{}',
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    timings TEXT NOT NULL DEFAULT '{}',
    finished INTEGER NOT NULL DEFAULT 1,
    finish_reason TEXT,
    created_at REAL NOT NULL
)""",
    "CREATE INDEX messages_by_conversation ON messages (conversation_id, seq)",
    "CREATE INDEX messages_by_parent ON messages (parent_id)",
)

_SCHEMA_2 = (
    "CREATE VIRTUAL TABLE message_search USING fts5 (terms, tokenize = 'unicode61 remove_diacritics 2')",
    "CREATE TRIGGER message_search_delete AFTER DELETE ON messages BEGIN "
    "DELETE FROM message_search WHERE rowid = old.seq; END",
)


def _migrate_to_1(connection: sqlite3.Connection) -> None:
    """Tables for presets, conversations and messages, plus the built-in default preset."""
    for statement in _SCHEMA_1:  # one by one: executescript() would commit the migration's transaction
        connection.execute(statement)
    connection.execute(
        "INSERT INTO presets (id, name, text, builtin, created_at) VALUES ('default', 'Default', ?, 1, ?)",
        (DEFAULT_SYSTEM_PROMPT, time.time()),
    )


def _migrate_to_2(connection: sqlite3.Connection) -> None:
    """Full-text search over messages (CJK pre-segmented), filled from the existing messages."""
    for statement in _SCHEMA_2:
        connection.execute(statement)
    rows = connection.execute("SELECT seq, text FROM messages").fetchall()
    connection.executemany(
        "INSERT INTO message_search (rowid, terms) VALUES (?, ?)", [(row[0], index_terms(row[1])) for row in rows]
    )


def _migrate_to_3(connection: sqlite3.Connection) -> None:
    """Search terms re-made by the segmenter shared with the knowledge base (more CJK ranges)."""
    rows = connection.execute("SELECT seq, text FROM messages").fetchall()
    connection.executemany(
        "UPDATE message_search SET terms = ? WHERE rowid = ?", [(index_terms(row[1]), row[0]) for row in rows]
    )


# MIGRATIONS[n] takes a database at version n to version n + 1.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_migrate_to_1, _migrate_to_2, _migrate_to_3)
SCHEMA_VERSION = len(MIGRATIONS)


def database_path(data_dir: Path) -> Path:
    return data_dir / DATABASE_FOLDER / DATABASE_FILE_NAME


def open_database(path: Path, *, target_version: int = SCHEMA_VERSION) -> sqlite3.Connection:
    """Open (creating and migrating as needed) the conversations database at ``path``.

    The connection is in autocommit mode and may be shared between threads by a caller that
    serialises its use; group writes with :func:`transaction`. ``target_version`` exists for
    migration tests.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error as error:
        raise ChatDatabaseError(f"Cannot open the conversations file {path} ({error}).",
                                "Check that the folder is writable.") from error
    connection.row_factory = sqlite3.Row
    try:
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute("PRAGMA synchronous = NORMAL")
        _migrate(connection, path, target_version)
    except sqlite3.DatabaseError as error:
        connection.close()
        raise ChatDatabaseError(
            f"The conversations file {path} is damaged or not a database ({error}).",
            "Move it elsewhere to start with an empty history, or restore a backup.",
        ) from error
    except BaseException:
        connection.close()
        raise
    return connection


def schema_version(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA user_version").fetchone()[0])


def _migrate(connection: sqlite3.Connection, path: Path, target_version: int) -> None:
    version = schema_version(connection)
    if version > SCHEMA_VERSION:
        raise ChatDatabaseError(
            f"The conversations file {path} was written by a newer UniDesk (schema {version}, "
            f"this version knows {SCHEMA_VERSION}).",
            "Update UniDesk, or move the file elsewhere to start with an empty history.",
        )
    while version < target_version:
        with transaction(connection):
            MIGRATIONS[version](connection)
            version += 1
            connection.execute(f"PRAGMA user_version = {version}")


