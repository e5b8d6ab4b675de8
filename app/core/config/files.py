"""Small file helpers for the settings store: atomic replace and never-overwriting backups."""

from __future__ import annotations

import contextlib
import os
import tempfile
from datetime import datetime
from pathlib import Path


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` so readers see the old file or the new one, never half.

    Writes a temporary file in the same folder, flushes and fsyncs it, then ``os.replace``s
    it over ``path``. On any failure the temporary file is removed and ``path`` is untouched.
    The new file is readable by its owner only (it may hold an API key).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as temp_file:
            temp_file.write(data)
            temp_file.flush()
            os.fsync(temp_file.fileno())
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp_name)
        raise
    _fsync_folder(path.parent)


def keep_backup(path: Path, data: bytes, label: str, now: datetime) -> Path:
    """Save ``data`` beside ``path`` as ``<name>.<label>-YYYYMMDD-HHMMSS`` and return that path.

    Never overwrites an earlier backup (a ``-2``, ``-3``... suffix is added instead); if a
    backup with the same label already holds exactly ``data``, that one is returned. Backups
    are readable by their owner only, like the settings file.
    """
    pattern = f"{path.name}.{label}-*"
    for earlier in sorted(path.parent.glob(pattern)):
        with contextlib.suppress(OSError):
            if earlier.is_file() and earlier.read_bytes() == data:
                return earlier
    stem = f"{path.name}.{label}-{now:%Y%m%d-%H%M%S}"
    attempt = 1
    while True:
        candidate = path.parent / (stem if attempt == 1 else f"{stem}-{attempt}")
        try:
            descriptor = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            attempt += 1
            continue
        with os.fdopen(descriptor, "wb") as backup_file:
            backup_file.write(data)
            backup_file.flush()
            os.fsync(backup_file.fileno())
        return candidate


def _fsync_folder(folder: Path) -> None:
    """Make a rename durable on POSIX; a no-op where folders cannot be opened (Windows)."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
    try:
        descriptor = os.open(folder, flags)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
