"""Telling the user plainly when a command failed because the disk is full or cannot be written."""

from __future__ import annotations

import errno
import sqlite3
from pathlib import Path

_DISK_ERRNOS = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EROFS, errno.EIO}
_SQLITE_DISK_WORDS = ("disk i/o error", "database or disk is full", "readonly database")


def storage_problem(error: BaseException, home: Path) -> str | None:
    """One line for an error (or any error it was raised from) that means writing to the disk failed; else None."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, OSError) and seen.errno in _DISK_ERRNOS:
            reason = seen.strerror or str(seen)
            break
        if isinstance(seen, sqlite3.Error) and any(word in str(seen).lower() for word in _SQLITE_DISK_WORDS):
            reason = str(seen)
            break
        seen = seen.__cause__ or seen.__context__
    else:
        return None
    return (f"could not write to the disk ({reason}). Free some space on the disk that holds {home} (or make it "
            "writable), then run the command again: work that had finished is kept.")
