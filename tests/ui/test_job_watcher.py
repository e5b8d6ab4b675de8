"""JobWatcher: the window reads running core jobs on one timer; the last snapshot is final; ended comes once."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from PySide6.QtCore import QThread

from app.core.util.jobs import Job
from app.ui.job_watcher import JobWatcher

pytestmark = pytest.mark.gui

WAIT_MS = 10_000


class Stepping(Job[str, int]):
    """Advances one step per release; ``progress()`` is the step reached."""

    def __init__(self, name: str, steps: int) -> None:
        super().__init__(name)
        self.steps = steps
        self.reached = 0
        self.gate = threading.Semaphore(0)

    def _run(self) -> str:
        while self.reached < self.steps:
            if not self.gate.acquire(timeout=30):
                raise TimeoutError("the test never released a step")
            if self.cancelled:
                return "cancelled"
            self.reached += 1
        return "all steps"

    def progress(self) -> int:
        return self.reached


def test_progress_then_one_end_per_job_on_the_gui_thread_and_the_timer_stops(qtbot: Any) -> None:
    watcher = JobWatcher(20)
    gui = QThread.currentThread()
    seen: list[tuple[str, int, bool]] = []
    ended: list[tuple[str, int, str]] = []
    first, second = Stepping("first", 3).start(), Stepping("second", 2).start()
    watcher.progressed.connect(lambda job, snapshot: seen.append(
        (job.name, snapshot, QThread.currentThread() is gui)))
    watcher.ended.connect(lambda job: ended.append((job.name, job.progress(), job.wait(0))))
    watcher.watch(first)
    watcher.watch(second)
    watcher.watch(first)  # already watched: nothing doubles
    assert watcher.active and len(watcher.jobs) == 2
    second.cancel()
    second.gate.release()
    first.gate.release(3)
    qtbot.waitUntil(lambda: len(ended) == 2, timeout=WAIT_MS)
    assert sorted(ended) == [("first", 3, "all steps"), ("second", 0, "cancelled")]
    assert all(on_gui for _, _, on_gui in seen)
    assert [snapshot for name, snapshot, _ in seen if name == "first"][-1] == 3
    assert not watcher.active and watcher.jobs == ()
    count = len(ended)
    watcher.tick()
    assert len(ended) == count  # an ended job is reported once


def test_the_last_snapshot_before_the_end_is_the_final_one(qtbot: Any) -> None:
    watcher = JobWatcher(10)
    job = Stepping("five", 5).start()
    last: list[int] = []
    ends: list[int] = []
    watcher.progressed.connect(lambda _job, snapshot: last.append(snapshot))
    watcher.ended.connect(lambda _job: ends.append(last[-1]))
    watcher.watch(job)
    job.gate.release(5)
    qtbot.waitUntil(lambda: bool(ends), timeout=WAIT_MS)
    assert ends == [5] and last == sorted(last)


def test_stop_forgets_every_job_but_the_jobs_keep_running(qtbot: Any) -> None:
    watcher = JobWatcher(10)
    job = Stepping("one", 1).start()
    ended: list[object] = []
    watcher.ended.connect(ended.append)
    watcher.watch(job)
    watcher.stop()
    job.gate.release()
    assert job.wait(30) == "all steps"
    qtbot.wait(50)
    assert ended == [] and not watcher.active
