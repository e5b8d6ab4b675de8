"""Logging: a rotating file under the app's log folder at INFO; DEBUG, and the console too, when ``--verbose``."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

LOG_FILE_NAME = "unidesk.log"
LOG_FILE_MAX_BYTES = 2 * 1024 * 1024
LOG_FILE_BACKUPS = 5
_FORMAT = "%(asctime)s %(levelname)-7s %(threadName)s %(name)s: %(message)s"
_HANDLER_MARK = "_unidesk_handler"
CHATTY_LOGGERS = ("urllib3", "filelock", "httpx", "httpcore", "asyncio", "pdfminer", "PIL")
"""Third-party loggers kept at INFO even when the log is at DEBUG (the document reader's pdfminer and PIL
write a line per PDF object or image chunk at DEBUG)."""
UNPROPAGATED_LOGGERS = ("transformers", "huggingface_hub")
"""Libraries whose top logger keeps its records from the root logger (they print them to stderr themselves):
the log's handlers are put on them too, and see each record once."""


class OnceFilter(logging.Filter):
    """Lets a record through a handler once, though it may reach the handler through two loggers (the root
    and one of :data:`UNPROPAGATED_LOGGERS`, when that library lets its records propagate after all)."""

    def __init__(self) -> None:
        super().__init__()
        self._last: logging.LogRecord | None = None

    def filter(self, record: logging.LogRecord) -> bool:
        if record is self._last:
            return False
        self._last = record
        return True


def configure_logging(log_dir: Path, *, verbose: bool = False, detailed: bool = False) -> Path:
    """Send UniDesk's logs to ``log_dir/unidesk.log`` (rotated) at INFO; at DEBUG with ``detailed`` (the
    ``diagnostics.detailed_log`` setting) or ``verbose`` (``--verbose``, which also prints to stderr).

    INFO keeps the file small for bug reports (llama.cpp's own chatter is DEBUG).

    Calling it again replaces the handlers it installed earlier (tests, a second ``main``).
    Returns the log file path.
    """
    log_dir.mkdir(parents=True, exist_ok=True)
    log_file = log_dir / LOG_FILE_NAME
    root = logging.getLogger()
    for logger in (root, *map(logging.getLogger, UNPROPAGATED_LOGGERS)):
        for handler in [h for h in logger.handlers if getattr(h, _HANDLER_MARK, False)]:
            logger.removeHandler(handler)
            handler.close()

    file_handler = logging.handlers.RotatingFileHandler(
        log_file, maxBytes=LOG_FILE_MAX_BYTES, backupCount=LOG_FILE_BACKUPS, encoding="utf-8"
    )
    level = logging.DEBUG if verbose or detailed else logging.INFO
    file_handler.setLevel(level)
    file_handler.setFormatter(logging.Formatter(_FORMAT))
    file_handler.addFilter(OnceFilter())
    setattr(file_handler, _HANDLER_MARK, True)
    root.addHandler(file_handler)
    for name in UNPROPAGATED_LOGGERS:  # transformers' warnings (a model's load notes) belong in the file too
        logging.getLogger(name).addHandler(file_handler)

    if verbose:
        console = logging.StreamHandler()
        console.setLevel(logging.DEBUG)
        console.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
        setattr(console, _HANDLER_MARK, True)
        root.addHandler(console)

    root.setLevel(level)
    quiet_chatty_loggers()
    return log_file


def quiet_chatty_loggers() -> None:
    """Keep :data:`CHATTY_LOGGERS` at INFO (in the app's process and in its helper processes)."""
    for name in CHATTY_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO)
