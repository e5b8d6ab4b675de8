"""A spawned child process's log records, written by the app's logging (its log file) as if logged here.

The parent makes a :class:`ChildLogs` before it starts the child and passes its :attr:`~ChildLogs.channel`
to it; the child calls :func:`send_logs_to_parent` first thing. From then on every record the child's
loggers pass (the app's modules, libraries such as sentence-transformers and transformers, and Python
warnings, through ``py.warnings``) goes to the parent as plain data: the message formatted and an exception
or stack formatted to text in the child, so nothing needs to be picklable. The records travel over a
one-way pipe of their own, so they never wait for, or delay, the child's replies on its other pipe.

In the parent, a thread re-emits each record through the logger ``<ChildLogs' logger>.<the child's logger
name>`` (the child's root logger: ``<ChildLogs' logger>`` itself) with the child's level, message, time,
process and thread. The child logs at the level that logger has in the parent when the child starts. The
thread ends when the child does, however it ends (exit, crash, ``kill -9``), after re-emitting what the
child sent before it ended; :meth:`ChildLogs.wait` waits for that.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.connection import wait as wait_for_any
from typing import Any, Final

from app.core.util.logging_setup import UNPROPAGATED_LOGGERS, OnceFilter, quiet_chatty_loggers

_KEPT_FIELDS: Final = ("name", "levelno", "levelname", "pathname", "filename", "module", "lineno", "funcName",
                       "created", "msecs", "thread", "threadName", "process", "processName", "stack_info")

@dataclass(frozen=True)
class LogChannel:
    """What the child needs to send its records (picklable when a process is spawned)."""

    connection: Connection
    level: int


class ChildLogs:
    """The parent's end of one child's records: ``logger_name`` is the logger they are re-emitted under.

    Use: ``logs = ChildLogs(context, name)``; start the child with ``logs.channel``; ``logs.listen(process)``
    once it has started; ``logs.wait(timeout)`` after it has ended.
    """

    def __init__(self, context: Any, logger_name: str) -> None:
        self.logger = logging.getLogger(logger_name)
        self._receiving, self._sending = context.Pipe(duplex=False)
        self._thread: threading.Thread | None = None

    @property
    def channel(self) -> LogChannel:
        return LogChannel(self._sending, self.logger.getEffectiveLevel())

    def listen(self, process: Any) -> None:
        """Re-emit the records of ``process`` (started with :attr:`channel`) until it ends."""
        self._sending.close()  # the child's copy is now the only one: its end is the pipe's end
        self._thread = threading.Thread(target=self._relay, args=(process,), name=f"{process.name}-logs",
                                        daemon=True)
        self._thread.start()

    def wait(self, timeout: float) -> None:
        """Until every record of the ended child is re-emitted (at most ``timeout`` seconds)."""
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout)

    def _relay(self, process: Any) -> None:
        receiving = self._receiving
        try:
            while True:
                if receiving in wait_for_any([receiving, process.sentinel]):
                    self._emit(receiving.recv())
                    continue
                # The child ended but its end of the pipe lives on (a process it started inherited it):
                # what it sent before it ended is readable now.
                while receiving.poll(0):
                    self._emit(receiving.recv())
                return
        except (EOFError, OSError):  # the child's end is closed: it ended, and everything it sent was read
            return
        finally:
            receiving.close()

    def _emit(self, fields: dict[str, Any]) -> None:
        name = fields["name"]
        logger = self.logger if name == "root" else logging.getLogger(f"{self.logger.name}.{name}")
        if logger.isEnabledFor(fields["levelno"]):
            logger.handle(logging.makeLogRecord({**fields, "name": logger.name}))


# -- inside the child process ------------------------------------------------------------------


def send_logs_to_parent(channel: LogChannel) -> None:
    """Send this process's log records and warnings to the parent from now on, at the parent's level."""
    handler = _ParentHandler(channel.connection)
    handler.addFilter(OnceFilter())
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(channel.level)
    for name in UNPROPAGATED_LOGGERS:
        logging.getLogger(name).addHandler(handler)
    quiet_chatty_loggers()
    logging.captureWarnings(True)


class _ParentHandler(logging.Handler):
    """Sends each record as plain fields."""

    def __init__(self, connection: Connection) -> None:
        super().__init__()
        self.connection = connection
        self._text = logging.Formatter()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            fields = {field: getattr(record, field, None) for field in _KEPT_FIELDS}
            fields["msg"] = record.getMessage()
            fields["args"] = None
            fields["exc_text"] = self._text.formatException(record.exc_info) if record.exc_info else record.exc_text
        except Exception:
            self.handleError(record)  # a bad logging call: reported the way logging reports it
            return
        try:
            self.connection.send(fields)
        except (OSError, ValueError):  # the parent is gone: this process ends soon too
            pass
        except Exception:  # MemoryError in a reader at its memory limit, say
            self.handleError(record)
