"""Full-text search across every conversation's messages (FTS5 over pre-segmented text).

Messages are indexed and queries split by the shared segmenter (:mod:`app.core.util.segmenter`),
the same way the knowledge base splits them. A message must contain every piece of the query:
a CJK run as the phrase of its bigrams, a word as itself, the last word as a prefix.
"""

from __future__ import annotations

import sqlite3

from app.core.chat.records import SearchMatch
from app.core.chat.rows import check_role
from app.core.util.segmenter import pieces


def match_expression(query: str) -> str | None:
    """An FTS5 MATCH expression requiring every piece of ``query``; None if it has no searchable text.

    The last latin word matches as a prefix (search as you type).
    """
    found = pieces(query)
    if not found:
        return None
    clauses: list[str] = []
    for position, piece in enumerate(found):
        phrase = '"' + " ".join(piece.terms()) + '"'
        last_word = not piece.cjk and position == len(found) - 1
        clauses.append(phrase + ("*" if last_word else ""))
    return " AND ".join(clauses)


def snippet(text: str, query: str, width: int = 80) -> str:
    """About ``width`` characters of ``text`` around the first piece of ``query`` found in it."""
    folded = text.lower()
    positions = [found for piece in pieces(query) if (found := folded.find(piece.text)) >= 0]
    flat = " ".join(text.split())
    if not positions:
        return flat[:width] + ("…" if len(flat) > width else "")
    start = max(0, min(positions) - width // 3)
    piece = " ".join(text[start : start + width].split())
    return ("…" if start > 0 else "") + piece + ("…" if start + width < len(text) else "")


def search_messages(connection: sqlite3.Connection, query: str, limit: int) -> list[SearchMatch]:
    """Messages containing every piece of ``query``, best match first."""
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
