"""The indexing pipeline: files read on a helper thread, chunks embedded in batches, one commit each.

Per document the order is what makes a crash harmless: it is marked ``indexing`` (old chunks
withdrawn), its vectors are written (ids derived from document id, content hash and ordinal),
then chunks, keyword rows, vector-space membership and status ``indexed`` are written in ONE
SQLite transaction: the commit point. A crash before it leaves only vectors that the next
run's cleanup deletes; a document marked indexed is always complete.
"""

from __future__ import annotations

import logging
import queue
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.core.kb.catalog import IndexedFacts, mark_failed, mark_indexed, mark_indexing, record_unchanged
from app.core.kb.chunk_store import insert_chunks
from app.core.kb.embedder import Embedder
from app.core.kb.ingest_plan import WorkItem
from app.core.kb.preparation import FailedDocument, Outcome, PreparedDocument, UnchangedDocument
from app.core.kb.progress import FileProblem, ProgressTracker
from app.core.kb.spaces import add_member
from app.core.kb.step_aside import StepAside, clear_to_embed, embed_in_steps
from app.core.kb.vector_store import VectorKey, VectorStore
from app.core.util.sqlite import transaction

log = logging.getLogger(__name__)

_END = object()
SORT_POOL_BATCHES = 8  # chunks are pooled over this many batches and sorted by length before embedding


@dataclass
class _OpenDocument:
    prepared: PreparedDocument
    remaining: int


class IndexWriter:
    """Consumes outcomes on the indexing thread: embeds, writes vectors, commits documents."""

    def __init__(
        self,
        connection: sqlite3.Connection,
        vector_store: VectorStore,
        collection: str,
        embedder: Embedder,
        progress: ProgressTracker,
        batch_chunks: int,
        step_aside: StepAside | None = None,
    ) -> None:
        self._connection = connection
        self._step_aside = step_aside
        self._vector_store = vector_store
        self._collection = collection
        self._embedder = embedder
        self._progress = progress
        self._batch_chunks = max(1, batch_chunks)
        self._pending: list[tuple[_OpenDocument, int]] = []

    def handle(self, outcome: Outcome, cancel: threading.Event) -> None:
        """Take one outcome; embeds the pool once it holds enough chunks (stops between batches on cancel)."""
        if isinstance(outcome, FailedDocument):
            self._fail(outcome.item, outcome.kind, outcome.message)
        elif isinstance(outcome, UnchangedDocument):
            with transaction(self._connection):
                record_unchanged(self._connection, outcome.item.document_id, outcome.size, outcome.mtime_ns)
            self._progress.file_finished(outcome.item.size, indexed=False, skipped=True)
        else:
            with transaction(self._connection):
                mark_indexing(self._connection, outcome.item.document_id)
            document = _OpenDocument(outcome, len(outcome.chunks))
            self._pending.extend((document, index) for index in range(len(outcome.chunks)))
            if len(self._pending) >= self._batch_chunks * SORT_POOL_BATCHES:
                self._embed_pending(cancel)

    def flush(self, cancel: threading.Event) -> None:
        """Embed and commit what is still pending (unless cancelled)."""
        self._embed_pending(cancel)

    def _embed_pending(self, cancel: threading.Event) -> None:
        """Embed the pool in batches of similar length, longest first, so batches carry little padding.

        A batch is padded to its longest chunk; cut in document order, one long chunk among short
        ones (a document's last chunk, a short file) wastes most of a batch. Stops between batches on
        cancel; chunks not embedded stay pending (their documents are not committed and resume later).
        Before each batch, and between pieces of it, it steps aside while the foreground is busy.
        """
        self._pending.sort(key=lambda entry: entry[0].prepared.chunks[entry[1]].token_count, reverse=True)
        while self._pending and clear_to_embed(self._step_aside, cancel):
            if not self._embed(self._pending[: self._batch_chunks], cancel):
                break
            del self._pending[: self._batch_chunks]

    def _embed(self, batch: Sequence[tuple[_OpenDocument, int]], cancel: threading.Event) -> bool:
        """Embed, store and count ``batch``, committing documents it completes; False if cancelled part-way."""
        self._progress.update(current_file=str(batch[-1][0].prepared.item.path))
        texts = [document.prepared.chunks[index].text for document, index in batch]
        vectors = embed_in_steps(self._embedder.embed_documents, texts, self._step_aside, cancel)
        if vectors is None:
            return False
        keys = [
            VectorKey(document.prepared.item.document_id, document.prepared.content_hash,
                      document.prepared.chunks[index].ordinal)
            for document, index in batch
        ]
        self._vector_store.upsert(self._collection, keys, vectors)
        finished: list[_OpenDocument] = []
        for document, _ in batch:
            document.remaining -= 1
            if document.remaining == 0:
                finished.append(document)
        self._progress.update_chunks(len(batch))
        if finished:
            self._commit(finished)
        return True

    def _commit(self, documents: list[_OpenDocument]) -> None:
        committed: list[PreparedDocument] = []
        with transaction(self._connection):
            for document in documents:
                prepared = document.prepared
                document_id = prepared.item.document_id
                row = self._connection.execute(
                    "SELECT status FROM documents WHERE id = ?", (document_id,)
                ).fetchone()
                if row is None or row["status"] != "indexing":  # removed meanwhile: drop its vectors later
                    self._connection.execute(
                        "INSERT OR IGNORE INTO vector_cleanup (document_id) VALUES (?)", (document_id,)
                    )
                    continue
                insert_chunks(self._connection, document_id, prepared.chunks)
                mark_indexed(self._connection, document_id, IndexedFacts(
                    prepared.content_hash, prepared.size, prepared.mtime_ns, prepared.format,
                    prepared.title, prepared.pages, len(prepared.chunks), prepared.notes,
                ))
                add_member(self._connection, self._collection, document_id)
                committed.append(prepared)
        for prepared in committed:
            self._progress.file_finished(prepared.item.size, indexed=True)

    def _fail(self, item: WorkItem, kind: str, message: str) -> None:
        with transaction(self._connection):
            mark_failed(self._connection, item.document_id, kind, message, item.size, item.mtime_ns)
        self._progress.file_failed(item.size, FileProblem(str(item.path), kind, message))


def run_pipeline(
    work: Sequence[WorkItem],
    prepare: Callable[[WorkItem], Outcome],
    writer: IndexWriter,
    cancel: threading.Event,
    prefetch_documents: int = 8,
) -> bool:
    """Index ``work``: a helper thread prepares files while this thread embeds and commits.

    Returns ``False`` when cancelled (finished documents stay committed; the rest resume later).
    """
    outcomes: queue.Queue[object] = queue.Queue(maxsize=max(1, prefetch_documents))
    stop = threading.Event()
    failure: list[BaseException] = []

    def put(value: object) -> bool:
        while not stop.is_set():
            try:
                outcomes.put(value, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in work:
                if stop.is_set() or not put(prepare(item)):
                    return
        except BaseException as error:  # handed to the indexing thread, which raises it
            failure.append(error)
        put(_END)

    producer = threading.Thread(target=produce, name="kb-reader", daemon=True)
    producer.start()
    try:
        while not cancel.is_set():
            try:
                outcome = outcomes.get(timeout=0.2)
            except queue.Empty:
                continue
            if outcome is _END:
                break
            assert isinstance(outcome, PreparedDocument | UnchangedDocument | FailedDocument)
            writer.handle(outcome, cancel)
        if failure:
            raise failure[0]
        writer.flush(cancel)
    finally:
        stop.set()
        producer.join(timeout=30)
    return not cancel.is_set()
