"""One owner of a home at a time: an OS lock on a file in the data folder, released when its holder dies.

The window, `unidesk serve` and the commands that change data (``kb add``, ``models download`` ...) each
hold :class:`HomeLock` while they run. Two chromadb clients on one folder, two downloaders on one
``.part`` file or two writers of the settings file are then impossible. The lock is the kernel's
(``flock`` on POSIX, ``msvcrt.locking`` on Windows), so a process killed with SIGKILL leaves no stale
lock behind. The file also says who holds it (pid and role), so the one refused can say so.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from app.core.config.paths import AppPaths
from app.core.util.errors import UserFacingError
from app.core.util.file_lock import open_locked
from app.core.util.translatable import QT_TRANSLATE_NOOP, Text

CONTEXT = "HomeLock"
LOCK_FILE_NAME = "unidesk.lock"
WINDOW_ROLE = "window"
CHANNEL_FILE_NAME = "window.sock"
_SOCKET_PATH_LIMIT = 100  # AF_UNIX paths are limited to ~104-108 bytes


@dataclass(frozen=True)
class LockOwner:
    """Who holds a home: its process id, its role ("window" or the command, e.g. "serve") and since when."""

    pid: int
    role: str
    since: str

    @property
    def is_window(self) -> bool:
        return self.role == WINDOW_ROLE


class HomeBusyError(UserFacingError):
    """Another UniDesk process holds the home; ``owner`` says which (None when it could not be read)."""

    def __init__(self, home: Path, owner: LockOwner | None) -> None:
        self.home = home
        self.owner = owner
        if owner is not None and owner.is_window:
            message = Text(CONTEXT, QT_TRANSLATE_NOOP(
                "HomeLock", "The UniDesk window (process {0}) is using the data in {1}."), (str(owner.pid), str(home)))
            hint = Text(CONTEXT, QT_TRANSLATE_NOOP(
                "HomeLock", "Do this in the window (the local API is Settings > Local API), or close the window "
                "and run the command again."))
        elif owner is not None:
            message = Text(CONTEXT, QT_TRANSLATE_NOOP(
                "HomeLock", "`unidesk {0}` (process {1}) is using the data in {2}."), (owner.role, str(owner.pid),
                                                                                       str(home)))
            hint = Text(CONTEXT, QT_TRANSLATE_NOOP(
                "HomeLock", "Wait for it to finish or stop it, then try again."))
        else:
            message = Text(CONTEXT, QT_TRANSLATE_NOOP(
                "HomeLock", "Another UniDesk process is using the data in {0}."), (str(home),))
            hint = Text(CONTEXT, QT_TRANSLATE_NOOP("HomeLock", "Close it, then try again."))
        super().__init__(message, hint)


def lock_file(paths: AppPaths) -> Path:
    return paths.data_dir / LOCK_FILE_NAME


def window_channel_path(paths: AppPaths) -> Path:
    """Where a running window listens for "come to the front" (a local socket, never a network port).

    In the data folder (private to the user) when the path is short enough for a socket; otherwise a
    name in the system's temporary folder derived from the data folder and the user.
    """
    inside = paths.data_dir / CHANNEL_FILE_NAME
    if len(os.fsencode(inside)) <= _SOCKET_PATH_LIMIT:
        return inside
    import hashlib
    import tempfile

    digest = hashlib.sha256(os.fsencode(paths.data_dir.resolve())).hexdigest()[:16]
    user = os.getuid() if hasattr(os, "getuid") else 0
    return Path(tempfile.gettempdir()) / f"unidesk-{user}-{digest}.sock"


def read_owner(paths: AppPaths) -> LockOwner | None:
    """The holder the lock file names (None if it names nobody or cannot be read)."""
    try:
        document = json.loads(lock_file(paths).read_text(encoding="utf-8"))
        return LockOwner(int(document["pid"]), str(document["role"]), str(document.get("since", "")))
    except (OSError, ValueError, KeyError, TypeError):
        return None


class HomeLock:
    """The lock on one home for ``role``. :meth:`acquire` raises :class:`HomeBusyError` when taken;
    :meth:`release` (or the process's death) frees it. Use as a context manager."""

    def __init__(self, paths: AppPaths, role: str) -> None:
        self.paths = paths
        self.role = role
        self._handle: IO[str] | None = None

    @property
    def held(self) -> bool:
        return self._handle is not None

    def acquire(self) -> HomeLock:
        if self._handle is not None:
            return self
        handle = open_locked(lock_file(self.paths))
        if handle is None:
            raise HomeBusyError(self.paths.data_dir, self._owner_with_retry())
        owner = {"pid": os.getpid(), "role": self.role, "since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        # The lock covers the file's first byte on Windows; the owner is written after it there.
        handle.seek(1 if os.name == "nt" else 0)
        handle.truncate()
        handle.write(json.dumps(owner))
        handle.flush()
        self._handle = handle
        return self

    def _owner_with_retry(self) -> LockOwner | None:
        """The holder; a holder that just took the lock may not have written its name yet."""
        for _ in range(20):
            owner = read_owner(self.paths)
            if owner is not None:
                return owner
            time.sleep(0.05)
        return None

    def release(self) -> None:
        handle, self._handle = self._handle, None
        if handle is None:
            return
        with contextlib.suppress(OSError):
            handle.seek(0)
            handle.truncate()  # no owner named while nobody holds it
        handle.close()  # closing the descriptor drops the OS lock

    def __enter__(self) -> HomeLock:
        return self.acquire()

    def __exit__(self, *exc_info: object) -> None:
        self.release()
