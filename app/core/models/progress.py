"""Download progress snapshots, the tracker that makes them, and the pause/cancel control of a job."""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import asdict, dataclass, replace
from typing import Any, Literal

DownloadState = Literal["preparing", "downloading", "paused", "verifying", "finished", "cancelled", "failed"]
FINAL_STATES: frozenset[str] = frozenset({"finished", "cancelled", "failed"})
RATE_WINDOW_S = 5.0  # the rate is averaged over the last few seconds


@dataclass(frozen=True)
class DownloadProgress:
    """Where a download stands. ``bytes_done`` includes ``resumed_bytes`` found on disk from an
    earlier, interrupted run; the rate and ETA count only bytes received in this run."""

    state: DownloadState = "preparing"
    bytes_done: int = 0
    bytes_total: int | None = None
    bytes_per_second: float = 0.0
    eta_seconds: float | None = None
    elapsed_seconds: float = 0.0
    current_file: str | None = None
    files_done: int = 0
    files_total: int = 0
    resumed_bytes: int = 0
    message: str = ""

    @property
    def finished(self) -> bool:
        """True once the job has ended (finished, cancelled or failed)."""
        return self.state in FINAL_STATES

    @property
    def fraction(self) -> float | None:
        """Share done, 0..1, when the total is known."""
        if not self.bytes_total:
            return None
        return min(1.0, self.bytes_done / self.bytes_total)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)


class DownloadTracker:
    """Updated by the download worker, read by anyone (a GUI timer, the CLI) through :meth:`snapshot`."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._state = DownloadProgress()
        self._started = time.monotonic()
        self._samples: deque[tuple[float, int]] = deque(maxlen=512)

    def snapshot(self) -> DownloadProgress:
        with self._lock:
            now = time.monotonic()
            state = self._state
            rate = self._rate(now) if state.state == "downloading" else 0.0
            eta = None
            if rate > 0 and state.bytes_total is not None:
                eta = max(0, state.bytes_total - state.bytes_done) / rate
            return replace(state, elapsed_seconds=now - self._started, bytes_per_second=rate, eta_seconds=eta)

    def _rate(self, now: float) -> float:
        while self._samples and now - self._samples[0][0] > RATE_WINDOW_S:
            self._samples.popleft()
        if len(self._samples) < 2:
            return 0.0
        (first_time, first_bytes), (last_time, last_bytes) = self._samples[0], self._samples[-1]
        span = max(now - first_time, last_time - first_time)
        return (last_bytes - first_bytes) / span if span > 0 else 0.0

    def update(self, **changes: Any) -> None:
        """Set fields (e.g. ``state="paused"``); leaving "downloading" restarts the rate average."""
        with self._lock:
            if changes.get("state", "downloading") != "downloading":
                self._samples.clear()
            self._state = replace(self._state, **changes)

    def received(self, count: int) -> None:
        """``count`` more bytes arrived from the network."""
        with self._lock:
            done = self._state.bytes_done + count
            self._state = replace(self._state, bytes_done=done)
            self._samples.append((time.monotonic(), done))

    def discarded(self, count: int) -> None:
        """``count`` counted bytes were thrown away (the download restarts from an earlier point)."""
        with self._lock:
            state = self._state
            done = max(0, state.bytes_done - count)
            self._state = replace(state, bytes_done=done, resumed_bytes=min(state.resumed_bytes, done))
            self._samples.clear()

    def resumed(self, count: int) -> None:
        """``count`` bytes were already on disk from an earlier run."""
        with self._lock:
            state = self._state
            self._state = replace(state, bytes_done=state.bytes_done + count, resumed_bytes=state.resumed_bytes + count)


class TransferCancelled(Exception):
    """Raised inside the worker when the job is cancelled (never reaches callers of the job)."""


class TransferControl:
    """Pause, resume and cancel requests, checked by the worker between chunks."""

    def __init__(self) -> None:
        self._condition = threading.Condition()
        self._paused = False
        self._cancelled = False
        self.keep_partial = False

    @property
    def pause_requested(self) -> bool:
        with self._condition:
            return self._paused and not self._cancelled

    @property
    def cancelled(self) -> bool:
        with self._condition:
            return self._cancelled

    def pause(self) -> None:
        with self._condition:
            self._paused = True
            self._condition.notify_all()

    def resume(self) -> None:
        with self._condition:
            self._paused = False
            self._condition.notify_all()

    def cancel(self, *, keep_partial: bool) -> None:
        with self._condition:
            self._cancelled = True
            self.keep_partial = keep_partial
            self._condition.notify_all()

    def checkpoint(self) -> None:
        """Raise TransferCancelled if the job was cancelled."""
        if self.cancelled:
            raise TransferCancelled

    def wait_while_paused(self) -> None:
        """Block while paused; raise TransferCancelled if cancelled meanwhile."""
        with self._condition:
            self._condition.wait_for(lambda: not self._paused or self._cancelled)
        self.checkpoint()

    def sleep(self, seconds: float) -> None:
        """Wait ``seconds`` (retry back-off), cut short by cancel or pause."""
        with self._condition:
            self._condition.wait_for(lambda: self._cancelled or self._paused, timeout=seconds)
        self.checkpoint()
