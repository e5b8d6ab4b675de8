"""Deciding what an ``add`` has to do: new files, changed ones, unchanged ones, vanished ones.

Unchanged size and mtime: skipped without reading the file. Changed mtime: queued with the hash
of the indexed version, so the worker can skip it after hashing if the content is the same.
Files gone from an added folder are removed. Documents left pending by an earlier run resume, unless
reading them was interrupted too often (see :mod:`~app.core.kb.read_attempts`): those fail instead.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from app.core.kb.catalog import (
    DocumentRecord,
    DocumentStatus,
    delete_document,
    insert_pending,
    list_documents,
    mark_failed,
    set_source_folder,
)
from app.core.kb.progress import FileProblem
from app.core.kb.read_attempts import MAX_INTERRUPTED, end_attempt, forget_attempts, interrupted
from app.core.util.sqlite import transaction

ProblemSink = Callable[[FileProblem], None]
_INSERT_BATCH = 500


@dataclass(frozen=True)
class FoundFile:
    path: Path
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class WorkItem:
    """One document to (re)index. ``previous_hash``: the content hash of its indexed version."""

    document_id: int
    path: Path
    size: int
    mtime_ns: int
    previous_hash: str | None = None


@dataclass(frozen=True)
class IngestPlan:
    work: tuple[WorkItem, ...]
    skipped: int
    removed: tuple[int, ...]
    folders: tuple[str, ...]
    interrupted: tuple[tuple[WorkItem, FileProblem], ...] = ()
    """Files whose reading was interrupted too often: marked failed, not read again."""

    @property
    def bytes_total(self) -> int:
        return sum(item.size for item in self.work)


Discover = Callable[[Sequence[Path], ProblemSink], Iterable[FoundFile]]


def plan_ingestion(
    connection: sqlite3.Connection,
    paths: Sequence[Path],
    discover: Discover,
    on_problem: ProblemSink,
    *,
    remove_vanished: bool = True,
) -> IngestPlan:
    """Walk ``paths`` (files and folders), record new files as pending and return the work to do."""
    known = {record.path: record for record in list_documents(connection)}
    work: dict[int, WorkItem] = {}
    skipped = 0
    removed: list[int] = []
    folders: list[str] = []
    for root in (Path(os.path.abspath(path.expanduser())) for path in paths):
        if not root.exists():
            problem = FileProblem(str(root), "missing", f"{root}: no such file or folder")
            on_problem(problem)
            record = known.get(str(root))
            if record is not None:  # a document added before whose file is gone now
                with transaction(connection):
                    mark_failed(connection, record.id, problem.kind, problem.message)
            continue
        folder = str(root) if root.is_dir() else None
        if folder is not None:
            folders.append(folder)
            _watch_folder(connection, folder)
        folder_problems: list[FileProblem] = []

        def record_problem(problem: FileProblem, sink: list[FileProblem] = folder_problems) -> None:
            sink.append(problem)
            on_problem(problem)

        seen: set[str] = set()
        new_files: list[FoundFile] = []
        for found in discover([root], record_problem):
            key = str(found.path)
            seen.add(key)
            record = known.get(key)
            if record is None:
                new_files.append(found)
                continue
            if folder is not None and record.source_folder is None:
                set_source_folder(connection, record.id, folder)
            item = _decide(record, found)
            if item is None:
                skipped += 1
            else:
                work[record.id] = item
        for document_id, found in _insert_new(connection, new_files, folder):
            known[str(found.path)] = _placeholder(document_id, found)
            work[document_id] = WorkItem(document_id, found.path, found.size, found.mtime_ns)
        if folder is not None and remove_vanished:
            removed.extend(_remove_vanished(connection, known, folder, seen, folder_problems))
    for record in list_documents(connection, (DocumentStatus.PENDING, DocumentStatus.INDEXING)):
        if record.id not in work:  # left over by an interrupted run: resume it
            work[record.id] = WorkItem(record.id, Path(record.path), record.size, record.mtime_ns)
    given_up = _give_up_on_interrupted(connection, work)
    for _, problem in given_up:
        on_problem(problem)
    return IngestPlan(tuple(work.values()), skipped, tuple(removed), tuple(folders), tuple(given_up))


def _give_up_on_interrupted(
    connection: sqlite3.Connection, work: dict[int, WorkItem]
) -> list[tuple[WorkItem, FileProblem]]:
    """Fail (and drop from ``work``) the files whose reading the app did not survive MAX_INTERRUPTED times,
    unless they changed since (then they are read afresh)."""
    given_up: list[tuple[WorkItem, FileProblem]] = []
    for document_id, attempt in interrupted(connection).items():
        item = work.get(document_id)
        if item is None:
            continue
        tries = attempt.attempts
        with transaction(connection):
            if (attempt.size, attempt.mtime_ns) != _stat(item.path):  # changed since: a new file to try
                forget_attempts(connection, document_id)
                continue
            if tries < MAX_INTERRUPTED:
                continue
            message = (f"{item.path}: reading it was interrupted {tries} times (the app stopped meanwhile) "
                       "It is not retried until it changes; remove it and add it again to retry.")
            mark_failed(connection, document_id, "crashed", message, item.size, item.mtime_ns)
            end_attempt(connection, document_id)
        del work[document_id]
        given_up.append((item, FileProblem(str(item.path), "crashed", message)))
    return given_up


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


def _decide(record: DocumentRecord, found: FoundFile) -> WorkItem | None:
    same_stat = record.size == found.size and record.mtime_ns == found.mtime_ns
    if same_stat and record.status in (DocumentStatus.INDEXED, DocumentStatus.FAILED):
        return None
    previous = record.content_hash if record.status is DocumentStatus.INDEXED else None
    return WorkItem(record.id, found.path, found.size, found.mtime_ns, previous)


def _insert_new(
    connection: sqlite3.Connection, files: list[FoundFile], folder: str | None
) -> Iterator[tuple[int, FoundFile]]:
    for start in range(0, len(files), _INSERT_BATCH):
        batch = files[start : start + _INSERT_BATCH]
        with transaction(connection):
            ids = [insert_pending(connection, str(f.path), f.size, f.mtime_ns, folder) for f in batch]
        yield from zip(ids, batch, strict=True)


def _placeholder(document_id: int, found: FoundFile) -> DocumentRecord:
    now = time.time()
    return DocumentRecord(
        document_id, str(found.path), None, None, found.size, found.mtime_ns, None, None, 0, 0,
        DocumentStatus.PENDING, None, None, None, now, now,
    )


def _remove_vanished(
    connection: sqlite3.Connection,
    known: dict[str, DocumentRecord],
    folder: str,
    seen: set[str],
    problems: list[FileProblem],
) -> list[int]:
    """Delete documents of ``folder`` that discovery no longer finds (not those under a problem path)."""
    blocked = [Path(problem.path) for problem in problems]
    vanished = [
        record for record in known.values()
        if record.source_folder == folder and record.path not in seen
        and not any(Path(record.path).is_relative_to(path) for path in blocked)
    ]
    if vanished:
        with transaction(connection):
            for record in vanished:
                delete_document(connection, record.id)
        for record in vanished:
            known.pop(record.path, None)
    return [record.id for record in vanished]


def _watch_folder(connection: sqlite3.Connection, folder: str) -> None:
    connection.execute(
        "INSERT OR IGNORE INTO watched_folders (path, added_at) VALUES (?, ?)", (folder, time.time())
    )


def watched_folders(connection: sqlite3.Connection) -> list[str]:
    rows = connection.execute("SELECT path FROM watched_folders ORDER BY added_at").fetchall()
    return [str(row["path"]) for row in rows]


def forget_folder(connection: sqlite3.Connection, folder: str) -> None:
    connection.execute("DELETE FROM watched_folders WHERE path = ?", (folder, ))


def request_paths(connection: sqlite3.Connection, paths: Sequence[Path]) -> None:
    """Remember that ``paths`` were asked to be added, until a run has planned them (see :func:`requested_paths`)."""
    now = time.time()
    connection.executemany("INSERT OR IGNORE INTO requested_paths (path, requested_at) VALUES (?, ?)",
                           [(str(path), now) for path in paths])


def requested_paths(connection: sqlite3.Connection) -> list[Path]:
    """Paths asked for that no finished plan has taken yet (the app quit while they waited), oldest first."""
    rows = connection.execute("SELECT path FROM requested_paths ORDER BY requested_at, path").fetchall()
    return [Path(str(row["path"])) for row in rows]


def planned_paths(connection: sqlite3.Connection, paths: Sequence[Path]) -> None:
    """Forget requests that a run has planned (their documents are in the catalog now, or reported)."""
    connection.executemany("DELETE FROM requested_paths WHERE path = ?", [(str(path),) for path in paths])
