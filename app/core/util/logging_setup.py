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
    for handler in [h for h in root.handlers if getattr(h, _HANDLER_MARK, False)]:
        root.removeHandler(handler)
        handler.close()

    file_handler = logging.handlers.RotatingFileHandler(
        log_file, maxBytes=LOG_FILE_MAX_BYTES, backupCount=LOG_FILE_BACKUPS, encoding="utf-8"
    )
    level = logging.DEBUG if verbose or detailed else logging.INFO
    file_handler.setLevel(level)
    file_handler.setFormatter(logging.Formatter(_FORMAT))
    setattr(file_handler, _HANDLER_MARK, True)
    root.addHandler(file_handler)

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
