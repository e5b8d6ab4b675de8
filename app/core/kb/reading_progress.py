"""How far a document's reading got: big documents are read and committed in parts, and a reading that
stopped (a crash, a cancel) resumes after the last part committed.

One row per document being read in parts (table ``reading_progress``, app.core.kb.database), written in the
transaction that commits each part's chunks, deleted when the document is indexed, fails or is withdrawn.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class ReadingState:
    """Parts committed so far of the document's version ``content_hash``; reading goes on at ``resume_after``
    (a part's token, see app.core.kb.documents.DocumentPart) with chunk ``next_ordinal``."""

    content_hash: str
    resume_after: str
    next_ordinal: int
    numbered_pages: int = 0
    """Pages with a page number (PDF) among the parts committed."""
    format: str = ""
    title: str = ""
    notes: tuple[str, ...] = ()


def saved_reading(connection: sqlite3.Connection, document_id: int) -> ReadingState | None:
    row = connection.execute(
        "SELECT content_hash, resume_after, next_ordinal, numbered_pages, format, title, notes "
        "FROM reading_progress WHERE document_id = ?", (document_id,)
    ).fetchone()
    if row is None:
        return None
    return ReadingState(str(row["content_hash"]), str(row["resume_after"]), int(row["next_ordinal"]),
                        int(row["numbered_pages"]), str(row["format"] or ""), str(row["title"] or ""),
                        tuple(json.loads(row["notes"] or "[]")))


def save_reading(connection: sqlite3.Connection, document_id: int, state: ReadingState) -> None:
    """Record the state after a committed part (call inside the transaction that wrote its chunks)."""
    connection.execute(
        "INSERT INTO reading_progress (document_id, content_hash, resume_after, next_ordinal, numbered_pages, "
        "format, title, notes) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (document_id) DO UPDATE SET "
        "content_hash = excluded.content_hash, resume_after = excluded.resume_after, "
        "next_ordinal = excluded.next_ordinal, numbered_pages = excluded.numbered_pages, "
        "format = excluded.format, title = excluded.title, notes = excluded.notes",
        (document_id, state.content_hash, state.resume_after, state.next_ordinal, state.numbered_pages,
         state.format, state.title, json.dumps(list(state.notes), ensure_ascii=False)),
    )


def forget_reading(connection: sqlite3.Connection, document_id: int) -> None:
    connection.execute("DELETE FROM reading_progress WHERE document_id = ?", (document_id,))
