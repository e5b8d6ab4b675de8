"""Watching added folders by polling: portable, no extra dependency, debounced.

Each poll lists a folder with the same discovery rules as indexing and compares sizes and
mtimes with what the documents table holds. A difference is reported only once two polls in a
row see the folder the same (files still being copied are left alone until they settle).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from app.core.kb.ingest_plan import Discover
from app.core.kb.progress import FileProblem

log = logging.getLogger(__name__)

FolderState = dict[str, tuple[int, int]]
"""path -> (size, mtime_ns) of the files in a folder."""


def scan_folder(folder: Path, discover: Discover) -> FolderState:
    """The indexable files under ``folder`` now (problems are ignored here; indexing reports them)."""

    def ignore(problem: FileProblem) -> None:
        log.debug("watch: %s", problem.message)

    return {str(found.path): (found.size, found.mtime_ns) for found in discover([folder], ignore)}


class FolderChangeDetector:
    """Pure decision logic of the watcher: which folders changed and have settled since last poll."""

    def __init__(self) -> None:
        self._last_seen: dict[str, FolderState] = {}

    def settled_changes(self, scans: Mapping[str, FolderState], known: Mapping[str, FolderState]) -> list[str]:
        """Folders whose scan differs from ``known`` and equals the previous poll's scan."""
        changed: list[str] = []
        for folder, state in scans.items():
            previous = self._last_seen.get(folder)
            self._last_seen[folder] = state
            if state != known.get(folder, {}) and previous == state:
                changed.append(folder)
        for folder in list(self._last_seen):
            if folder not in scans:
                del self._last_seen[folder]
        return changed


class FolderWatcher:
    """Polls ``folders()`` every ``interval`` seconds on its own thread; calls ``on_change(folders)``.

    ``known(folder)`` returns the documents table's view of a folder. ``on_change`` runs on the
    watcher thread and should only queue work (e.g. start an indexing job).
    """

    def __init__(
        self,
        folders: Callable[[], Sequence[str]],
        known: Callable[[str], FolderState],
        on_change: Callable[[list[str]], None],
        interval: float,
        discover: Discover,
    ) -> None:
        self._folders = folders
        self._known = known
        self._on_change = on_change
        self._interval = interval
        self._discover = discover
        self._detector = FolderChangeDetector()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def poll_once(self) -> list[str]:
        """One poll: scan every folder, report settled changes (also used by tests and at start)."""
        scans: dict[str, FolderState] = {}
        known: dict[str, FolderState] = {}
        for folder in self._folders():
            path = Path(folder)
            if not path.is_dir():  # unplugged drive or deleted folder: leave its documents alone
                continue
            scans[folder] = scan_folder(path, self._discover)
            known[folder] = self._known(folder)
        changed = self._detector.settled_changes(scans, known)
        if changed:
            self._on_change(changed)
        return changed

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="kb-watch", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _loop(self) -> None:
        while not self._stop.wait(self._interval):
            try:
                self.poll_once()
            except Exception:  # a bad poll must not end watching
                log.exception("watching folders failed")
