"""The indexing pipeline in two stages: findable by keywords at once, by meaning once embedded.

*Reading* (:class:`ReadingStage`, a helper thread with its own SQLite connection) takes the files
smallest first, stepping aside between files while an answer is written (as embedding does between
batches): it records the attempt, reads the file (in the reader process) part by part, cuts each part into
chunks and commits its chunks and keyword rows at once (keyword search finds them from then on); the last
part's transaction also sets status ``indexed``. A small file is one part: chunks, keyword rows and status in
ONE transaction. A big one is read in parts (:mod:`~app.core.kb.parsers.parts`): a crash or a cancel leaves
its parts committed so far and where reading stopped (:mod:`~app.core.kb.reading_progress`), and the next run
resumes there. *Embedding* (:class:`EmbeddingStage`, on the indexing thread) meanwhile
embeds the chunks of indexed documents that are not yet members of the target vector space,
smallest documents first, a pool of chunks at a time; a document becomes a member (searchable by
meaning) in the transaction after its last vector is written.

Vectors are written before membership: a crash leaves vectors of a document that is not a member
yet, which the next run keeps (their ids name content hash and ordinal) and completes, so a big
document resumes from its last written batch, not from the start. Vectors of content that
changed meanwhile are queued for cleanup.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from app.core.kb.catalog import IndexedFacts, mark_failed, mark_indexed, mark_indexing, record_unchanged
from app.core.kb.chunk_store import insert_chunks
from app.core.kb.database import open_database
from app.core.kb.embedder import Embedder
from app.core.kb.ingest_plan import WorkItem
from app.core.kb.preparation import (
    FailedDocument,
    Outcome,
    PageStarted,
    Stopped,
    StreamedDocument,
    UnchangedDocument,
    close_parts,
    failure_of,
)
from app.core.kb.progress import PAGE_SKIPPED, FileProblem, ProgressTracker
from app.core.kb.read_attempts import begin_attempt, cancel_attempt, end_attempt, forget_attempts, progress_made
from app.core.kb.reading_progress import ReadingState, forget_reading, save_reading, saved_reading
from app.core.kb.spaces import add_member
from app.core.kb.step_aside import STEP_CHUNKS, StepAside, clear_to_embed, embed_in_steps
from app.core.kb.vector_store import VectorKey, VectorStore
from app.core.util.sqlite import transaction

log = logging.getLogger(__name__)

SORT_POOL_BATCHES = 8  # chunks are pooled over this many batches and sorted by length before embedding
_WAKE_SECONDS = 0.2


class ReadingStage:
    """Reads and commits documents on a helper thread; :attr:`done` once every file has an outcome."""

    def __init__(
        self, database_path: Path,
        prepare: Callable[[WorkItem, Stopped, ReadingState | None, PageStarted | None], Outcome],
        progress: ProgressTracker,
        step_aside: StepAside | None = None,
    ) -> None:
        self._database_path = database_path
        self._step_aside = step_aside
        self._prepare = prepare
        self._progress = progress
        self.committed = threading.Event()
        """Set whenever a document became indexed (the embedding stage waits on it)."""
        self.done = threading.Event()
        self.halt = threading.Event()
        """Set when the embedding stage failed: reading stops after the file at hand."""
        self.failure: BaseException | None = None
        self._thread: threading.Thread | None = None

    def start(self, work: Sequence[WorkItem], cancel: threading.Event) -> None:
        ordered = sorted(work, key=lambda item: (item.size, item.document_id))  # small files never wait
        self._thread = threading.Thread(target=self._run, args=(ordered, cancel), name="kb-reader", daemon=True)
        self._thread.start()

    def join(self, timeout: float = 60.0) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self, work: Sequence[WorkItem], cancel: threading.Event) -> None:
        try:
            connection = open_database(self._database_path)
            try:
                for item in work:
                    if self._step_aside is not None:  # reading takes the cores an answer needs, too
                        self._step_aside.wait(cancel)
                    if cancel.is_set() or self.halt.is_set() or not self._read(connection, item, cancel):
                        break
            finally:
                connection.close()
        except BaseException as error:  # handed to the indexing thread, which raises it
            self.failure = error
        finally:
            self.done.set()
            self.committed.set()

    def _read(self, connection: sqlite3.Connection, item: WorkItem, cancel: threading.Event) -> bool:
        """Read and commit one file, part by part; False when the run was cancelled while it was read."""
        document_id = item.document_id
        with transaction(connection):
            begin_attempt(connection, document_id, item.size, item.mtime_ns)
            resumed = saved_reading(connection, document_id)
        self._progress.update(current_file=str(item.path), ocr_page=0, ocr_pages=0)
        outcome = self._prepare(item, lambda: cancel.is_set() or self.halt.is_set(), resumed, self._page_started)
        if isinstance(outcome, StreamedDocument):
            try:
                finished = self._commit_parts(connection, outcome)
            except Exception as error:  # reading or chunking a part failed: the file fails (see failure_of)
                outcome = failure_of(item, error)
            else:
                if not finished:
                    with transaction(connection):
                        cancel_attempt(connection, document_id)
                    return False
        if isinstance(outcome, FailedDocument):
            with transaction(connection):
                mark_failed(connection, document_id, outcome.kind, outcome.message, item.size, item.mtime_ns)
                end_attempt(connection, document_id)
            self._progress.file_failed(item.size, FileProblem(str(item.path), outcome.kind, outcome.message))
        elif isinstance(outcome, UnchangedDocument):
            with transaction(connection):
                record_unchanged(connection, document_id, outcome.size, outcome.mtime_ns)
                forget_attempts(connection, document_id)
            self._progress.file_finished(outcome.item.size, indexed=False, skipped=True)
        return True

    def _page_started(self, page: int, pages: int) -> None:
        self._progress.update(ocr_page=page, ocr_pages=pages)

    def _commit_parts(self, connection: sqlite3.Connection, streamed: StreamedDocument) -> bool:
        """Commit each part as it is read (its chunks are found by keywords at once); the last one makes the
        document indexed. False when the parts stopped before the last (cancelled: the next run resumes)."""
        try:
            return self._commit_each(connection, streamed)
        finally:
            close_parts(streamed.parts)  # when it stopped early: the reader process may be midway

    def _commit_each(self, connection: sqlite3.Connection, streamed: StreamedDocument) -> bool:
        state = streamed.resumed or ReadingState(streamed.content_hash, "", 0)
        fresh = streamed.resumed is None
        searchable = False
        for prepared in streamed.parts:
            part = prepared.part
            state = ReadingState(
                state.content_hash, part.resume_after or "", state.next_ordinal + len(prepared.chunks),
                state.numbered_pages + sum(page.page_number is not None for page in part.pages),
                state.format or part.format, state.title or part.title, (*state.notes, *part.notes),
            )
            with transaction(connection):
                if connection.execute("SELECT 1 FROM documents WHERE id = ?", (streamed.item.document_id,)
                                      ).fetchone() is None:
                    return True  # removed while it was read
                if fresh:  # the old version's chunks (or an abandoned reading's) go in this same transaction
                    mark_indexing(connection, streamed.item.document_id)
                    fresh = False
                insert_chunks(connection, streamed.item.document_id, prepared.chunks)
                if prepared.last:
                    self._finish(connection, streamed, state)
                else:
                    save_reading(connection, streamed.item.document_id, state)
                    _count_chunks(connection, streamed.item.document_id, state.next_ordinal)
                    progress_made(connection, streamed.item.document_id)
            self._progress.update(ocr_page=0, ocr_pages=0)
            if part.skipped_page is not None:
                path = streamed.item.path
                self._progress.problem(FileProblem(str(path), PAGE_SKIPPED, f"{path}: {part.notes[0]}"))
            if not searchable and state.next_ordinal > 0:
                searchable = True
                self._progress.file_searchable()
            if prepared.last:
                self.committed.set()
                return True
        return False

    def _finish(self, connection: sqlite3.Connection, streamed: StreamedDocument, state: ReadingState) -> None:
        """The last part: the document becomes indexed, or fails when it held no text at all."""
        document_id, item = streamed.item.document_id, streamed.item
        if state.next_ordinal == 0:
            message = f"{item.path}: contains no text to index"
            mark_failed(connection, document_id, "empty", message, item.size, item.mtime_ns)
            end_attempt(connection, document_id)
            self._progress.file_failed(item.size, FileProblem(str(item.path), "empty", message))
            return
        mark_indexed(connection, document_id, IndexedFacts(
            streamed.content_hash, streamed.size, streamed.mtime_ns, state.format, state.title,
            state.numbered_pages or 1, state.next_ordinal, tuple(dict.fromkeys(state.notes)),
        ))
        forget_reading(connection, document_id)
        forget_attempts(connection, document_id)


def _count_chunks(connection: sqlite3.Connection, document_id: int, chunks: int) -> None:
    """The chunks committed so far of a document being read (what the documents list shows meanwhile)."""
    connection.execute("UPDATE documents SET chunk_count = ? WHERE id = ?", (chunks, document_id))


@dataclass
class _Embedding:
    """A document being embedded: its chunk ordinals still without vectors, and those handed out."""

    document_id: int
    content_hash: str
    size: int
    missing: list[int]
    handed_out: int = 0
    embedded: int = 0


@dataclass
class _Piece:
    document: _Embedding
    ordinal: int
    text: str
    tokens: int


@dataclass
class EmbeddingStage:
    """Embeds indexed documents missing from ``collection`` until reading is done and none is left."""

    connection: sqlite3.Connection
    vector_store: VectorStore
    collection: str
    embedder: Embedder
    progress: ProgressTracker
    batch_chunks: int
    step_aside: StepAside | None = None
    gather_seconds: float = 1.0
    """While files are still read, how long to wait for a full pool of chunks (fewer: more padding)."""
    step_chunks: int = STEP_CHUNKS
    """A batch is embedded in pieces of this many chunks, stepping aside between them (one call per piece:
    small pieces answer the foreground sooner, whole batches embed up to twice as fast on a CPU)."""
    _open: dict[int, _Embedding] = field(default_factory=dict)

    def run(self, reading: ReadingStage, cancel: threading.Event) -> bool:
        """False when cancelled (what was embedded stays; the rest resumes next run)."""
        pool_size = max(1, self.batch_chunks) * SORT_POOL_BATCHES
        gathering_since = time.monotonic()
        while not cancel.is_set() and reading.failure is None:
            finished_reading = reading.done.is_set()
            reading.committed.clear()
            if (not finished_reading and self._available() < pool_size
                    and time.monotonic() - gathering_since < self.gather_seconds):
                reading.committed.wait(_WAKE_SECONDS)
                continue
            pool = self._pool(pool_size)
            if not pool:
                if finished_reading:
                    return True
                reading.committed.wait(_WAKE_SECONDS)
                continue
            if not self._embed_pool(pool, cancel):
                return False
            gathering_since = time.monotonic()
        return reading.failure is None and not cancel.is_set()

    def _available(self) -> int:
        """Chunks of indexed documents that wait for vectors and were not handed out yet."""
        row = self.connection.execute(
            "SELECT COALESCE(SUM(d.chunk_count), 0) FROM documents d WHERE d.status = 'indexed' AND NOT EXISTS "
            "(SELECT 1 FROM vector_members m WHERE m.collection = ? AND m.document_id = d.id)",
            (self.collection,),
        ).fetchone()
        return int(row[0]) - sum(document.handed_out for document in self._open.values())

    def _pool(self, size: int) -> list[_Piece]:
        """Up to ``size`` chunks without vectors, from the smallest documents first."""
        pool: list[_Piece] = []
        rows = self.connection.execute(
            "SELECT d.id, d.content_hash, d.size FROM documents d WHERE d.status = 'indexed' AND NOT EXISTS "
            "(SELECT 1 FROM vector_members m WHERE m.collection = ? AND m.document_id = d.id) "
            "ORDER BY d.chunk_count, d.id LIMIT ?",
            (self.collection, size + len(self._open) + 1),
        ).fetchall()
        for row in rows:
            if len(pool) >= size:
                break
            document = self._document(int(row["id"]), str(row["content_hash"]), int(row["size"]))
            if document is None:
                continue
            wanted = document.missing[document.handed_out : document.handed_out + size - len(pool)]
            if not wanted:
                continue
            texts = self.connection.execute(
                "SELECT ordinal, text, token_count FROM chunks WHERE document_id = ? AND ordinal BETWEEN ? AND ? "
                "ORDER BY ordinal",
                (document.document_id, wanted[0], wanted[-1]),
            ).fetchall()
            chosen = set(wanted)
            pool.extend(_Piece(document, int(text["ordinal"]), str(text["text"]), int(text["token_count"]))
                        for text in texts if int(text["ordinal"]) in chosen)
            document.handed_out += len(wanted)
        return pool

    def _document(self, document_id: int, content_hash: str, size: int) -> _Embedding | None:
        """The document's embedding state (made on first sight: which vectors a crash left already)."""
        known = self._open.get(document_id)
        if known is not None and known.content_hash == content_hash:
            return known
        count = int(self.connection.execute(
            "SELECT COUNT(*) FROM chunks WHERE document_id = ?", (document_id,)
        ).fetchone()[0])
        present = self.vector_store.ordinals(self.collection, document_id, content_hash)
        document = _Embedding(document_id, content_hash, size,
                              [ordinal for ordinal in range(count) if ordinal not in present])
        self._open[document_id] = document
        self.progress.chunks_found(len(document.missing))
        if not document.missing:
            self._join([document])
            return None
        return document

    def _embed_pool(self, pool: list[_Piece], cancel: threading.Event) -> bool:
        """Embed the pool in batches of similar length, longest first (a batch pads to its longest chunk)."""
        pool.sort(key=lambda piece: piece.tokens, reverse=True)
        batch_size = max(1, self.batch_chunks)
        for start in range(0, len(pool), batch_size):
            if not clear_to_embed(self.step_aside, cancel) or not self._embed(pool[start : start + batch_size], cancel):
                return False  # what was handed out but not embedded is embedded by the next run
        return True

    def _embed(self, batch: Sequence[_Piece], cancel: threading.Event) -> bool:
        self.progress.update(current_file=None)
        vectors = embed_in_steps(self.embedder.embed_documents, [piece.text for piece in batch],
                                 self.step_aside, cancel, self.step_chunks)
        if vectors is None:
            return False
        keys = [VectorKey(piece.document.document_id, piece.document.content_hash, piece.ordinal) for piece in batch]
        self.vector_store.upsert(self.collection, keys, vectors)
        finished: list[_Embedding] = []
        for piece in batch:
            piece.document.embedded += 1
            if piece.document.embedded == len(piece.document.missing):
                finished.append(piece.document)
        self.progress.update_chunks(len(batch))
        if finished:
            self._join(finished)
        return True

    def _join(self, documents: Sequence[_Embedding]) -> None:
        """Make complete documents members of the space (searchable by meaning)."""
        joined: list[_Embedding] = []
        with transaction(self.connection):
            for document in documents:
                row = self.connection.execute(
                    "SELECT content_hash FROM documents WHERE id = ? AND status = 'indexed'", (document.document_id,)
                ).fetchone()
                if row is not None and row["content_hash"] == document.content_hash:
                    add_member(self.connection, self.collection, document.document_id)
                    joined.append(document)
                else:  # changed or removed meanwhile: these vectors are stale
                    self.connection.execute(
                        "INSERT OR IGNORE INTO vector_cleanup (document_id) VALUES (?)", (document.document_id,)
                    )
        for document in documents:
            self._open.pop(document.document_id, None)
        for document in joined:
            self.progress.file_finished(document.size, indexed=True)


def run_pipeline(
    work: Sequence[WorkItem],
    reading: ReadingStage,
    embedding: EmbeddingStage,
    cancel: threading.Event,
) -> bool:
    """Read ``work`` on a helper thread while this thread embeds; False when cancelled.

    Documents read stay findable by keywords; those not embedded yet are embedded by the next run.
    """
    reading.start(work, cancel)
    try:
        embedded = embedding.run(reading, cancel)
    except BaseException:
        reading.halt.set()
        raise
    finally:
        reading.join()
    if reading.failure is not None:
        raise reading.failure
    return embedded and not cancel.is_set()
