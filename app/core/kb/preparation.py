"""Reading one file for indexing (size check, hash, parse, chunk), off the embedding thread; never raises."""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.core.kb.documents import Chunk, ParsedDocument
from app.core.kb.ingest_plan import WorkItem

log = logging.getLogger(__name__)

_HASH_BLOCK = 1024 * 1024
# Failures whose stored reason keeps its hint: what to do about a limit is not obvious.
_WITH_HINT = frozenset({"too-large", "timeout", "crashed"})

CountTokens = Callable[[str], int]
Parse = Callable[[Path], ParsedDocument]
Stopped = Callable[[], bool]
Read = Callable[[Path, Stopped], ParsedDocument | None]
"""Parse, or None when ``Stopped()`` turned true meanwhile (the run was cancelled)."""
ChunkDocument = Callable[[ParsedDocument, CountTokens, int, int], list[Chunk]]


@dataclass(frozen=True)
class PreparedDocument:
    """A file read and cut into chunks, ready to embed."""

    item: WorkItem
    content_hash: str
    size: int
    mtime_ns: int
    format: str
    title: str
    pages: int
    chunks: tuple[Chunk, ...]
    notes: tuple[str, ...] = ()


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


@dataclass(frozen=True)
class CancelledDocument:
    """The run was cancelled while the file was read: it stays as it was and is read next time."""

    item: WorkItem


Outcome = PreparedDocument | UnchangedDocument | FailedDocument | CancelledDocument


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

    parse: Read
    chunk: ChunkDocument
    count_tokens: CountTokens
    chunk_tokens: int
    overlap_tokens: int
    max_file_bytes: int | None = None

    def __call__(self, item: WorkItem, stopped: Stopped = lambda: False) -> Outcome:
        from app.core.kb.parse_worker import ParseLimits, too_large
        from app.core.kb.parsers.errors import DocumentError

        path = item.path
        try:
            stat = os.stat(path)
            if self.max_file_bytes is not None:
                refused = too_large(path, stat.st_size, ParseLimits(max_file_bytes=self.max_file_bytes))
                if refused is not None:
                    return FailedDocument(item, refused.kind, refused.text)
            content_hash = hash_file(path)
        except FileNotFoundError:
            return FailedDocument(item, "missing", f"{path}: the file is gone (moved or deleted)")
        except IsADirectoryError:
            return FailedDocument(item, "unreadable", f"{path}: is a folder, not a file")
        except OSError as error:
            return FailedDocument(item, "unreadable", f"{path}: cannot be read ({error.strerror or error})")
        if item.previous_hash is not None and item.previous_hash == content_hash:
            return UnchangedDocument(item, stat.st_size, stat.st_mtime_ns)
        try:
            parsed = self.parse(path, stopped)
            if parsed is None:
                return CancelledDocument(item)
            chunks = self.chunk(parsed, self.count_tokens, self.chunk_tokens, self.overlap_tokens)
        except DocumentError as error:
            return FailedDocument(item, error.kind, error.text if error.kind in _WITH_HINT else error.message)
        except FileNotFoundError:
            return FailedDocument(item, "missing", f"{path}: the file is gone (moved or deleted)")
        except MemoryError:
            return FailedDocument(item, "unreadable", f"{path}: too large to read in the memory available")
        except Exception as error:  # a parser bug must not stop the other files
            log.exception("reading %s failed", path)
            return FailedDocument(item, "unreadable", f"{path}: cannot be read ({type(error).__name__}: {error})")
        if not chunks:
            return FailedDocument(item, "empty", f"{path}: contains no text to index")
        return PreparedDocument(
            item=item,
            content_hash=content_hash,
            size=stat.st_size,
            mtime_ns=stat.st_mtime_ns,
            format=parsed.format,
            title=parsed.title,
            pages=len(parsed.pages),
            chunks=tuple(chunks),
            notes=parsed.notes,
        )
