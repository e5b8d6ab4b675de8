"""JobWatcher: the window's one way to watch core jobs (answers, indexing, downloads) from a GUI timer."""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QObject, Qt, QTimer, Signal


class WatchedJob(Protocol):
    """What the watcher reads of a :class:`~app.core.util.jobs.Job` (every core job has it)."""

    @property
    def done(self) -> bool: ...

    def progress(self) -> Any: ...


AnyJob = WatchedJob


class JobWatcher(QObject):
    """Reads every watched job's snapshot on one GUI timer that runs only while some job runs.

    Each tick, for each job: ``progressed(job, snapshot)``, then ``ended(job)`` once the job is done
    (it is read as done *before* its snapshot is taken, so the last snapshot is final). After a tick,
    ``ticked()``. Jobs run on their own threads: the watcher only reads, so a slow slot never slows
    the work. Watching a job that is already watched does nothing.
    """

    progressed = Signal(object, object)
    ended = Signal(object)
    ticked = Signal()

    def __init__(self, interval_ms: int, parent: QObject | None = None, *, precise: bool = False) -> None:
        super().__init__(parent)
        self._jobs: list[AnyJob] = []
        self._timer = QTimer(self)
        if precise:  # frame-paced readers (streaming text) want even ticks
            self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.tick)

    def watch(self, job: AnyJob) -> None:
        """Start reading ``job`` on the timer (it may already run or even be done)."""
        if any(watched is job for watched in self._jobs):
            return
        self._jobs.append(job)
        if not self._timer.isActive():
            self._timer.start()

    def forget(self, job: AnyJob) -> None:
        """Stop reading ``job`` (no more signals about it)."""
        self._jobs = [watched for watched in self._jobs if watched is not job]
        if not self._jobs:
            self._timer.stop()

    @property
    def active(self) -> bool:
        """True while the timer runs (only while some watched job has not been reported ended)."""
        return self._timer.isActive()

    @property
    def jobs(self) -> tuple[AnyJob, ...]:
        """The jobs being watched (those that have not been reported ended)."""
        return tuple(self._jobs)

    def tick(self) -> None:
        """Read every job once now (the timer calls this; so may anyone who wants a fresh look)."""
        for job in list(self._jobs):
            done = job.done
            self.progressed.emit(job, job.progress())
            if done and any(watched is job for watched in self._jobs):
                self.forget(job)
                self.ended.emit(job)
        if not self._jobs:
            self._timer.stop()
        self.ticked.emit()

    def stop(self) -> None:
        """Stop reading every job (shutdown); the jobs themselves keep running."""
        self._timer.stop()
        self._jobs = []
