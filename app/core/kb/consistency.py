"""A full check that SQLite rows, keyword rows and vectors agree (tests, diagnostics after a crash)."""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from dataclasses import dataclass

from app.core.kb.spaces import all_spaces
from app.core.kb.vector_store import HASH_PREFIX_LENGTH, VectorStore


@dataclass(frozen=True)
class ConsistencyReport:
    """``problems`` break the guarantees; ``orphan_vectors`` are harmless leftovers until cleanup."""

    indexed_documents: int
    chunks: int
    vectors: int
    orphan_vectors: int
    problems: tuple[str, ...]
    awaiting_vectors: int = 0
    """Indexed documents (findable by keywords) not yet complete in the active space: embedding resumes."""

    @property
    def ok(self) -> bool:
        return not self.problems


def check_consistency(connection: sqlite3.Connection, vector_store: VectorStore) -> ConsistencyReport:
    """Every indexed document has all its chunks and keyword rows, every member of a space all its vectors, a
    document being read in parts the chunks of its committed parts; nothing else has chunks or keyword rows.
    Indexed documents not (yet) members are counted, not problems."""
    problems: list[str] = []
    indexed = {
        int(row["id"]): (str(row["content_hash"]), int(row["chunk_count"]))
        for row in connection.execute("SELECT id, content_hash, chunk_count FROM documents WHERE status = 'indexed'")
    }
    ordinals: dict[int, list[int]] = defaultdict(list)
    for row in connection.execute("SELECT document_id, ordinal FROM chunks ORDER BY document_id, ordinal"):
        ordinals[int(row["document_id"])].append(int(row["ordinal"]))
    for document_id, (_, chunk_count) in indexed.items():
        if ordinals.get(document_id, []) != list(range(chunk_count)):
            problems.append(f"document {document_id}: chunks {ordinals.get(document_id, [])} != {chunk_count}")
    reading = {  # documents read in parts so far: the chunks of their committed parts
        int(row["document_id"]): int(row["next_ordinal"])
        for row in connection.execute(
            "SELECT r.document_id, r.next_ordinal FROM reading_progress r JOIN documents d ON d.id = r.document_id "
            "WHERE d.status = 'indexing'")
    }
    for document_id, committed in reading.items():
        if ordinals.get(document_id, []) != list(range(committed)):
            found = ordinals.get(document_id, [])
            problems.append(f"document {document_id}: chunks {found} != {committed} read so far")
    for document_id in set(ordinals) - set(indexed) - set(reading):
        problems.append(f"document {document_id} is not indexed but has chunks")
    unmatched = connection.execute(
        "SELECT (SELECT count(*) FROM chunk_terms WHERE rowid NOT IN (SELECT id FROM chunks)), "
        "(SELECT count(*) FROM chunks WHERE id NOT IN (SELECT rowid FROM chunk_terms))"
    ).fetchone()
    if unmatched[0] or unmatched[1]:
        problems.append(f"{unmatched[0]} keyword rows without a chunk, {unmatched[1]} chunks without keywords")
    members: dict[str, set[int]] = defaultdict(set)
    for row in connection.execute("SELECT collection, document_id FROM vector_members"):
        members[str(row["collection"])].add(int(row["document_id"]))
    vectors = orphans = awaiting = 0
    for space in all_spaces(connection):
        present: dict[int, set[int]] = defaultdict(set)
        for key in vector_store.keys(space.collection):
            vectors += 1
            current = indexed.get(key.document_id)
            if current is None or current[0][:HASH_PREFIX_LENGTH] != key.content_hash or key.ordinal >= current[1]:
                orphans += 1
            else:
                present[key.document_id].add(key.ordinal)
        for document_id in members[space.collection]:
            if document_id not in indexed:
                problems.append(f"{space.collection}: member {document_id} is not indexed")
            elif present[document_id] != set(range(indexed[document_id][1])):
                problems.append(f"{space.collection}: document {document_id} lacks vectors")
        if space.state == "active":
            awaiting = len(set(indexed) - members[space.collection])
    return ConsistencyReport(len(indexed), sum(len(value) for value in ordinals.values()), vectors, orphans,
                             tuple(problems), awaiting)


def re_embedding_in_progress(connection: sqlite3.Connection) -> bool:
    """Whether a new model's space is being filled (then the active one may lack new documents)."""
    return any(space.state != "active" for space in all_spaces(connection))
