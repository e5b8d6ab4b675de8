"""The memory guardian: watches free memory while a model is loaded and acts before the machine can freeze.

On a unified-memory machine (DGX Spark, GH200, Jetson) the GPU allocates from the desktop's RAM and
there is usually no swap: when another program drains memory, the next allocation can wedge the whole
machine. The guardian samples the memory views a few times a second and, as headroom falls:

* below ``stop_admitting_bytes`` (half the reserve by default) it closes the engine's admission gate,
  so new requests are refused with the reason, and tells the user what takes memory (top processes),
  offering to unload or to reload with a smaller context or fewer chats;
* above ``resume_bytes`` again it reopens the gate;
* below ``hard_floor_bytes`` (a quarter of the reserve) it unloads the engine itself.

Headroom is ``MemAvailable``. Where the GPU's allocator reports less free memory and the page cache does
not explain the difference (the page cache is reclaimable), the GPU's figure is used: the GPU fails first.
Every decision is logged and handed to listeners as a :class:`GuardianNotice`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from app.core.engines.admission import AdmissionGate
from app.core.hardware.live_memory import LiveMemoryReader, MemoryView
from app.core.hardware.memory_users import ProcessMemory, top_processes_by_rss
from app.core.util.translatable import LAYOUT, QT_TRANSLATE_NOOP, Text, listed

if TYPE_CHECKING:
    from app.core.config import Settings
    from app.core.engines.manager import EngineManager

log = logging.getLogger(__name__)

GIB = 1024**3
MIB = 1024**2
CONTEXT = "MemoryGuardian"
DEFAULT_INTERVAL_S = 0.25
MIN_HARD_FLOOR_BYTES = 256 * MIB
GuardianLevel = Literal["ok", "low", "critical"]
GuardianAction = Literal["stopped_admitting", "resumed", "unloaded"]
GuardianOffer = Literal["unload", "reload_smaller"]


@dataclass(frozen=True)
class GuardianThresholds:
    """Headroom limits in bytes: stop admitting below one, admit again above another, unload below the floor."""

    stop_admitting_bytes: int
    resume_bytes: int
    hard_floor_bytes: int

    def __post_init__(self) -> None:
        if not 0 <= self.hard_floor_bytes <= self.stop_admitting_bytes <= self.resume_bytes:
            raise ValueError("thresholds must satisfy 0 <= hard floor <= stop admitting <= resume")

    @classmethod
    def from_reserve(cls, reserve_bytes: int) -> GuardianThresholds:
        """Limits for a plan that leaves ``reserve_bytes`` free: stop at 1/2, resume at 3/4, unload at 1/4."""
        floor = max(MIN_HARD_FLOOR_BYTES, reserve_bytes // 4)
        stop = max(floor, reserve_bytes // 2)
        return cls(stop_admitting_bytes=stop, resume_bytes=max(stop, reserve_bytes * 3 // 4), hard_floor_bytes=floor)


@dataclass(frozen=True)
class Headroom:
    """The free memory the guardian acts on, and a note when the GPU's view and the OS's disagree."""

    bytes: int
    note: str | None = None


@dataclass(frozen=True)
class GuardianNotice:
    """What the guardian did and why, for the log and the window."""

    action: GuardianAction
    level: GuardianLevel
    headroom: Headroom
    view: MemoryView
    thresholds: GuardianThresholds
    top_processes: tuple[ProcessMemory, ...]
    message: str
    offers: tuple[GuardianOffer, ...] = ()


@dataclass(frozen=True)
class GuardedEngine:
    """What the guardian may do to the engine: ask whether a model is loaded, gate new requests, unload it."""

    loaded: Callable[[], bool]
    admission: AdmissionGate
    unload: Callable[[], None]


def _gib(byte_count: int) -> str:
    return f"{byte_count / GIB:.1f} GiB"


def effective_headroom(view: MemoryView) -> Headroom:
    """``MemAvailable``, or the GPU's free figure where it is lower and the page cache does not explain the gap."""
    available = view.available_bytes
    gpu_free = view.gpu_free_bytes
    if gpu_free is None or gpu_free >= available:
        return Headroom(available)
    if gpu_free + view.page_cache_bytes >= available:
        return Headroom(available, Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MemoryGuardian",
            "The GPU reports {0} free, the system {1}: the difference is page cache, which the system reclaims "
            "when needed."), (_gib(gpu_free), _gib(available))))
    return Headroom(gpu_free, Text(CONTEXT, QT_TRANSLATE_NOOP(
        "MemoryGuardian",
        "The GPU reports only {0} free while the system reports {1} available (page cache {2}); "
        "the guardian goes by the GPU's figure."), (_gib(gpu_free), _gib(available), _gib(view.page_cache_bytes))))


def _users(processes: tuple[ProcessMemory, ...]) -> str:
    if not processes:
        return Text(CONTEXT, QT_TRANSLATE_NOOP("MemoryGuardian", "unknown"))
    return listed(process.describe() for process in processes)


