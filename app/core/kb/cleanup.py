"""Deleting vectors nothing refers to: what a crash, a replaced file or a removed document left."""

from __future__ import annotations

import sqlite3

from app.core.kb.database import knowledge_base_id
from app.core.kb.spaces import all_spaces, collection_prefix
from app.core.kb.vector_store import VectorStore


def clean_orphan_vectors(connection: sqlite3.Connection, vector_store: VectorStore) -> int:
    """Process the ``vector_cleanup`` queue in every vector space; returns how many documents it had.

    A queued document that is indexed keeps only the vectors of its current content and chunk
    count; any other queued document (pending, failed, removed) loses all its vectors.
    """
    queued = [int(row["document_id"]) for row in connection.execute("SELECT document_id FROM vector_cleanup")]
    if not queued:
        return 0
    indexed: dict[int, tuple[str, int]] = {}
    for start in range(0, len(queued), 500):
        part = queued[start : start + 500]
        marks = ", ".join("?" for _ in part)
        for row in connection.execute(
            f"SELECT id, content_hash, chunk_count FROM documents WHERE status = 'indexed' AND id IN ({marks})",
            part,
        ):
            indexed[int(row["id"])] = (str(row["content_hash"]), int(row["chunk_count"]))
    unreferenced = [document_id for document_id in queued if document_id not in indexed]
    for space in all_spaces(connection):
        vector_store.delete_documents(space.collection, unreferenced)
        for document_id, (content_hash, chunk_count) in indexed.items():
            vector_store.delete_stale_versions(space.collection, document_id, content_hash, chunk_count)
    for start in range(0, len(queued), 500):
        part = queued[start : start + 500]
        marks = ", ".join("?" for _ in part)
        connection.execute(f"DELETE FROM vector_cleanup WHERE document_id IN ({marks})", part)
    return len(queued)


def drop_unknown_collections(connection: sqlite3.Connection, vector_store: VectorStore) -> list[str]:
    """Drop this knowledge base's collections that no vector space names (left by a crash)."""
    prefix = collection_prefix(knowledge_base_id(connection))
    known = {space.collection for space in all_spaces(connection)}
    dropped = [name for name in vector_store.collection_names() if name.startswith(prefix) and name not in known]
    for name in dropped:
        vector_store.drop(name)
    return dropped
