"""Which runs must own the home (:class:`HomeLock`), and what a second window does when one is open."""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

from app.core.config.home_lock import WINDOW_ROLE, HomeBusyError, HomeLock, window_channel_path
from app.core.config.paths import AppPaths

FRONT_REQUEST = b"front\n"
_CHANNEL_TIMEOUT_S = 5.0

# Commands that only read files no other process rewrites in place (or touch no data at all) run
# beside the window; every other command owns the home while it runs.
_SHARED_COMMANDS = frozenset({"probe", "plan", "chat", "bench", "report"})
# (SQLite files may be read by several processes; chromadb's folder may not, so every ``kb`` command owns it.)
_SHARED_ACTIONS = {"settings": frozenset({None, "show", "path"}), "models": frozenset({"list"}),
                   "conversations": frozenset({"list", "export"})}


def needs_home(args: argparse.Namespace) -> bool:
    """Whether the command ``args`` changes (or opens the databases of) the home."""
    command = args.command
    if command in _SHARED_COMMANDS:
        return False
    action = getattr(args, f"{command}_action", getattr(args, f"{command}_command", None))
    return action not in _SHARED_ACTIONS.get(command, frozenset())


def command_lock(args: argparse.Namespace, paths: AppPaths) -> AbstractContextManager[object]:
    """The lock to hold while ``args`` runs (raises HomeBusyError, a UserFacingError, when taken)."""
    if not needs_home(args):
        return contextlib.nullcontext()
    return HomeLock(paths, args.command).acquire()


@dataclass(frozen=True)
class WindowClaim:
    """The home lock for a new window, or the exit code when another process holds the home."""

    lock: HomeLock | None
    exit_code: int = 0
    message: str = ""


def claim_home_for_window(paths: AppPaths, files: Sequence[Path] = ()) -> WindowClaim:
    """Lock the home for the window. If a window already holds it, ask that one to come to the front
    (and exit quietly); if a command holds it, say which and exit with an error."""
    try:
        return WindowClaim(HomeLock(paths, WINDOW_ROLE).acquire())
    except HomeBusyError as busy:
        if busy.owner is not None and busy.owner.is_window and ask_window_to_front(paths, files):
            done = "its window was brought to the front" + (
                f" and given {len(files)} file(s) for the knowledge base" if files else "")
            print(f"unidesk: UniDesk is already open; {done}.", file=sys.stderr)
            return WindowClaim(None, 0)
        print(f"unidesk: error: {busy}", file=sys.stderr)
        return WindowClaim(None, 1, busy.text)


def ask_window_to_front(paths: AppPaths, files: Sequence[Path] = ()) -> bool:
    """Send "front" (and an "open" line per file) to the running window's local socket; whether it answered."""
    if not hasattr(socket, "AF_UNIX"):
        return False
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as channel:
            channel.settimeout(_CHANNEL_TIMEOUT_S)
            channel.connect(str(window_channel_path(paths)))
            channel.sendall(FRONT_REQUEST + b"".join(
                f"open\t{Path(path).resolve()}\n".encode() for path in files))
            return channel.recv(16).startswith(b"ok")
    except OSError:
        return False