class MemoryGuardian:
    """Samples ``read`` every ``interval_s`` on its own thread and guards ``engine`` (see the module docstring).

    :meth:`observe` is the whole decision for one sample (the thread only reads and calls it), so tests
    can drive it with a timeline of views. Listeners are called on the guardian's thread.
    """

    def __init__(
        self,
        read: Callable[[], MemoryView],
        engine: GuardedEngine,
        thresholds: Callable[[], GuardianThresholds],
        *,
        top_processes: Callable[[], tuple[ProcessMemory, ...]] = top_processes_by_rss,
        interval_s: float = DEFAULT_INTERVAL_S,
    ) -> None:
        self._read = read
        self._engine = engine
        self._thresholds = thresholds
        self._top_processes = top_processes
        self._interval_s = interval_s
        self._level: GuardianLevel = "ok"
        self._listeners: list[Callable[[GuardianNotice], None]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_view: MemoryView | None = None

    def add_listener(self, listener: Callable[[GuardianNotice], None]) -> None:
        """Call ``listener`` with every notice (on the guardian's thread)."""
        with self._lock:
            self._listeners.append(listener)

    @property
    def level(self) -> GuardianLevel:
        """``ok`` while requests are admitted, ``low`` while they are refused."""
        return self._level

    @property
    def running(self) -> bool:
        """True while the sampling thread runs."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    @property
    def last_view(self) -> MemoryView | None:
        """The latest sample (None before the first)."""
        return self._last_view

    # ---- one sample --------------------------------------------------------------------
    def observe(self, view: MemoryView) -> GuardianNotice | None:
        """Decide on one sample: stop admitting, admit again, or unload; the notice of what was done, if anything."""
        self._last_view = view
        if not self._engine.loaded():
            if self._level != "ok":  # the model went away (unloaded by the user): nothing left to guard
                self._engine.admission.admit()
                self._level = "ok"
            return None
        thresholds = self._thresholds()
        headroom = effective_headroom(view)
        if headroom.bytes < thresholds.hard_floor_bytes:
            return self._unload(view, headroom, thresholds)
        if self._level == "ok" and headroom.bytes < thresholds.stop_admitting_bytes:
            return self._stop_admitting(view, headroom, thresholds)
        if self._level == "low" and headroom.bytes >= thresholds.resume_bytes:
            self._engine.admission.admit()
            self._level = "ok"
            message = Text(CONTEXT, QT_TRANSLATE_NOOP(
                "MemoryGuardian", "Memory recovered ({0} free): new requests are accepted again."),
                (_gib(headroom.bytes),))
            return self._notify(GuardianNotice("resumed", "ok", headroom, view, thresholds, (), message))
        return None

    def _stop_admitting(self, view: MemoryView, headroom: Headroom, thresholds: GuardianThresholds) -> GuardianNotice:
        users = self._top_processes()
        reason = Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MemoryGuardian", "New requests are paused: only {0} of memory is free, less than the {1} safety margin."),
            (_gib(headroom.bytes), _gib(thresholds.stop_admitting_bytes)))
        hint = Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MemoryGuardian",
            "Close other programs, or unload the model or reload it with a shorter context or fewer chats. "
            "Most memory: {0}."), (_users(users),))
        self._engine.admission.refuse(reason, hint)
        self._level = "low"
        message = Text(LAYOUT, "{0} {1}", (reason, hint))
        return self._notify(GuardianNotice("stopped_admitting", "low", headroom, view, thresholds, users, message,
                                           offers=("unload", "reload_smaller")))

    def _unload(self, view: MemoryView, headroom: Headroom, thresholds: GuardianThresholds) -> GuardianNotice:
        users = self._top_processes()
        self._engine.admission.refuse(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MemoryGuardian", "The model is being unloaded: memory ran out.")))
        log.error("memory guardian: %s free, below the hard floor of %s; unloading the engine",
                  _gib(headroom.bytes), _gib(thresholds.hard_floor_bytes))
        try:
            self._engine.unload()
        finally:
            self._engine.admission.admit()  # nothing is loaded now: submits fail with "no model" instead
            self._level = "ok"
        message = Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MemoryGuardian",
            "The model was unloaded to keep the system responsive: only {0} of memory was free (the floor is {1}). "
            "Most memory: {2}. Load it again with a shorter context or fewer chats once memory is free."),
            (_gib(headroom.bytes), _gib(thresholds.hard_floor_bytes), _users(users)))
        return self._notify(GuardianNotice("unloaded", "critical", headroom, view, thresholds, users, message,
                                           offers=("reload_smaller",)))

    def _notify(self, notice: GuardianNotice) -> GuardianNotice:
        note = f" ({notice.headroom.note})" if notice.headroom.note else ""
        log.warning("memory guardian %s: %s%s", notice.action, notice.message, note)
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(notice)
            except Exception:  # a broken listener must not stop the guardian
                log.exception("memory guardian listener failed")
        return notice

    # ---- the sampling thread ----------------------------------------------------------------
    def start(self) -> None:
        """Start sampling on a daemon thread (once)."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="memory-guardian", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop sampling and wait for the thread (at most ``timeout_s``)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout_s)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.observe(self._read())
            except Exception:  # a failed reading must not end the guard
                log.exception("memory guardian: reading memory failed")
            self._stop.wait(self._interval_s)


def guard_engine_manager(
    manager: EngineManager, settings: Callable[[], Settings], read: Callable[[], MemoryView] | None = None
) -> MemoryGuardian:
    """A guardian for ``manager``'s engine, with limits from the ``engine.os_reserve_gib`` setting (read live).

    ``read`` defaults to the OS's view (``/proc/meminfo``: MemAvailable and the page cache). A GPU view is not
    read by default: on unified memory NVML has none, and asking CUDA would initialise it in this process.
    """

    def thresholds() -> GuardianThresholds:
        return GuardianThresholds.from_reserve(int(settings().float_value("engine.os_reserve_gib") * GIB))

    engine = GuardedEngine(loaded=lambda: manager.engine is not None, admission=manager.admission,
                           unload=manager.unload)
    return MemoryGuardian(read if read is not None else LiveMemoryReader(), engine, thresholds)
