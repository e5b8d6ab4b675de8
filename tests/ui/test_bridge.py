"""Bridge: results come back on the GUI thread, progress shows only for slow work, stale work is dropped."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import QThread

from app.ui.bridge import Bridge

pytestmark = pytest.mark.gui

WAIT_MS = 10_000
FAST_JOB_DELAY_S = 1.5
"""The fast job's progress delay: far longer than a job that does not sleep takes, even on a busy machine."""


def _held_job(release: threading.Event) -> Callable[[Callable[[float, str], None]], str]:
    """Reports a quarter, waits for ``release``, then reports the rest at once."""

    def work(report: Callable[[float, str], None]) -> str:
        report(0.25, "step 1")
        if not release.wait(30):
            raise TimeoutError("the test never released the job")
        for step in range(2, 5):
            report(step / 4, f"step {step}")
        return "slow"

    return work


def _instant_job(report: Callable[[float, str], None]) -> str:
    report(0.5, "half")
    report(1.0, "all")
    return "fast"


def test_results_and_errors_arrive_on_the_gui_thread(qtbot: Any) -> None:
    bridge = Bridge()
    gui_thread = QThread.currentThread()
    seen: list[tuple[str, bool, object]] = []
    worker_threads: list[int] = []

    def work() -> int:
        worker_threads.append(threading.get_ident())
        return 42

    def fail() -> int:
        raise ValueError("no luck")

    bridge.run_in_background(work, lambda result: seen.append(("done", QThread.currentThread() is gui_thread, result)))
    bridge.run_in_background(fail, lambda _r: None,
                             lambda error: seen.append(("error", QThread.currentThread() is gui_thread, str(error))))
    qtbot.waitUntil(lambda: len(seen) == 2, timeout=WAIT_MS)
    assert sorted(seen) == [("done", True, 42), ("error", True, "no luck")]
    assert worker_threads and worker_threads[0] != threading.get_ident()
    qtbot.waitUntil(lambda: not bridge.busy(), timeout=WAIT_MS)


def test_progress_shows_only_for_work_slower_than_the_delay(qtbot: Any) -> None:
    bridge = Bridge()
    slow: list[float] = []
    slow_shown_at: list[float] = []
    fast: list[float] = []
    done: list[str] = []
    release = threading.Event()

    def show_slow(fraction: float, _step: str) -> None:
        slow.append(fraction)
        slow_shown_at.append(time.monotonic() - submitted)

    submitted = time.monotonic()
    bridge.run_with_progress(_held_job(release), done.append, on_progress=show_slow)
    bridge.run_with_progress(_instant_job, done.append, on_progress=lambda fraction, _step: fast.append(fraction),
                             show_progress_after_s=FAST_JOB_DELAY_S)
    try:
        qtbot.waitUntil(lambda: bool(slow), timeout=WAIT_MS)  # the held job's first report, once the delay is over
        assert min(slow_shown_at) >= 0.45  # nothing shown during the first half second
        assert slow == [0.25]
    finally:
        release.set()
    qtbot.waitUntil(lambda: len(done) == 2, timeout=WAIT_MS)
    assert slow[-1] == 1.0 and slow == sorted(slow)
    # The fast job reported twice, then ended before its delay ran out: a delayed update must not arrive
    # after the job ended, so wait past its delay.
    qtbot.wait(max(0, round((submitted + FAST_JOB_DELAY_S + 0.3 - time.monotonic()) * 1000)))
    assert fast == []


class StoppedClock:
    """Stands in for the ``time`` module in app.ui.bridge: ``monotonic()`` is whatever the test says."""

    def __init__(self) -> None:
        self.now = 0.0

    def monotonic(self) -> float:
        return self.now


def test_updates_after_the_delay_timer_fired_are_shown_even_if_it_fired_early(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Qt's coarse timers may fire up to 5% early. Once the delay timer has fired, later updates (the final
    # 100 % included) must be shown at once, not held for the few milliseconds the clock says are left.
    import app.ui.bridge as bridge_module

    clock = StoppedClock()
    monkeypatch.setattr(bridge_module, "time", clock)
    bridge = Bridge()
    shown: list[float] = []
    done: list[str] = []
    release = threading.Event()
    bridge.run_with_progress(_held_job(release), done.append,
                             on_progress=lambda fraction, _step: shown.append(fraction), show_progress_after_s=0.3)
    qtbot.waitUntil(lambda: shown == [0.25], timeout=WAIT_MS)  # the timer fired; the clock still says 0 s
    release.set()
    qtbot.waitUntil(lambda: done == ["slow"], timeout=WAIT_MS)
    assert shown[-1] == 1.0 and shown == sorted(shown)


def test_run_latest_skips_and_drops_superseded_work(qtbot: Any) -> None:
    bridge = Bridge(serial=True)
    started: list[int] = []
    delivered: list[int] = []
    gate = threading.Event()

    def job(number: int) -> Callable[[], int]:
        def work() -> int:
            started.append(number)
            if number == 0:
                gate.wait(30)
            return number

        return work

    bridge.run_latest("plan", job(0), delivered.append)
    qtbot.waitUntil(lambda: started == [0], timeout=WAIT_MS)
    for number in range(1, 5):
        bridge.run_latest("plan", job(number), delivered.append)
    gate.set()
    qtbot.waitUntil(lambda: not bridge.busy(), timeout=WAIT_MS)
    assert delivered == [4]  # job 0 ran but was superseded; 1-3 never started
    assert started == [0, 4]


def test_qt_warnings_are_caught(qtbot: Any, fail_on_qt_warnings: list[str]) -> None:
    """The suite's guard sees real Qt warnings (this one is cleared so the test itself passes)."""
    from PySide6.QtCore import qWarning

    qWarning("a deliberate warning")
    assert any("a deliberate warning" in line for line in fail_on_qt_warnings)
    fail_on_qt_warnings.clear()


def test_a_serial_bridge_runs_one_piece_of_work_at_a_time_in_order(qtbot: Any) -> None:
    bridge = Bridge(serial=True)
    running: list[int] = []
    overlaps: list[int] = []
    order: list[int] = []
    lock = threading.Lock()

    def job(number: int) -> Callable[[], int]:
        def work() -> int:
            with lock:
                running.append(number)
                if len(running) > 1:
                    overlaps.append(number)
            time.sleep(0.01)
            with lock:
                running.remove(number)
            return number

        return work

    for number in range(6):
        bridge.run_in_background(job(number), order.append)
    qtbot.waitUntil(lambda: len(order) == 6, timeout=WAIT_MS)
    assert order == list(range(6)) and overlaps == []
