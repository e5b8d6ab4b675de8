"""An exclusive, non-waiting OS lock on a file, released when its holder closes it or dies."""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO


def try_lock(handle: IO[str]) -> bool:
    """Take the OS lock on ``handle`` without waiting; False when another process (or handle) holds it.

    POSIX: ``flock`` on the whole file. Windows: ``msvcrt.locking`` on the first byte.
    """
    if os.name == "nt":
        import msvcrt

        try:
            handle.seek(0)
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def open_locked(path: Path) -> IO[str] | None:
    """Create (0600) or open ``path`` and lock it; the open handle (close it to unlock), or None if taken.

    A holder may delete the file before closing it (:func:`unlock_and_remove`); a lock taken on such a
    deleted file is let go and taken again on the new one, so two holders never coexist.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    while True:
        handle = os.fdopen(os.open(path, os.O_RDWR | os.O_CREAT, 0o600), "r+", encoding="utf-8")
        if not try_lock(handle):
            handle.close()
            return None
        try:
            same = os.path.samestat(os.fstat(handle.fileno()), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            return handle
        handle.close()


def unlock_and_remove(handle: IO[str], path: Path) -> None:
    """Delete the lock file while still holding it, then unlock (leaves nothing behind)."""
    try:
        path.unlink(missing_ok=True)
    finally:
        handle.close()
