"""The knowledge base's SQLite file: schema and versioning (WAL, foreign keys)."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

from app.core.kb.errors import KnowledgeBaseError
from app.core.util.sqlite import transaction
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "KnowledgeBaseErrors"

SCHEMA_VERSION = 1
DATABASE_FILE_NAME = "kb.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    path TEXT NOT NULL UNIQUE,
    source_folder TEXT,
    content_hash TEXT,
    size INTEGER NOT NULL DEFAULT 0,
    mtime_ns INTEGER NOT NULL DEFAULT 0,
    format TEXT,
    title TEXT,
    pages INTEGER NOT NULL DEFAULT 0,
    chunk_count INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL CHECK (status IN ('pending', 'indexing', 'indexed', 'failed')),
    error_kind TEXT,
    error_message TEXT,
    notes TEXT,
    added_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_by_status ON documents (status);
CREATE INDEX IF NOT EXISTS documents_by_folder ON documents (source_folder);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    page INTEGER,
    heading TEXT NOT NULL DEFAULT '',
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    token_count INTEGER NOT NULL DEFAULT 0,
    text TEXT NOT NULL,
    UNIQUE (document_id, ordinal)
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_terms USING fts5 (terms, tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS watched_folders (
    path TEXT PRIMARY KEY,
    added_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS requested_paths (
    path TEXT PRIMARY KEY,
    requested_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS vector_spaces (
    collection TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    dimension INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('active', 'building')),
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS vector_members (
    collection TEXT NOT NULL REFERENCES vector_spaces (collection) ON DELETE CASCADE,
    document_id INTEGER NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
    PRIMARY KEY (collection, document_id)
);
CREATE TABLE IF NOT EXISTS vector_cleanup (document_id INTEGER PRIMARY KEY);
CREATE TABLE IF NOT EXISTS reading_progress (
    document_id INTEGER PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    content_hash TEXT NOT NULL,
    resume_after TEXT NOT NULL,
    next_ordinal INTEGER NOT NULL,
    numbered_pages INTEGER NOT NULL DEFAULT 0,
    format TEXT,
    title TEXT,
    notes TEXT
);
CREATE TABLE IF NOT EXISTS read_attempts (
    document_id INTEGER PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,
    attempts INTEGER NOT NULL DEFAULT 0,
    open INTEGER NOT NULL DEFAULT 0,
    size INTEGER NOT NULL DEFAULT 0,
    mtime_ns INTEGER NOT NULL DEFAULT 0
);
"""


def open_database(path: Path) -> sqlite3.Connection:
    """Open (creating if needed) the knowledge-base database at ``path``.

    The connection runs in autocommit mode; group writes with :func:`transaction`. It may be
    used from one thread at a time (callers hand it over, they never share it concurrently).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        connection = sqlite3.connect(
            path, isolation_level=None, check_same_thread=False, timeout=30.0
        )
        connection.row_factory = sqlite3.Row
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = NORMAL")
        connection.execute("PRAGMA foreign_keys = ON")
        _create_or_check_schema(connection, path)
    except sqlite3.DatabaseError as error:
        raise KnowledgeBaseError(
            Text(CONTEXT, QT_TRANSLATE_NOOP(
                "KnowledgeBaseErrors", "The knowledge-base database {0} cannot be opened: {1}."),
                 (str(path), str(error))),
            Text(CONTEXT, QT_TRANSLATE_NOOP(
                "KnowledgeBaseErrors", "Move the file away to start an empty knowledge base, or restore it from a "
                                       "backup.")),
        ) from error
    return connection


def _create_or_check_schema(connection: sqlite3.Connection, path: Path) -> None:
    connection.executescript(_SCHEMA)  # every statement is idempotent (IF NOT EXISTS)
    with transaction(connection):
        row = connection.execute("SELECT version FROM schema_version").fetchone()
        if row is None:
            connection.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
        elif row["version"] > SCHEMA_VERSION:
            raise KnowledgeBaseError(
                Text(CONTEXT, QT_TRANSLATE_NOOP(
                    "KnowledgeBaseErrors",
                    "The knowledge base {0} was written by a newer UniDesk (schema {1}, this one knows {2})."),
                    (str(path), row["version"], SCHEMA_VERSION)),
                Text(CONTEXT, QT_TRANSLATE_NOOP("KnowledgeBaseErrors", "Update UniDesk to use it.")),
            )
        connection.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('kb_id', ?)", (uuid.uuid4().hex,)
        )


def knowledge_base_id(connection: sqlite3.Connection) -> str:
    """A random id made when the database was created (names this knowledge base's collections)."""
    row = connection.execute("SELECT value FROM meta WHERE key = 'kb_id'").fetchone()
    return str(row["value"])
