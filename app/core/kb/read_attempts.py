"""Counting attempts to read a file, so a file that takes the app down is never read again on its own.

Before a file is read its attempt is recorded as *open* (committed); the outcome closes it. An
attempt still open at the next start means the app stopped while reading that file. One such
interruption may be chance (the user quit, the power went, a kill -9); after :data:`MAX_INTERRUPTED` the file is
marked failed and left alone until it changes (or the user adds it again after removing it).
The table is ``read_attempts`` (app.core.kb.database).
A crash or a timeout of the reader process itself fails the file at once (see parse_worker).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Final

MAX_INTERRUPTED: Final = 3


@dataclass(frozen=True)
class OpenAttempt:
    """Reading that never ended: how many tries so far, and the file's size and mtime when last tried."""

    attempts: int
    size: int
    mtime_ns: int

def begin_attempt(connection: sqlite3.Connection, document_id: int, size: int, mtime_ns: int) -> int:
    """Record that reading the document (a file of ``size`` and ``mtime_ns``) starts now (commit it before
    reading); returns the attempt number."""
    connection.execute(  # nothing for a document removed meanwhile
        "INSERT INTO read_attempts (document_id, attempts, open, size, mtime_ns) "
        "SELECT ?, 1, 1, ?, ? WHERE EXISTS (SELECT 1 FROM documents WHERE id = ?) "
        "ON CONFLICT (document_id) DO UPDATE SET attempts = attempts + 1, open = 1, size = ?, mtime_ns = ?",
        (document_id, size, mtime_ns, document_id, size, mtime_ns),
    )
    return attempts(connection, document_id)


def end_attempt(connection: sqlite3.Connection, document_id: int) -> None:
    """The reading ended (whatever its outcome): call in the transaction that records the outcome."""
    connection.execute("UPDATE read_attempts SET open = 0 WHERE document_id = ?", (document_id,))


def progress_made(connection: sqlite3.Connection, document_id: int) -> None:
    """A part of the document was committed: the attempts before this one stopped for other reasons than the
    file (a big file read in parts over several runs is never given up for having been interrupted)."""
    connection.execute("UPDATE read_attempts SET attempts = 1 WHERE document_id = ? AND open = 1", (document_id,))


def cancel_attempt(connection: sqlite3.Connection, document_id: int) -> None:
    """The run was cancelled while the document was read: that attempt does not count."""
    connection.execute(
        "UPDATE read_attempts SET attempts = attempts - 1, open = 0 WHERE document_id = ?", (document_id,)
    )
    connection.execute("DELETE FROM read_attempts WHERE document_id = ? AND attempts <= 0", (document_id,))


def attempts(connection: sqlite3.Connection, document_id: int) -> int:
    row = connection.execute("SELECT attempts FROM read_attempts WHERE document_id = ?", (document_id,)).fetchone()
    return 0 if row is None else int(row["attempts"])


def interrupted(connection: sqlite3.Connection) -> dict[int, OpenAttempt]:
    """document id -> its open attempt, for documents whose last reading never ended."""
    rows = connection.execute(
        "SELECT document_id, attempts, size, mtime_ns FROM read_attempts WHERE open = 1"
    ).fetchall()
    return {
        int(row["document_id"]): OpenAttempt(int(row["attempts"]), int(row["size"]), int(row["mtime_ns"]))
        for row in rows
    }


def forget_attempts(connection: sqlite3.Connection, document_id: int) -> None:
    """Start counting afresh (the file changed, or it was read successfully)."""
    connection.execute("DELETE FROM read_attempts WHERE document_id = ?", (document_id,))
