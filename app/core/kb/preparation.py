"""Reading one file for indexing (size check, hash, then its parts read and chunked one by one), off the
embedding thread; never raises (a failure while the parts stream is turned into one by :func:`failure_of`)."""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from app.core.kb.documents import Chunk, DocumentPart, ParsedDocument
from app.core.kb.ingest_plan import WorkItem
from app.core.kb.reading_progress import ReadingState

log = logging.getLogger(__name__)

_HASH_BLOCK = 1024 * 1024
# Failures whose stored reason keeps its hint: what to do about a limit is not obvious.
_WITH_HINT = frozenset({"too-large", "timeout", "crashed"})

CountTokens = Callable[[str], int]
Parse = Callable[[Path], ParsedDocument]
Stopped = Callable[[], bool]
PageStarted = Callable[[int, int], None]
"""Told (page number, pages) when a slow page (OCR) of the file being read starts."""
Read = Callable[[Path, Stopped, "str | None", "PageStarted | None"], Iterator[DocumentPart]]
"""The parts of a file from a resume token (None: the start); ends early once ``Stopped()`` turned true."""
ChunkDocument = Callable[[ParsedDocument, CountTokens, int, int], list[Chunk]]


@dataclass(frozen=True)
class PreparedPart:
    """A part read and cut into chunks (ordinals continue the document's), ready to commit."""

    part: DocumentPart
    chunks: tuple[Chunk, ...]

    @property
    def last(self) -> bool:
        return self.part.resume_after is None


@dataclass(frozen=True)
class StreamedDocument:
    """A file whose parts are read and chunked as ``parts`` is iterated (it may raise: see failure_of).

    ``resumed``: the state of an earlier reading of this same content that stopped midway (its parts are
    committed; ``parts`` starts after them), else None (a fresh reading).
    """

    item: WorkItem
    content_hash: str
    size: int
    mtime_ns: int
    resumed: ReadingState | None
    parts: Iterator[PreparedPart]


@dataclass(frozen=True)
class UnchangedDocument:
    """The file's mtime changed but its content did not."""

    item: WorkItem
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class FailedDocument:
    item: WorkItem
    kind: str
    message: str


Outcome = StreamedDocument | UnchangedDocument | FailedDocument


def hash_file(path: Path) -> str:
    """SHA-256 of the file's bytes, read in blocks (files of any size)."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(_HASH_BLOCK):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class Preparer:
    """Turns a work item into an outcome with the given reader, chunker and token counter.

    ``max_file_bytes``: larger files fail as ``too-large`` without being read.
    """

    read: Read
    chunk: ChunkDocument
    count_tokens: CountTokens
    chunk_tokens: int
    overlap_tokens: int
    max_file_bytes: int | None = None

    def __call__(
        self, item: WorkItem, stopped: Stopped = lambda: False, resumed: ReadingState | None = None,
        on_page: PageStarted | None = None,
    ) -> Outcome:
        """``resumed``: where an earlier reading of the file stopped (used when the content is still the same)."""
        from app.core.kb.parse_worker import ParseLimits, too_large

        path = item.path
        try:
            stat = os.stat(path)
            if self.max_file_bytes is not None:
                refused = too_large(path, stat.st_size, ParseLimits(max_file_bytes=self.max_file_bytes))
                if refused is not None:
                    return FailedDocument(item, refused.kind, refused.text)
            content_hash = hash_file(path)
        except OSError as error:
            return failure_of(item, error)
        if item.previous_hash is not None and item.previous_hash == content_hash:
            return UnchangedDocument(item, stat.st_size, stat.st_mtime_ns)
        if resumed is not None and resumed.content_hash != content_hash:
            resumed = None  # the file changed since: read it afresh
        try:
            parts = self.read(path, stopped, None if resumed is None else resumed.resume_after, on_page)
        except Exception as error:
            return failure_of(item, error)
        first = 0 if resumed is None else resumed.next_ordinal
        return StreamedDocument(item, content_hash, stat.st_size, stat.st_mtime_ns, resumed,
                                self._chunked(item, parts, first))

    def _chunked(self, item: WorkItem, parts: Iterator[DocumentPart], ordinal: int) -> Iterator[PreparedPart]:
        try:
            for part in parts:
                chunks: list[Chunk] = []
                if part.pages:
                    document = ParsedDocument(item.path, part.format, part.title, part.pages, part.encoding,
                                              part.notes)
                    found = self.chunk(document, self.count_tokens, self.chunk_tokens, self.overlap_tokens)
                    chunks = [dataclasses.replace(chunk, ordinal=ordinal + index) for index, chunk in enumerate(found)]
                ordinal += len(chunks)
                yield PreparedPart(part, tuple(chunks))
        finally:
            close_parts(parts)


def close_parts(parts: Iterator[object]) -> None:
    """Stop a stream of parts that was not read to its end (the reader process may be midway)."""
    close = getattr(parts, "close", None)
    if close is not None:
        close()


def failure_of(item: WorkItem, error: BaseException) -> FailedDocument:
    """What a failure to read or chunk ``item`` means for it (MemoryError and parser bugs included)."""
    from app.core.kb.parsers.errors import DocumentError

    path = item.path
    if isinstance(error, DocumentError):
        return FailedDocument(item, error.kind, error.text if error.kind in _WITH_HINT else error.message)
    if isinstance(error, FileNotFoundError):
        return FailedDocument(item, "missing", f"{path}: the file is gone (moved or deleted)")
    if isinstance(error, IsADirectoryError):
        return FailedDocument(item, "unreadable", f"{path}: is a folder, not a file")
    if isinstance(error, OSError):
        return FailedDocument(item, "unreadable", f"{path}: cannot be read ({error.strerror or error})")
    if isinstance(error, MemoryError):
        return FailedDocument(item, "unreadable", f"{path}: too large to read in the memory available")
    log.error("reading %s failed", path, exc_info=error)  # a parser bug must not stop the other files
    return FailedDocument(item, "unreadable", f"{path}: cannot be read ({type(error).__name__}: {error})")
