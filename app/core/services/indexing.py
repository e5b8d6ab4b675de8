"""Indexing as a background :class:`Job` (own worker thread, progress snapshots, cancel) and folder watching."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

from app.core.kb.indexer import IndexingSummary, default_discover
from app.core.kb.knowledge_base import KnowledgeBase
from app.core.kb.progress import IndexingProgress, ProgressTracker
from app.core.kb.step_aside import ForegroundBusy
from app.core.kb.watch import FolderWatcher
from app.core.util.jobs import Job

log = logging.getLogger(__name__)


class IndexingJob(Job[IndexingSummary, IndexingProgress]):
    """Adds files and folders to a knowledge base on a worker thread (a :class:`Job`).

    ``progress()`` is cheap and thread-safe (poll it from a GUI timer); ``cancel()`` stops the
    job between batches, keeping every committed document; ``wait()`` returns the summary or
    raises what made the job fail. ``on_finished`` (optional) runs on the worker thread.
    ``foreground_busy`` (optional): while it says True, the job waits between batches.
    """

    def __init__(
        self,
        knowledge_base: KnowledgeBase,
        paths: Sequence[Path],
        *,
        on_finished: Callable[[IndexingJob], None] | None = None,
        foreground_busy: ForegroundBusy | None = None,
    ) -> None:
        super().__init__("kb-indexing", on_finished=on_finished)
        self._knowledge_base = knowledge_base
        self.paths = tuple(paths)
        self._foreground_busy = foreground_busy
        self._tracker = ProgressTracker()

    def _run(self) -> IndexingSummary:
        indexer = self._knowledge_base.indexer(foreground_busy=self._foreground_busy)
        return indexer.run(self.paths, self._tracker, self.cancel_event)

    def _failed(self, error: BaseException) -> None:
        log.error("indexing failed", exc_info=error)
        self._tracker.update(phase="failed", message=str(error), current_file=None)

    def cancel(self) -> None:
        """Stop after the current batch; finished documents stay, the rest resume next time."""
        super().cancel()

    def progress(self) -> IndexingProgress:
        return self._tracker.snapshot()


class IndexingService:
    """One indexing job at a time for a knowledge base, plus watching of its added folders.

    Requests made while a job runs are merged and run next. With ``watch_interval`` > 0 the
    folders the user added are polled and changes are indexed the same way. Jobs wait between
    batches while ``foreground_busy`` says True (e.g. the engine manager's ``generating``).
    """

    def __init__(
        self,
        knowledge_base: KnowledgeBase,
        *,
        watch_interval: float = 0.0,
        foreground_busy: ForegroundBusy | None = None,
    ) -> None:
        self._knowledge_base = knowledge_base
        self._foreground_busy = foreground_busy
        self._lock = threading.Lock()
        self._current: IndexingJob | None = None
        self._queued: list[Path] = []
        self._queued_resume = False
        self._closed = False
        self._after_close: Callable[[], None] | None = None
        self._watcher = (
            FolderWatcher(knowledge_base.watched_folders, knowledge_base.folder_state,
                          self._folders_changed, watch_interval, default_discover)
            if watch_interval > 0 else None
        )

    @classmethod
    def from_settings(
        cls, knowledge_base: KnowledgeBase, foreground_busy: ForegroundBusy | None = None
    ) -> IndexingService:
        """A service that watches folders as often as ``kb.watch_interval_seconds`` says (0: never) and
        waits for ``foreground_busy`` when ``kb.pause_while_answering`` is on."""
        settings = knowledge_base.settings
        return cls(
            knowledge_base,
            watch_interval=float(settings.int_value("kb.watch_interval_seconds")),
            foreground_busy=foreground_busy if settings.bool_value("kb.pause_while_answering") else None,
        )

    def start(self) -> None:
        """Resume unfinished work from an earlier run and start watching."""
        self.request(())
        if self._watcher is not None:
            self._watcher.start()

    def request(self, paths: Sequence[Path]) -> None:
        """Index ``paths`` (none: resume and finish earlier work) now, or after the running job. The request is
        written to the knowledge base first: if the app quits before a run has planned it, the next start does."""
        self._knowledge_base.request(paths)
        with self._lock:
            if self._closed:
                return
            if self._current is not None and not self._current.done:
                self._queued.extend(path for path in paths if path not in self._queued)
                self._queued_resume = True
                return
            self._current = self._new_job(paths)

    def _new_job(self, paths: Sequence[Path]) -> IndexingJob:
        """A job for ``paths`` and for every request no run has planned yet (the app quit while they waited)."""
        wanted = list(dict.fromkeys([*paths, *self._knowledge_base.requested()]))
        return IndexingJob(self._knowledge_base, wanted, on_finished=self._job_finished,
                           foreground_busy=self._foreground_busy).start()

    @property
    def watching(self) -> bool:
        """Whether added folders are polled for changes."""
        return self._watcher is not None

    def current_job(self) -> IndexingJob | None:
        with self._lock:
            return self._current

    def _job_finished(self, job: IndexingJob) -> None:
        with self._lock:
            closed = self._closed
        if closed:
            self._run_after_close()
        with self._lock:
            if self._closed or job.cancelled or not (self._queued or self._queued_resume):
                return
            paths, self._queued, self._queued_resume = self._queued, [], False
            self._current = self._new_job(paths)

    def _folders_changed(self, folders: list[str]) -> None:
        log.info("folders changed: %s", ", ".join(folders))
        self.request([Path(folder) for folder in folders])

    def close(self, timeout: float = 10.0, *, then: Callable[[], None] | None = None) -> bool:
        """Stop watching, cancel the running job and wait for it (up to ``timeout`` seconds); whether it ended.

        ``then`` runs once no job runs any more: here, or on the job's thread when it ends later (a step that
        cannot be interrupted, such as the first import of the embedding library, can outlast ``timeout``).
        """
        with self._lock:
            self._closed = True
            job = self._current
            self._after_close = then
        if self._watcher is not None:
            self._watcher.stop()
        ended = True
        if job is not None:
            job.cancel()
            ended = job.join(timeout)
        if ended:
            self._run_after_close()
        return ended

    def _run_after_close(self) -> None:
        """Run the ``then`` of :meth:`close` once, on whichever thread sees the job end first."""
        with self._lock:
            after, self._after_close = self._after_close, None
        if after is not None:
            after()
