"""Job: long work on its own worker thread that reports progress, can be cancelled, and ends once."""

from __future__ import annotations

import logging
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, Generic, Self, TypeVar, cast

log = logging.getLogger(__name__)

R = TypeVar("R")
"""What a job gives back when it ends well."""
P = TypeVar("P", covariant=True)
"""A snapshot of where a job stands."""


class Job(ABC, Generic[R, P]):
    """One piece of long work (an answer, an indexing run, a download) on a daemon thread of its own.

    Subclasses write :meth:`_run` (on the worker: returns the result or raises) and :meth:`progress`
    (a cheap, thread-safe snapshot that readers poll: a GUI timer, a terminal loop). Everyone else
    sees the same surface: :meth:`start` (once), :meth:`progress`, :attr:`done`, :attr:`error`,
    :meth:`cancel` (a request; the work stops at its next checkpoint), :meth:`join` (wait without
    raising) and :meth:`wait` (the result, or the error that ended the job). ``on_finished`` runs on
    the worker once the job has ended, however it ended.
    """

    def __init__(self, name: str, *, on_finished: Callable[[Self], None] | None = None) -> None:
        self.name = name
        """The worker thread's name (shows in logs and debuggers)."""
        self._on_finished: Callable[[Any], None] | None = on_finished
        self._start_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._result: R | None = None
        self._error: BaseException | None = None

    # ---- for subclasses ----------------------------------------------------------------------
    @abstractmethod
    def _run(self) -> R:
        """The work, on the worker thread. Check :attr:`cancelled` (or :attr:`cancel_event`) between steps."""

    @abstractmethod
    def progress(self) -> P:
        """Where the job stands now (cheap, thread-safe, any thread)."""

    def _failed(self, error: BaseException) -> None:
        """Called on the worker when :meth:`_run` raised ``error``; subclasses also update their snapshot."""
        log.error("%s failed", self.name, exc_info=error)

    def _record_error(self, error: BaseException) -> None:
        """Make ``error`` what :meth:`wait` raises although :meth:`_run` returns (e.g. a result kept for saving)."""
        self._error = error

    @property
    def cancel_event(self) -> threading.Event:
        """Set by :meth:`cancel`; hand it to code that waits or checks between steps."""
        return self._cancel

    # ---- for everyone ------------------------------------------------------------------------
    def start(self) -> Self:
        """Start the worker thread (only once); returns the job."""
        with self._start_lock:
            if self._thread is not None:
                raise RuntimeError(f"the {self.name} job can be started only once")
            self._thread = threading.Thread(target=self._work, name=self.name, daemon=True)
        self._thread.start()
        return self

    def _work(self) -> None:
        try:
            self._result = self._run()
        except BaseException as error:  # reported through wait(), error and the progress snapshot
            self._error = error
            self._failed(error)
        finally:
            self._done.set()
            if self._on_finished is not None:
                try:
                    self._on_finished(self)
                except Exception:
                    log.exception("after the %s job ended, its on_finished failed", self.name)

    def cancel(self) -> None:
        """Ask the job to stop; it ends at its next checkpoint (what it has finished stays)."""
        self._cancel.set()

    @property
    def cancelled(self) -> bool:
        """True once :meth:`cancel` was called."""
        return self._cancel.is_set()

    @property
    def started(self) -> bool:
        return self._thread is not None

    @property
    def done(self) -> bool:
        """True once the job has ended, however it ended."""
        return self._done.is_set()

    @property
    def error(self) -> BaseException | None:
        """What ended the job, if it failed."""
        return self._error

    def join(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds (None: for ever) for the job to end, without raising; whether it ended."""
        return self._done.wait(timeout)

    def wait(self, timeout: float | None = None) -> R:
        """Block until the job ends: its result, or the error that ended it (TimeoutError after ``timeout`` s)."""
        if not self._done.wait(timeout):
            raise TimeoutError(f"the {self.name} job is still running")
        if self._error is not None:
            raise self._error
        return cast(R, self._result)
