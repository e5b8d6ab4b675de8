"""Bridge: results come back on the GUI thread, progress shows only for slow work, stale work is dropped."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from PySide6.QtCore import QThread, QThreadPool

from app.ui.bridge import Bridge

pytestmark = pytest.mark.gui


def _slow_job(steps: int, pause_s: float) -> Callable[[Callable[[float, str], None]], str]:
    def work(report: Callable[[float, str], None]) -> str:
        for step in range(1, steps + 1):
            time.sleep(pause_s)
            report(step / steps, f"step {step}")
        return "done"

    return work


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
    qtbot.waitUntil(lambda: len(seen) == 2, timeout=5000)
    assert sorted(seen) == [("done", True, 42), ("error", True, "no luck")]
    assert worker_threads and worker_threads[0] != threading.get_ident()
    qtbot.waitUntil(lambda: not bridge.busy(), timeout=2000)


def test_progress_shows_only_for_work_slower_than_the_delay(qtbot: Any) -> None:
    bridge = Bridge()
    slow: list[float] = []
    slow_shown_at: list[float] = []
    fast: list[float] = []
    done: list[str] = []

    def show_slow(fraction: float, _step: str) -> None:
        slow.append(fraction)
        slow_shown_at.append(time.monotonic() - submitted)

    submitted = time.monotonic()
    bridge.run_with_progress(_slow_job(8, 0.1), done.append, on_progress=show_slow)
    bridge.run_with_progress(_slow_job(3, 0.05), done.append, on_progress=lambda fraction, _step: fast.append(fraction))
    qtbot.waitUntil(lambda: len(done) == 2, timeout=10_000)
    qtbot.wait(700)  # a delayed progress update must not arrive after the job ended
    assert fast == []
    assert slow and slow[-1] == 1.0
    assert min(slow_shown_at) >= 0.45  # nothing shown during the first half second
    assert slow == sorted(slow)


def test_run_latest_skips_and_drops_superseded_work(qtbot: Any) -> None:
    pool = QThreadPool()
    pool.setMaxThreadCount(1)
    bridge = Bridge(pool=pool)
    started: list[int] = []
    delivered: list[int] = []
    gate = threading.Event()

    def job(number: int) -> Callable[[], int]:
        def work() -> int:
            started.append(number)
            if number == 0:
                gate.wait(5)
            return number

        return work

    bridge.run_latest("plan", job(0), delivered.append)
    qtbot.waitUntil(lambda: started == [0], timeout=5000)
    for number in range(1, 5):
        bridge.run_latest("plan", job(number), delivered.append)
    gate.set()
    qtbot.waitUntil(lambda: not bridge.busy(), timeout=5000)
    assert delivered == [4]  # job 0 ran but was superseded; 1-3 never started
    assert started == [0, 4]


def test_qt_warnings_are_caught(qtbot: Any, fail_on_qt_warnings: list[str]) -> None:
    """The suite's guard sees real Qt warnings (this one is cleared so the test itself passes)."""
    from PySide6.QtCore import qWarning

    qWarning("a deliberate warning")
    assert any("a deliberate warning" in line for line in fail_on_qt_warnings)
    fail_on_qt_warnings.clear()
