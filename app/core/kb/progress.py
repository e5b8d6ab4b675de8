"""Progress of an indexing run: a thread-safe tracker and the immutable snapshots it hands out."""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

PAGE_SKIPPED = "page-skipped"
"""The kind of problem of a file indexed without one of its pages (see app.core.kb.parse_worker)."""


@dataclass(frozen=True)
class FileProblem:
    """One file that could not be indexed (or a folder that could not be read), or a page of one that was
    skipped (kind PAGE_SKIPPED)."""

    path: str
    kind: str
    message: str


@dataclass(frozen=True)
class IndexingProgress:
    """Where an indexing run stands. ``phase``: starting, scanning, indexing, re-embedding,
    cleaning, finished, cancelled or failed."""

    phase: str = "starting"
    files_total: int = 0
    files_done: int = 0
    files_indexed: int = 0
    files_skipped: int = 0
    files_failed: int = 0
    files_removed: int = 0
    chunks_done: int = 0
    chunks_per_second: float = 0.0
    eta_seconds: float | None = None
    elapsed_seconds: float = 0.0
    current_file: str | None = None
    problems: tuple[FileProblem, ...] = ()
    chunk_tokens: int = 0
    message: str = ""
    paused: bool = False
    """Waiting for the user's answer or search to finish (see app.core.kb.step_aside)."""
    paused_seconds: float = 0.0
    files_searchable: int = 0
    """Files read and committed in this run: findable by keywords (``files_indexed``: embedded as well)."""
    chunks_total: int = 0
    """Chunks found to embed so far (grows while files are read)."""
    ocr_page: int = 0
    """The page of ``current_file`` being recognised by OCR (0: none), of ``ocr_pages``."""
    ocr_pages: int = 0

    @property
    def finished(self) -> bool:
        return self.phase in ("finished", "cancelled", "failed")

    def to_dict(self) -> dict[str, Any]:
        document = asdict(self)
        document["problems"] = [asdict(problem) for problem in self.problems]
        return document


@dataclass
class _Counters:
    bytes_total: int = 0
    bytes_done: int = 0
    started: float = field(default_factory=time.monotonic)
    indexing_started: float | None = None
    paused_total: float = 0.0
    paused_since: float | None = None

    def paused_seconds(self, now: float) -> float:
        return self.paused_total + (now - self.paused_since if self.paused_since is not None else 0.0)


class ProgressTracker:
    """Updated by the indexing worker, read by anyone (GUI timer, CLI) through :meth:`snapshot`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = IndexingProgress()
        self._counters = _Counters()

    def snapshot(self) -> IndexingProgress:
        """The progress now; rate and ETA count only time spent indexing, not paused."""
        with self._lock:
            now = time.monotonic()
            since = self._counters.indexing_started
            paused_seconds = self._counters.paused_seconds(now)
            indexing_seconds = max(0.0, now - since - paused_seconds) if since is not None else 0.0
            return replace(
                self._state,
                elapsed_seconds=now - self._counters.started,
                paused_seconds=paused_seconds,
                chunks_per_second=self._state.chunks_done / indexing_seconds if indexing_seconds > 0 else 0.0,
                eta_seconds=self._eta(indexing_seconds),
            )

    def _eta(self, indexing_seconds: float) -> float | None:
        counters = self._counters
        if self._state.phase != "indexing" or counters.bytes_done <= 0 or indexing_seconds <= 0:
            return None
        remaining = max(0, counters.bytes_total - counters.bytes_done)
        return remaining / (counters.bytes_done / indexing_seconds)

    def update(self, **changes: Any) -> None:
        """Set fields of the progress (e.g. ``phase="scanning"``); rates count from "indexing" on."""
        with self._lock:
            if changes.get("phase") == "indexing" and self._counters.indexing_started is None:
                self._counters.indexing_started = time.monotonic()
            self._state = replace(self._state, **changes)

    def pause(self) -> None:
        """Indexing waits for the foreground (time from now on does not count against the rate)."""
        with self._lock:
            if self._counters.paused_since is None:
                self._counters.paused_since = time.monotonic()
                self._state = replace(self._state, paused=True)

    def resume(self) -> None:
        with self._lock:
            since = self._counters.paused_since
            if since is not None:
                self._counters.paused_total += time.monotonic() - since
                self._counters.paused_since = None
                self._state = replace(self._state, paused=False)

    def file_searchable(self) -> None:
        """One more file was read and committed: keyword search finds it (its vectors may follow)."""
        with self._lock:
            self._state = replace(self._state, files_searchable=self._state.files_searchable + 1)

    def chunks_found(self, count: int) -> None:
        """``count`` more chunks wait to be embedded."""
        with self._lock:
            self._state = replace(self._state, chunks_total=self._state.chunks_total + count)

    def update_chunks(self, count: int) -> None:
        """``count`` more chunks were embedded and stored."""
        with self._lock:
            self._state = replace(self._state, chunks_done=self._state.chunks_done + count)

    def planned(self, files_total: int, bytes_total: int, files_skipped: int, files_removed: int) -> None:
        with self._lock:
            self._counters.bytes_total = bytes_total
            self._state = replace(
                self._state, files_total=files_total, files_skipped=files_skipped, files_removed=files_removed
            )

    def file_finished(self, size: int, *, indexed: bool, skipped: bool = False) -> None:
        with self._lock:
            self._counters.bytes_done += size
            state = self._state
            self._state = replace(
                state,
                files_done=state.files_done + 1,
                files_indexed=state.files_indexed + (1 if indexed else 0),
                files_skipped=state.files_skipped + (1 if skipped else 0),
            )

    def advance(self, files: int) -> None:
        """``files`` more files done in a phase that only counts them (re-embedding)."""
        with self._lock:
            self._state = replace(self._state, files_done=self._state.files_done + files)

    def file_failed(self, size: int, problem: FileProblem) -> None:
        with self._lock:
            self._counters.bytes_done += size
            state = self._state
            self._state = replace(
                state,
                files_done=state.files_done + 1,
                files_failed=state.files_failed + 1,
                problems=(*state.problems, problem),
            )

    def problem(self, problem: FileProblem) -> None:
        """A problem that is not one counted file (e.g. a folder that cannot be read)."""
        with self._lock:
            self._state = replace(self._state, problems=(*self._state.problems, problem))
