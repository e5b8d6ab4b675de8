"""Keeps vLLM's engine processes from outliving the app: a small watcher kills them if the app dies.

vLLM's engine core runs in a child process that does not notice when its parent is killed
(SIGKILL, a crash, the OOM killer): it would keep the model's memory forever. The guard is a
separate stdlib-only Python process holding the read end of a pipe from the app. When the
pipe closes without a "stop" line — the app died — it kills the engine processes and their
children. A clean unload says "stop" first. Linux only (as vLLM is); uses /proc.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

STOP_LINE = "stop"
KILL_GRACE_S = 2.0
NOT_ENGINE_MARKS = ("multiprocessing.resource_tracker", __name__)  # the tracker, and guards themselves


@dataclass(frozen=True)
class ProcessIdentity:
    """A process by pid and start time, so a recycled pid is never mistaken for it."""

    pid: int
    start_ticks: int

    def text(self) -> str:
        return f"{self.pid}:{self.start_ticks}"

    @classmethod
    def parse(cls, text: str) -> ProcessIdentity:
        pid, _, start = text.partition(":")
        return cls(int(pid), int(start))


def _stat_fields(pid: int, proc: Path) -> list[str] | None:
    """Fields of /proc/PID/stat after the command name (field 3 onwards), or None if gone."""
    try:
        text = (proc / str(pid) / "stat").read_text()
    except OSError:
        return None
    return text[text.rfind(")") + 2 :].split()


def process_identity(pid: int, proc: Path = Path("/proc")) -> ProcessIdentity | None:
    """The identity of a running ``pid`` (None if it does not exist)."""
    fields = _stat_fields(pid, proc)
    return ProcessIdentity(pid, int(fields[19])) if fields else None


def is_alive(identity: ProcessIdentity, proc: Path = Path("/proc")) -> bool:
    """True while the very process ``identity`` names runs (not a zombie, not a recycled pid)."""
    fields = _stat_fields(identity.pid, proc)
    return bool(fields) and fields is not None and fields[0] != "Z" and int(fields[19]) == identity.start_ticks


def descendants(pid: int, proc: Path = Path("/proc")) -> list[int]:
    """All processes below ``pid`` (children, grandchildren...), from /proc."""
    children: dict[int, list[int]] = {}
    for entry in proc.iterdir():
        if entry.name.isdigit() and (fields := _stat_fields(int(entry.name), proc)):
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[int] = []
    pending = [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def engine_child_processes(parent_pid: int, proc: Path = Path("/proc")) -> list[ProcessIdentity]:
    """The direct children of ``parent_pid`` that belong to an engine (not multiprocessing's tracker, not a guard)."""
    identities: list[ProcessIdentity] = []
    for pid in _children(parent_pid, proc):
        try:
            command = (proc / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if any(mark in command for mark in NOT_ENGINE_MARKS):
            continue
        identity = process_identity(pid, proc)
        if identity is not None:
            identities.append(identity)
    return identities


def _children(parent_pid: int, proc: Path) -> list[int]:
    return [
        int(entry.name)
        for entry in proc.iterdir()
        if entry.name.isdigit() and (fields := _stat_fields(int(entry.name), proc)) and int(fields[1]) == parent_pid
    ]


def kill_process_trees(targets: list[ProcessIdentity], grace_s: float = KILL_GRACE_S) -> None:
    """SIGTERM each live target and its descendants, then SIGKILL whatever is left after ``grace_s``."""
    alive = [target for target in targets if is_alive(target)]
    victims = [*alive]
    for target in alive:
        victims.extend(identity for pid in descendants(target.pid) if (identity := process_identity(pid)))
    for signal_number, wait_s in ((signal.SIGTERM, grace_s), (signal.SIGKILL, grace_s)):
        for victim in victims:
            if is_alive(victim):
                with contextlib.suppress(OSError):
                    os.kill(victim.pid, signal_number)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline and any(is_alive(victim) for victim in victims):
            time.sleep(0.05)


def reap_exited_children(processes: list[ProcessIdentity], timeout_s: float = 5.0, proc: Path = Path("/proc")) -> None:
    """Collect the exit status of those ``processes`` that are our exited (zombie) children.

    A zombie whose threads are still being torn down cannot be collected yet, so this
    polls for up to ``timeout_s``.
    """
    pending = [
        identity
        for identity in processes
        if (fields := _stat_fields(identity.pid, proc))
        and fields[0] == "Z"
        and int(fields[1]) == os.getpid()
        and int(fields[19]) == identity.start_ticks
    ]
    deadline = time.monotonic() + timeout_s
    while pending:
        for identity in list(pending):
            try:
                reaped, _ = os.waitpid(identity.pid, os.WNOHANG)
            except ChildProcessError:  # collected elsewhere meanwhile
                reaped = identity.pid
            if reaped == identity.pid:
                pending.remove(identity)
        if not pending or time.monotonic() > deadline:
            return
        time.sleep(0.05)


class EngineGuard:
    """The running watcher for one engine's processes; :meth:`release` ends it without killing anything."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self._process = process

    @property
    def pid(self) -> int:
        return self._process.pid

    def release(self, timeout_s: float = 5.0) -> None:
        """Tell the guard the engine was shut down cleanly, and wait for it to exit."""
        stdin = self._process.stdin
        if stdin is not None and not stdin.closed:
            try:
                stdin.write(STOP_LINE + "\n")
                stdin.flush()
                stdin.close()
            except OSError:
                pass
        try:
            self._process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def start_guard(targets: list[ProcessIdentity]) -> EngineGuard:
    """Start a guard for ``targets`` (the engine's child processes, found after they started)."""
    root = str(Path(__file__).resolve().parents[4])
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, (root, environment.get("PYTHONPATH"))))
    command = [sys.executable, "-c", f"from {__name__} import main; main()", *(target.text() for target in targets)]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, text=True, env=environment, close_fds=True, start_new_session=True
    )
    return EngineGuard(process)


def main(argv: list[str] | None = None) -> None:
    """The guard process: wait for the app's pipe to close; kill the targets unless told "stop"."""
    targets = [ProcessIdentity.parse(text) for text in (sys.argv[1:] if argv is None else argv)]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C in a terminal reaches the whole group
    last = ""
    for line in sys.stdin:
        last = line.strip() or last
    if last != STOP_LINE:
        kill_process_trees(targets)
