"""Vector spaces: one chromadb collection per embedding model, and which one answers queries.

Exactly one space is ``active`` (queries use it). When the embedding model changes, a
``building`` space for the new model is filled in the background while the active one keeps
serving; once every indexed document is a member of the new space, :func:`promote` switches
them in one transaction. ``vector_members`` records which documents are complete in a space.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
import time
from dataclasses import dataclass

ACTIVE = "active"
BUILDING = "building"


@dataclass(frozen=True)
class VectorSpace:
    collection: str
    model: str
    dimension: int
    state: str


def collection_prefix(kb_id: str) -> str:
    """Every collection of one knowledge base starts with this (several can share a chromadb server)."""
    return f"kb-{kb_id[:12]}-"


def collection_name(kb_id: str, model_key: str, dimension: int) -> str:
    """A valid chromadb name (3-512 chars of [a-zA-Z0-9._-], alphanumeric ends) for a model's space."""
    slug = re.sub(r"[^a-z0-9]+", "-", model_key.lower()).strip("-")[:48] or "model"
    digest = hashlib.sha256(f"{model_key}|{dimension}".encode()).hexdigest()[:10]
    return f"{collection_prefix(kb_id)}{slug}-{digest}"


def _space(row: sqlite3.Row) -> VectorSpace:
    return VectorSpace(row["collection"], row["model"], int(row["dimension"]), row["state"])


def all_spaces(connection: sqlite3.Connection) -> list[VectorSpace]:
    rows = connection.execute(
        "SELECT collection, model, dimension, state FROM vector_spaces ORDER BY created_at"
    ).fetchall()
    return [_space(row) for row in rows]


def active_space(connection: sqlite3.Connection) -> VectorSpace | None:
    row = connection.execute(
        "SELECT collection, model, dimension, state FROM vector_spaces WHERE state = 'active'"
    ).fetchone()
    return None if row is None else _space(row)


def ensure_target_space(
    connection: sqlite3.Connection, kb_id: str, model_name: str, model_key: str, dimension: int
) -> tuple[VectorSpace, list[str]]:
    """The space new vectors go to for this model, and collections now abandoned (to drop).

    The space is named after ``model_key`` and remembers ``model_name`` (how to load the model).
    Call inside a transaction. With no active space yet the target becomes active at once;
    a building space for another model (the user changed their mind) is abandoned.
    """
    name = collection_name(kb_id, model_key, dimension)
    active = active_space(connection)
    abandoned = [
        space.collection for space in all_spaces(connection)
        if space.state == BUILDING and space.collection != name
    ]
    for collection in abandoned:
        connection.execute("DELETE FROM vector_spaces WHERE collection = ?", (collection,))
    if active is not None and active.collection == name:
        return active, abandoned
    state = ACTIVE if active is None else BUILDING
    connection.execute(
        "INSERT OR IGNORE INTO vector_spaces (collection, model, dimension, state, created_at) "
        "VALUES (?, ?, ?, ?, ?)",
        (name, model_name, dimension, state, time.time()),
    )
    if active is None:
        connection.execute("UPDATE vector_spaces SET state = 'active' WHERE collection = ?", (name,))
    return VectorSpace(name, model_name, dimension, state), abandoned


def add_member(connection: sqlite3.Connection, collection: str, document_id: int) -> None:
    connection.execute(
        "INSERT OR IGNORE INTO vector_members (collection, document_id) VALUES (?, ?)",
        (collection, document_id),
    )


def indexed_documents_missing_from(connection: sqlite3.Connection, collection: str) -> list[int]:
    """Indexed documents whose vectors are not (all) in ``collection`` yet."""
    rows = connection.execute(
        "SELECT d.id FROM documents d WHERE d.status = 'indexed' AND NOT EXISTS "
        "(SELECT 1 FROM vector_members m WHERE m.collection = ? AND m.document_id = d.id) ORDER BY d.id",
        (collection,),
    ).fetchall()
    return [int(row["id"]) for row in rows]


def promote(connection: sqlite3.Connection, collection: str) -> str | None:
    """Make a complete building space the active one (inside a transaction); returns the old active."""
    old = active_space(connection)
    if old is not None and old.collection != collection:
        connection.execute("DELETE FROM vector_spaces WHERE collection = ?", (old.collection,))
    connection.execute("UPDATE vector_spaces SET state = 'active' WHERE collection = ?", (collection,))
    return None if old is None or old.collection == collection else old.collection
