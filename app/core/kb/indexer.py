"""One indexing run from start to end: clean up, scan, read and embed, re-embed for a new model, clean up.

Files are read in a separate process (:mod:`~app.core.kb.parse_worker`) within the limits of
:class:`~app.core.kb.parse_worker.ParseLimits`, unless a ``parse`` function is given (then in this process:
tests and trusted callers).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from app.core.config import Settings
from app.core.kb.cleanup import clean_orphan_vectors, drop_unknown_collections
from app.core.kb.database import knowledge_base_id, open_database
from app.core.kb.documents import DocumentPart
from app.core.kb.embedder import Embedder
from app.core.kb.ingest_plan import Discover, FoundFile, ProblemSink, plan_ingestion, planned_paths
from app.core.kb.ocr import OCR_PARSER
from app.core.kb.parse_worker import DEFAULT_PARSER, ParseLimits, ParseWorker
from app.core.kb.pipeline import EmbeddingStage, ReadingStage, run_pipeline
from app.core.kb.preparation import ChunkDocument, Parse, Preparer, Read
from app.core.kb.progress import FileProblem, ProgressTracker
from app.core.kb.reembed import reembed_into
from app.core.kb.spaces import ACTIVE, ensure_target_space, indexed_documents_missing_from
from app.core.kb.step_aside import STEP_CHUNKS, ForegroundBusy, StepAside
from app.core.kb.vector_store import VectorStore
from app.core.util.sqlite import transaction


@dataclass(frozen=True)
class IndexingOptions:
    """How documents are read, cut and batched. ``chunk_tokens`` is capped by the model (see Embedder);
    ``parser`` is what the reader process runs ("module:function")."""

    chunk_tokens: int = 512
    overlap_tokens: int = 64
    batch_chunks: int = 64
    remove_vanished: bool = True
    limits: ParseLimits = field(default_factory=ParseLimits)
    parser: str = DEFAULT_PARSER
    gather_seconds: float = 1.0
    """While files are read, how long embedding may wait for a full pool of chunks (see EmbeddingStage)."""

    @classmethod
    def from_settings(cls, settings: Settings) -> IndexingOptions:
        return cls(
            chunk_tokens=settings.int_value("kb.chunk_tokens"),
            overlap_tokens=settings.int_value("kb.chunk_overlap_tokens"),
            batch_chunks=settings.int_value("kb.embedding_batch_size"),
            limits=ParseLimits.from_settings(settings),
            parser=OCR_PARSER if settings.bool_value("kb.ocr") else DEFAULT_PARSER,
        )


@dataclass(frozen=True)
class IndexingSummary:
    files_indexed: int
    files_skipped: int
    files_failed: int
    files_removed: int
    chunks: int
    seconds: float
    chunks_per_second: float
    cancelled: bool
    switched_model: bool
    chunk_tokens: int
    problems: tuple[FileProblem, ...]

    def to_dict(self) -> dict[str, Any]:
        document = asdict(self)
        document["problems"] = [asdict(problem) for problem in self.problems]
        return document


def default_discover(paths: Sequence[Path], on_problem: ProblemSink) -> Iterable[FoundFile]:
    """Files under ``paths`` by the discovery rules (hidden, build and binary files are skipped)."""
    from app.core.kb.discovery import discover_files

    def report(path: Path, problem: str) -> None:
        on_problem(FileProblem(str(path), _problem_kind(problem), f"{path}: {problem}"))

    for found in discover_files(paths, on_problem=report):
        yield FoundFile(found.path, found.size, found.mtime_ns)


def _problem_kind(problem: str) -> str:
    if "does not exist" in problem or "broken link" in problem:
        return "missing"
    if "not a document" in problem or "not a regular file" in problem:
        return "unsupported"
    return "unreadable"


class Indexer:
    """Runs on one worker thread with its own SQLite connection; see :meth:`run`.

    Between embedding batches it steps aside while ``foreground_busy`` (an answer being written) or
    ``searches_waiting`` (default: a question waiting for this indexer's embedder) says so.
    """

    def __init__(
        self,
        database_path: Path,
        vector_store: VectorStore,
        embedder: Embedder,
        options: IndexingOptions,
        *,
        discover: Discover | None = None,
        parse: Parse | None = None,
        chunk: ChunkDocument | None = None,
        foreground_busy: ForegroundBusy | None = None,
        searches_waiting: ForegroundBusy | None = None,
    ) -> None:
        self._database_path = database_path
        self._foreground_busy = foreground_busy
        self._searches_waiting = searches_waiting or (lambda: embedder.queries_waiting > 0)
        self._vector_store = vector_store
        self._embedder = embedder
        self._options = options
        self._discover = discover or default_discover
        self._parse = parse
        self._chunk = chunk

    def run(self, paths: Sequence[Path], progress: ProgressTracker, cancel: threading.Event) -> IndexingSummary:
        """Add ``paths`` (files, folders; none: only resume and finish earlier work).

        Cancel is honoured between batches; whatever was committed stays, the rest resumes next run.
        """
        connection = open_database(self._database_path)
        try:
            with self._reader() as read:  # the reader process starts while the embedding model loads
                switched = self._run(connection, read, paths, progress, cancel)
        finally:
            connection.close()
        snapshot = progress.snapshot()
        progress.update(phase="cancelled" if cancel.is_set() else "finished", current_file=None)
        return IndexingSummary(
            files_indexed=snapshot.files_indexed,
            files_skipped=snapshot.files_skipped,
            files_failed=snapshot.files_failed,
            files_removed=snapshot.files_removed,
            chunks=snapshot.chunks_done,
            seconds=snapshot.elapsed_seconds,
            chunks_per_second=snapshot.chunks_per_second,
            cancelled=cancel.is_set(),
            switched_model=switched,
            chunk_tokens=snapshot.chunk_tokens,
            problems=snapshot.problems,
        )

    def _step_aside(self, progress: ProgressTracker) -> StepAside:
        """Waits between batches while a search waits for an embedding model or the foreground is busy."""
        checks: tuple[ForegroundBusy, ...] = (self._searches_waiting,)
        if self._foreground_busy is not None:
            checks = (*checks, self._foreground_busy)
        return StepAside(checks, progress)

    def _run(
        self, connection: Any, read: Read, paths: Sequence[Path], progress: ProgressTracker, cancel: threading.Event
    ) -> bool:
        progress.update(phase="starting", message=f"loading the embedding model {self._embedder.model_name}")
        embedder = self._embedder
        chunk_tokens = embedder.chunk_tokens_for(self._options.chunk_tokens)
        overlap = min(self._options.overlap_tokens, chunk_tokens // 2)
        progress.update(chunk_tokens=chunk_tokens, message=_chunk_size_note(
            chunk_tokens, self._options.chunk_tokens, embedder.max_seq_length))
        with transaction(connection):
            target, abandoned = ensure_target_space(
                connection, knowledge_base_id(connection), embedder.model_name, embedder.source.key,
                embedder.dimension,
            )
        for collection in abandoned:
            self._vector_store.drop(collection)
        progress.update(phase="cleaning")
        drop_unknown_collections(connection, self._vector_store)
        clean_orphan_vectors(connection, self._vector_store)
        progress.update(phase="scanning")
        plan = plan_ingestion(
            connection, paths, self._discover, progress.problem, remove_vanished=self._options.remove_vanished
        )
        with transaction(connection):
            planned_paths(connection, paths)  # asked for and now in the catalog: nothing waits for them any more
        for item, problem in plan.interrupted:
            progress.file_failed(item.size, problem)
        work_ids = {item.document_id for item in plan.work}
        waiting = [document for document in indexed_documents_missing_from(connection, target.collection)
                   if document not in work_ids]  # read before, not embedded yet (an interrupted run)
        progress.planned(len(plan.work) + len(waiting) + len(plan.interrupted), plan.bytes_total, plan.skipped,
                         len(plan.removed))
        switching = target.state != ACTIVE  # a new model's space is filled: every document is embedded again
        progress.update(phase="indexing")  # rates count from here
        if switching and not plan.work:
            progress.update(phase="re-embedding")
        step_aside = self._step_aside(progress)
        preparer = Preparer(read, self._chunk or _default_chunk(), embedder.count_tokens, chunk_tokens, overlap,
                            self._options.limits.max_file_bytes)
        reading = ReadingStage(self._database_path, preparer, progress, step_aside)
        # Whole batches in one call unless an answer may be waiting (the window): twice the speed on a CPU.
        step_chunks = STEP_CHUNKS if self._foreground_busy is not None else max(1, self._options.batch_chunks)
        embedding = EmbeddingStage(connection, self._vector_store, target.collection, embedder, progress,
                                   self._options.batch_chunks, step_aside, self._options.gather_seconds,
                                   step_chunks)
        run_pipeline(plan.work, reading, embedding, cancel)
        switched = False
        if not cancel.is_set() and switching:
            switched = reembed_into(connection, self._vector_store, embedder, target, progress, cancel,
                                    self._options.batch_chunks, step_aside)
        progress.update(phase="cleaning", current_file=None)
        clean_orphan_vectors(connection, self._vector_store)
        return switched

    @contextmanager
    def _reader(self) -> Iterator[Read]:
        """How files are read: the given ``parse`` in this process, else a reader process with limits."""
        parse = self._parse
        if parse is not None:
            from app.core.kb.parsers.parts import whole_part

            def read_whole(path: Path, stopped: Any, resume: Any, on_page: Any) -> Iterator[DocumentPart]:
                yield whole_part(parse(path))  # read when the parts are asked for, as the reader process does

            yield read_whole
            return
        worker = ParseWorker(self._options.limits, self._options.parser)
        try:
            worker.start()
            yield lambda path, stopped, resume, on_page: worker.parts(path, resume, stopped, on_page)
        finally:
            worker.close()


def _chunk_size_note(used: int, setting: int, max_seq_length: int) -> str:
    if used < setting:
        return (f"chunks of {used} tokens: kb.chunk_tokens is {setting}, but the embedding model reads "
                f"at most {max_seq_length} tokens (2 are its own markers)")
    return f"chunks of {used} tokens"


def _default_chunk() -> ChunkDocument:
    from app.core.kb.chunker import chunk_document

    def chunk(document: Any, count_tokens: Any, chunk_tokens: int, overlap_tokens: int) -> Any:
        return chunk_document(document, count_tokens, chunk_tokens, overlap_tokens)

    return chunk
