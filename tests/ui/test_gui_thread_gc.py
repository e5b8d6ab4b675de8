"""Qt objects in Python reference cycles are freed on the GUI thread, never on a worker that allocates."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Any

from PySide6.QtCore import QObject

from app.ui.gui_thread_gc import GuiThreadGarbageCollector

ALLOCATIONS = 20 * 700  # well past Python's first threshold (700): automatic collection would start on the worker


def _dropped_cycle(destroyed_on: list[str]) -> weakref.ref[QObject]:
    """Make a parentless QObject that only a reference cycle keeps, and record the thread that frees it (and
    with it the C++ object, which the wrapper owns). A weak reference's callback runs on the freeing thread; a
    slot on ``destroyed`` would not tell: PySide queues a lambda's call to the GUI thread."""
    item = QObject()
    item.setObjectName("in a cycle")
    item.cycle = [item]  # type: ignore[attr-defined]
    return weakref.ref(item, lambda _gone: destroyed_on.append(threading.current_thread().name))


def _allocate_on_a_worker(collect: bool = False) -> None:
    def work() -> None:
        kept = []
        for _ in range(ALLOCATIONS):
            pair: list[Any] = []
            pair.append(pair)  # cyclic containers are what the collector counts
            kept.append(pair)
        if collect:
            gc.collect()

    worker = threading.Thread(target=work, name="allocating worker")
    worker.start()
    worker.join()


def test_a_cycle_is_freed_by_the_gui_threads_timer_not_by_a_worker(qtbot: Any) -> None:
    collector = GuiThreadGarbageCollector(interval_ms=20)
    collector.start()  # the suite's fixture started one already: this one keeps collection off all the same
    try:
        assert not gc.isenabled()
        destroyed_on: list[str] = []
        watch = _dropped_cycle(destroyed_on)
        _allocate_on_a_worker()
        assert destroyed_on == []  # the worker's allocations started no collection
        qtbot.waitUntil(lambda: watch() is None, timeout=10_000)
        assert destroyed_on == [threading.main_thread().name] and collector.collections >= 1
    finally:
        collector.stop()


def test_without_it_a_workers_collection_deletes_the_qt_object_there(qtbot: Any) -> None:
    """Why the collector exists: whichever thread collects deletes the Qt objects in the cycles it frees."""
    destroyed_on: list[str] = []
    watch = _dropped_cycle(destroyed_on)
    _allocate_on_a_worker(collect=True)
    assert watch() is None and destroyed_on == ["allocating worker"]


def test_stop_collects_now_and_gives_collection_back(qtbot: Any) -> None:
    enabled_before = gc.isenabled()
    collector = GuiThreadGarbageCollector()
    collector.start()
    destroyed_on: list[str] = []
    watch = _dropped_cycle(destroyed_on)
    collector.stop()
    assert watch() is None and destroyed_on == [threading.main_thread().name]
    assert gc.isenabled() == enabled_before and not collector.running


def _counts_past_every_threshold() -> list[list[int]]:
    """Bring the collector's counts past all three of Python's thresholds (automatic collection is off); keep
    what it returns (freeing those containers lowers the first count again)."""
    first, second, third = gc.get_threshold()
    for _ in range(third + 1):
        for _ in range(second + 1):
            gc.collect(0)  # each adds one to the count of the generation above
        gc.collect(1)
    for _ in range(second + 1):
        gc.collect(0)
    return [[] for _ in range(first + 100)]  # tracked containers raise the first count


def test_a_full_collection_waits_for_its_interval(qtbot: Any) -> None:
    patient, eager = GuiThreadGarbageCollector(full_every_s=3600), GuiThreadGarbageCollector(full_every_s=0)
    patient.start()
    eager.start()
    try:
        kept = _counts_past_every_threshold()
        assert patient.collect_if_due() == 1  # its last full collection (at start) is too recent
        assert patient.collect_if_due() is None  # nothing new since
        kept_too = _counts_past_every_threshold()
        assert eager.collect_if_due() == 2 and kept and kept_too
    finally:
        eager.stop()
        patient.stop()
