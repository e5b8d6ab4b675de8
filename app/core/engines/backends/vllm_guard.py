"""Keeps vLLM's engine processes from outliving the app: a small watcher kills them if the app dies.

vLLM's engine core runs in a child process that does not notice when its parent is killed
(SIGKILL, a crash, the OOM killer): it would keep the model's memory forever. The guard is a
separate stdlib-only Python process holding the read end of a pipe from the app. When the
pipe closes without a "stop" line — the app died — it kills the engine processes and their
children. A clean unload says "stop" first. Linux only (as vLLM is); uses /proc.

The guard starts *before* the engine: until told "settled" it adopts every new child process of the
app every 0.1 s, so a kill during a long model load does not leave a half-started engine behind.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from app.core.util.process_names import is_app_helper

STOP_LINE = "stop"
SETTLED_LINE = "settled"
WATCH_WORD = "watch"
ADOPT_WORD = "adopt"
EXISTING_WORD = "existing"
ADOPT_STEP_S = 0.1
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
        if any(mark in command for mark in NOT_ENGINE_MARKS) or is_app_helper(pid, proc):
            continue  # the tracker, a guard, or one of the app's own helpers (document reader, embedding model)
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

    def _send(self, line: str) -> None:
        stdin = self._process.stdin
        if stdin is not None and not stdin.closed:
            with contextlib.suppress(OSError):
                stdin.write(line + "\n")
                stdin.flush()

    def watch(self, targets: list[ProcessIdentity]) -> None:
        """Add ``targets`` to what the guard kills if the app dies."""
        if targets:
            self._send(" ".join([WATCH_WORD, *(target.text() for target in targets)]))

    def settle(self) -> None:
        """The engine has started: stop adopting new children of the app (keep those already watched)."""
        self._send(SETTLED_LINE)

    def release(self, timeout_s: float = 5.0) -> None:
        """Tell the guard the engine was shut down cleanly, and wait for it to exit."""
        self._send(STOP_LINE)
        stdin = self._process.stdin
        if stdin is not None and not stdin.closed:
            with contextlib.suppress(OSError):
                stdin.close()
        try:
            self._process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def start_guard(targets: list[ProcessIdentity] | tuple[ProcessIdentity, ...] = (), *,
                adopt_children_of: int | None = None, existing: frozenset[int] = frozenset()) -> EngineGuard:
    """Start a guard for ``targets``. With ``adopt_children_of`` (the app's pid, before the engine starts) it
    also adopts every new engine child of that process (not those in ``existing``) until :meth:`EngineGuard.settle`,
    so an app killed while the model is still loading takes the half-started engine with it."""
    root = str(Path(__file__).resolve().parents[4])
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, (root, environment.get("PYTHONPATH"))))
    arguments = [target.text() for target in targets]
    if adopt_children_of is not None:
        arguments += [f"{ADOPT_WORD}={adopt_children_of}", *(f"{EXISTING_WORD}={pid}" for pid in sorted(existing))]
    command = [sys.executable, "-c", f"from {__name__} import main; main()", *arguments]
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, text=True, env=environment, close_fds=True, start_new_session=True
    )
    return EngineGuard(process)


class _Watch:
    """What a guard process knows: the processes to kill and whether it still adopts new children."""

    def __init__(self, argv: list[str]) -> None:
        self.targets: dict[int, ProcessIdentity] = {}
        self.parent: int | None = None
        self.existing: set[int] = set()
        self.stopped = False
        for word in argv:
            if word.startswith(ADOPT_WORD + "="):
                self.parent = int(word.partition("=")[2])
            elif word.startswith(EXISTING_WORD + "="):
                self.existing.add(int(word.partition("=")[2]))
            else:
                self.add(ProcessIdentity.parse(word))

    def add(self, identity: ProcessIdentity) -> None:
        self.targets[identity.pid] = identity

    def adopt(self) -> None:
        if self.parent is not None:
            for child in engine_child_processes(self.parent):
                if child.pid not in self.existing:
                    self.add(child)

    def command(self, line: str) -> None:
        words = line.split()
        if not words:
            return
        if words[0] == STOP_LINE:
            self.stopped = True
        elif words[0] == SETTLED_LINE:
            self.adopt()
            self.parent = None
        elif words[0] == WATCH_WORD:
            for word in words[1:]:
                self.add(ProcessIdentity.parse(word))


def main(argv: list[str] | None = None) -> None:
    """The guard process: until the app's pipe closes, adopt its new engine children (if asked) and read
    commands; then kill everything watched unless told "stop"."""
    watch = _Watch(sys.argv[1:] if argv is None else argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C in a terminal reaches the whole group
    pending = b""
    while True:
        watch.adopt()
        readable, _, _ = select.select([sys.stdin.fileno()], [], [], ADOPT_STEP_S if watch.parent else None)
        if not readable:
            continue
        data = os.read(sys.stdin.fileno(), 4096)
        if not data:
            break
        *lines, pending = (pending + data).split(b"\n")
        for line in lines:
            watch.command(line.decode("utf-8", "replace"))
    watch.command(pending.decode("utf-8", "replace"))
    if not watch.stopped:
        kill_process_trees(list(watch.targets.values()))
