"""Every uncaught error, in any thread, is logged with its traceback and reported to a listener."""

from __future__ import annotations

import logging
import sys
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from types import TracebackType

log = logging.getLogger("unidesk.uncaught")


@dataclass(frozen=True)
class UncaughtError:
    """An error nothing handled: where (thread name), what (one line) and the full traceback."""

    thread: str
    summary: str
    details: str


ErrorListener = Callable[[UncaughtError], None]


@dataclass(frozen=True)
class _PreviousHooks:
    excepthook: Callable[[type[BaseException], BaseException, TracebackType | None], object]
    threading_hook: Callable[[threading.ExceptHookArgs], object]


class UncaughtErrorHooks:
    """Installed as ``sys.excepthook`` (the main thread, and Qt slots, which PySide reports through it) and
    ``threading.excepthook``; :meth:`uninstall` puts the previous hooks back. ``listener`` runs on the
    failing thread (a window marshals it to its own thread); KeyboardInterrupt keeps its usual handling."""

    def __init__(self, listener: ErrorListener | None = None) -> None:
        self.listener = listener
        self._previous: _PreviousHooks | None = None

    def install(self) -> UncaughtErrorHooks:
        if self._previous is None:
            self._previous = _PreviousHooks(sys.excepthook, threading.excepthook)
            sys.excepthook = self._on_main
            threading.excepthook = self._on_thread
        return self

    def uninstall(self) -> None:
        previous, self._previous = self._previous, None
        if previous is not None:
            sys.excepthook = previous.excepthook
            threading.excepthook = previous.threading_hook

    def _on_main(self, kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt) and self._previous is not None:
            self._previous.excepthook(kind, error, trace)
            return
        self._report(threading.current_thread().name, kind, error, trace)

    def _on_thread(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit:
            return
        name = args.thread.name if args.thread is not None else "?"
        self._report(name, args.exc_type, args.exc_value, args.exc_traceback)

    def _report(self, thread: str, kind: type[BaseException], error: BaseException | None,
                trace: TracebackType | None) -> None:
        details = "".join(traceback.format_exception(kind, error, trace))
        summary = f"{kind.__name__}: {error}" if error is not None and str(error) else kind.__name__
        log.critical("uncaught error in thread %s:\n%s", thread, details.rstrip())
        if self.listener is not None:
            try:
                self.listener(UncaughtError(thread, summary, details))
            except Exception:  # the listener must never hide the error it reports
                log.exception("reporting an uncaught error failed")
        if sys.stderr is not None:
            print(f"unidesk: uncaught error in thread {thread}: {summary}", file=sys.stderr)
