"""Moving a damaged file out of the way without deleting anything: it is renamed beside itself."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path

SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def set_aside(path: Path, label: str = "damaged") -> Path:
    """Rename ``path`` (and its SQLite companions: -wal, -shm, -journal) to ``<name>.<label>-<time>``;
    the new path of the main file. Nothing is deleted; an existing name gets a number added."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = path.with_name(f"{path.name}.{label}-{stamp}")
    target, number = base, 2
    while target.exists():
        target, number = base.with_name(f"{base.name}-{number}"), number + 1
    for suffix in SQLITE_COMPANIONS:
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            os.replace(companion, target.with_name(target.name + suffix))
    os.replace(path, target)
    return target


def sqlite_file_is_damaged(path: Path) -> bool:
    """True when ``path`` exists but SQLite finds it is not a database or fails its quick check.

    A file that cannot be opened for other reasons (permissions, a locked folder) is not called damaged:
    moving it would not help.
    """
    if not path.is_file():
        return False
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5.0)
    except sqlite3.Error:
        return False
    try:
        row = connection.execute("PRAGMA quick_check").fetchone()
        return row is None or row[0] != "ok"
    except sqlite3.DatabaseError as error:
        text = str(error).lower()
        return "not a database" in text or "malformed" in text or "corrupt" in text
    finally:
        connection.close()
