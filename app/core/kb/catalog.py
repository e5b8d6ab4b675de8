"""The documents table: one row per file in the knowledge base, with its status and error."""

from __future__ import annotations

import enum
import sqlite3
import time
from dataclasses import asdict, dataclass
from typing import Any

from app.core.kb.chunk_store import delete_chunks


class DocumentStatus(enum.Enum):
    """Where a document stands. ``INDEXED`` documents have chunks and keyword rows (keyword search finds
    them); their vectors follow (``DocumentRecord.embedded``). An ``INDEXING`` document is being read; a big one
    is read in parts, and the chunks of the parts committed so far are found by keywords already."""

    PENDING = "pending"
    INDEXING = "indexing"
    INDEXED = "indexed"
    FAILED = "failed"


@dataclass(frozen=True)
class DocumentRecord:
    """One row of the documents list."""

    id: int
    path: str
    source_folder: str | None
    content_hash: str | None
    size: int
    mtime_ns: int
    format: str | None
    title: str | None
    pages: int
    chunk_count: int
    status: DocumentStatus
    error_kind: str | None
    error_message: str | None
    notes: str | None
    """What was read only in part (one line each), e.g. a skipped PDF page."""
    added_at: float
    updated_at: float
    embedded: bool = False
    """Its vectors are in the active vector space: search finds it by meaning too (not only by keywords)."""
    read_attempts: int = 0
    """Attempts to read it that did not succeed (or have not ended yet)."""

    @property
    def stage(self) -> str:
        """"keywords" (indexed, vectors still coming), "indexed" (searchable both ways), else the status."""
        if self.status is DocumentStatus.INDEXED and not self.embedded:
            return "keywords"
        return self.status.value

    def to_dict(self) -> dict[str, Any]:
        document = asdict(self)
        document["status"] = self.status.value
        document["stage"] = self.stage
        return document


_COLUMNS = (
    "id, path, source_folder, content_hash, size, mtime_ns, format, title, pages, chunk_count, "
    "status, error_kind, error_message, notes, added_at, updated_at, "
    "EXISTS (SELECT 1 FROM vector_members m JOIN vector_spaces s ON s.collection = m.collection "
    "WHERE m.document_id = documents.id AND s.state = 'active') AS embedded, "
    "COALESCE((SELECT attempts FROM read_attempts a WHERE a.document_id = documents.id), 0) AS read_attempts"
)


def _record(row: sqlite3.Row) -> DocumentRecord:
    values = dict(row)
    values["status"] = DocumentStatus(values["status"])
    values["embedded"] = bool(values["embedded"])
    return DocumentRecord(**values)


def get_document(connection: sqlite3.Connection, document_id: int) -> DocumentRecord | None:
    row = connection.execute(f"SELECT {_COLUMNS} FROM documents WHERE id = ?", (document_id,)).fetchone()
    return None if row is None else _record(row)


def find_document(connection: sqlite3.Connection, path: str) -> DocumentRecord | None:
    row = connection.execute(f"SELECT {_COLUMNS} FROM documents WHERE path = ?", (path,)).fetchone()
    return None if row is None else _record(row)


def list_documents(
    connection: sqlite3.Connection, statuses: tuple[DocumentStatus, ...] = ()
) -> list[DocumentRecord]:
    """Documents ordered by id, optionally only those in ``statuses``."""
    if not statuses:
        rows = connection.execute(f"SELECT {_COLUMNS} FROM documents ORDER BY id").fetchall()
    else:
        marks = ", ".join("?" for _ in statuses)
        rows = connection.execute(
            f"SELECT {_COLUMNS} FROM documents WHERE status IN ({marks}) ORDER BY id",
            [status.value for status in statuses],
        ).fetchall()
    return [_record(row) for row in rows]


