"""Full-text search across every conversation's messages (FTS5 over pre-segmented text)."""

from __future__ import annotations

import sqlite3

from app.core.chat.records import SearchMatch
from app.core.chat.rows import check_role
from app.core.chat.segmentation import match_expression, snippet


def search_messages(connection: sqlite3.Connection, query: str, limit: int) -> list[SearchMatch]:
    """Messages containing every word of ``query`` (CJK runs as phrases), best match first."""
    expression = match_expression(query)
    if expression is None or limit <= 0:
        return []
    rows = connection.execute(
        "SELECT m.id, m.conversation_id, m.role, m.text, m.created_at, c.title "
        "FROM message_search s JOIN messages m ON m.seq = s.rowid "
        "JOIN conversations c ON c.id = m.conversation_id "
        "WHERE message_search MATCH ? ORDER BY bm25(message_search), m.seq DESC LIMIT ?",
        (expression, limit),
    ).fetchall()
    return [
        SearchMatch(
            conversation_id=str(row["conversation_id"]),
            conversation_title=str(row["title"]),
            message_id=str(row["id"]),
            role=check_role(str(row["role"])),
            snippet=snippet(str(row["text"]), query),
            created_at=float(row["created_at"]),
        )
        for row in rows
    ]
