"""Re-embedding every indexed document into a new model's vector space, then switching to it.

The chunks stay as they are in SQLite (the keyword index is unaffected); only their vectors are
computed again with the new model. Each finished document is recorded as a member of the new
space in its own transaction, so the work resumes after a crash or a cancel. When every indexed
document is a member, :func:`promote` makes the new space active in one transaction and the old
collection is dropped: queries use the old space until that moment.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.core.kb.chunk_store import document_chunk_texts
from app.core.kb.embedder import Embedder
from app.core.kb.progress import ProgressTracker
from app.core.kb.spaces import VectorSpace, add_member, indexed_documents_missing_from, promote
from app.core.kb.step_aside import StepAside, clear_to_embed, embed_in_steps
from app.core.kb.vector_store import VectorKey, VectorStore
from app.core.util.sqlite import transaction

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray


@dataclass(frozen=True)
class _Piece:
    document_id: int
    content_hash: str
    ordinal: int
    text: str


def reembed_into(
    connection: sqlite3.Connection,
    vector_store: VectorStore,
    embedder: Embedder,
    target: VectorSpace,
    progress: ProgressTracker,
    cancel: threading.Event,
    batch_chunks: int,
    step_aside: StepAside | None = None,
) -> bool:
    """Fill ``target`` with vectors of every indexed document, then make it active (stepping aside
    before each batch, and between its pieces, while the foreground is busy).

    Returns ``True`` when the switch happened (``False``: cancelled; it resumes next time).
    """
    missing = indexed_documents_missing_from(connection, target.collection)
    progress.update(phase="re-embedding", files_total=len(missing), files_done=0)

    def embed(texts: Sequence[str]) -> NDArray[np.float32] | None:
        return embed_in_steps(embedder.embed_documents, texts, step_aside, cancel)

    pending: list[_Piece] = []
    remaining: dict[int, int] = {}
    for document_id in missing:
        if cancel.is_set():
            return False
        row = connection.execute(
            "SELECT content_hash FROM documents WHERE id = ? AND status = 'indexed'", (document_id,)
        ).fetchone()
        if row is None:
            continue
        texts = document_chunk_texts(connection, document_id)
        remaining[document_id] = len(texts)
        pending.extend(_Piece(document_id, str(row["content_hash"]), ordinal, text) for ordinal, text in texts)
        while len(pending) >= batch_chunks and clear_to_embed(step_aside, cancel):
            _embed(connection, vector_store, embed, target, pending[:batch_chunks], remaining, progress)
            del pending[:batch_chunks]
    while pending and clear_to_embed(step_aside, cancel):
        _embed(connection, vector_store, embed, target, pending[:batch_chunks], remaining, progress)
        del pending[:batch_chunks]
    if cancel.is_set():
        return False
    with transaction(connection):
        if indexed_documents_missing_from(connection, target.collection):
            return False  # documents were added meanwhile; the next run finishes them
        old = promote(connection, target.collection)
    if old is not None:
        vector_store.drop(old)
    return True


def _embed(
    connection: sqlite3.Connection,
    vector_store: VectorStore,
    embed: Callable[[Sequence[str]], NDArray[np.float32] | None],
    target: VectorSpace,
    batch: list[_Piece],
    remaining: dict[int, int],
    progress: ProgressTracker,
) -> None:
    vectors = embed([piece.text for piece in batch])
    if vectors is None:  # cancelled part-way: the caller stops
        return
    keys = [VectorKey(piece.document_id, piece.content_hash, piece.ordinal) for piece in batch]
    vector_store.upsert(target.collection, keys, vectors)
    progress.update_chunks(len(batch))
    finished = []
    for piece in batch:
        remaining[piece.document_id] -= 1
        if remaining[piece.document_id] == 0:
            finished.append(piece)
    if not finished:
        return
    with transaction(connection):
        for piece in finished:
            row = connection.execute(
                "SELECT content_hash FROM documents WHERE id = ? AND status = 'indexed'", (piece.document_id,)
            ).fetchone()
            if row is not None and row["content_hash"] == piece.content_hash:
                add_member(connection, target.collection, piece.document_id)
            else:
                connection.execute(
                    "INSERT OR IGNORE INTO vector_cleanup (document_id) VALUES (?)", (piece.document_id,)
                )
    progress.advance(len(finished))