def insert_pending(
    connection: sqlite3.Connection, path: str, size: int, mtime_ns: int, source_folder: str | None
) -> int:
    """Add a new file as ``pending``; returns its id (ids are never reused)."""
    now = time.time()
    cursor = connection.execute(
        "INSERT INTO documents (path, source_folder, size, mtime_ns, status, added_at, updated_at) "
        "VALUES (?, ?, ?, ?, 'pending', ?, ?)",
        (path, source_folder, size, mtime_ns, now, now),
    )
    assert cursor.lastrowid is not None
    return cursor.lastrowid


def set_source_folder(connection: sqlite3.Connection, document_id: int, source_folder: str | None) -> None:
    connection.execute(
        "UPDATE documents SET source_folder = ? WHERE id = ?", (source_folder, document_id)
    )


def mark_indexing(connection: sqlite3.Connection, document_id: int) -> None:
    """The document is being indexed now: any old chunks go, and its vectors must be checked later.

    A ``pending`` document never had vectors (they are written only after this), so it needs no
    cleanup entry; any other may have vectors of an older version or of an interrupted run.
    """
    row = connection.execute("SELECT status FROM documents WHERE id = ?", (document_id,)).fetchone()
    _withdraw(connection, document_id, vectors_may_exist=row is None or row["status"] != "pending")
    connection.execute(
        "UPDATE documents SET status = 'indexing', updated_at = ? WHERE id = ?", (time.time(), document_id)
    )


def mark_failed(
    connection: sqlite3.Connection,
    document_id: int,
    error_kind: str,
    error_message: str,
    size: int | None = None,
    mtime_ns: int | None = None,
) -> None:
    """Record why a document could not be indexed (it keeps no chunks)."""
    _withdraw(connection, document_id)
    connection.execute(
        "UPDATE documents SET status = 'failed', error_kind = ?, error_message = ?, chunk_count = 0, "
        "size = COALESCE(?, size), mtime_ns = COALESCE(?, mtime_ns), updated_at = ? WHERE id = ?",
        (error_kind, error_message, size, mtime_ns, time.time(), document_id),
    )


def record_unchanged(connection: sqlite3.Connection, document_id: int, size: int, mtime_ns: int) -> None:
    """The file was touched but its content hash is the same: remember the new size and mtime."""
    connection.execute(
        "UPDATE documents SET size = ?, mtime_ns = ? WHERE id = ?", (size, mtime_ns, document_id)
    )


@dataclass(frozen=True)
class IndexedFacts:
    """What the commit point writes about a finished document."""

    content_hash: str
    size: int
    mtime_ns: int
    format: str
    title: str
    pages: int
    chunk_count: int
    notes: tuple[str, ...] = ()


def mark_indexed(connection: sqlite3.Connection, document_id: int, facts: IndexedFacts) -> None:
    """Set the document ``indexed`` (call inside the transaction that also wrote its chunks)."""
    connection.execute(
        "UPDATE documents SET status = 'indexed', content_hash = ?, size = ?, mtime_ns = ?, format = ?, "
        "title = ?, pages = ?, chunk_count = ?, error_kind = NULL, error_message = NULL, notes = ?, "
        "updated_at = ? WHERE id = ?",
        (facts.content_hash, facts.size, facts.mtime_ns, facts.format, facts.title, facts.pages,
         facts.chunk_count, "\n".join(facts.notes) or None, time.time(), document_id),
    )


def delete_document(connection: sqlite3.Connection, document_id: int) -> None:
    """Remove the document and everything indexed for it (its vectors are queued for cleanup)."""
    _withdraw(connection, document_id)
    connection.execute("DELETE FROM documents WHERE id = ?", (document_id,))


def _withdraw(connection: sqlite3.Connection, document_id: int, *, vectors_may_exist: bool = True) -> None:
    delete_chunks(connection, document_id)
    connection.execute("DELETE FROM reading_progress WHERE document_id = ?", (document_id,))
    connection.execute("DELETE FROM vector_members WHERE document_id = ?", (document_id,))
    if vectors_may_exist:
        connection.execute("INSERT OR IGNORE INTO vector_cleanup (document_id) VALUES (?)", (document_id,))
