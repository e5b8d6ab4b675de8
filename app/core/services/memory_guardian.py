"""The memory guardian: watches free memory while a model is loaded and acts before the machine can freeze.

On a unified-memory machine (DGX Spark, GH200, Jetson) the GPU allocates from the desktop's RAM and
there is usually no swap: when another program drains memory, the next allocation can wedge the whole
machine. On a discrete card another program can fill the VRAM the engine still allocates from. The guardian
samples the memory views a few times a second and, as headroom falls:

* below ``stop_admitting_bytes`` (half the reserve by default) it closes the engine's admission gate,
  so new requests are refused with the reason, and tells the user what takes memory (top processes),
  offering to unload or to reload with a smaller context or fewer chats;
* above ``resume_bytes`` again it reopens the gate;
* below ``hard_floor_bytes`` (a quarter of the reserve) it unloads the engine itself.

The signals (each notice says which one triggered):

* ``system``: ``MemAvailable``, against the limits of the OS reserve (``engine.os_reserve_gib``);
* ``gpu`` on a discrete card (and GH200's HBM), while the loaded plan put something on it: the GPU's own
  free memory (NVML), against the limits of the GPU reserve the planner keeps free there
  (``planner.budget.GPU_RESERVE_BYTES``);
* ``unified_gpu`` where the GPU's figure is the shared pool (a driver that reports RAM as its own): that
  figure may leave out the page cache, which the kernel hands back to the GPU's allocator on demand, so
  the rule is ``min(MemAvailable, gpu free + page cache)``. The GPU's view lowers the headroom only by
  what the page cache cannot explain: a growing page cache alone never pauses or unloads anything.

The guardian acts on the worst signal: it unloads when any is below its floor, pauses when any is below
its stop line, and admits again once every signal is back above its resume line. Where NVML has no
figure (GB10, Jetson: "not supported") ``MemAvailable`` is the truth and the only signal; CUDA is never
asked, since that would create a context in the app's process. Every decision is logged and handed to
listeners as a :class:`GuardianNotice`.
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
from app.core.hardware.nvml_reader import NvmlMemoryWatch
from app.core.planner.budget import GPU_RESERVE_BYTES
from app.core.util.translatable import QT_TRANSLATE_NOOP, Sentences, Text, listed

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
MemorySignal = Literal["system", "gpu", "unified_gpu"]
GpuPool = Literal["none", "separate", "shared"]
"""Where the loaded engine's GPU memory is: no GPU view matters, a pool of its own (discrete, GH200's HBM), or the
shared RAM pool the GPU's figure also describes."""
SHARED_POOL_FRACTION = 0.5  # a GPU reporting at least half the RAM as its own memory on a unified machine shares it


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
    """The free memory one signal gives, the signal (and the GPU's name for a GPU signal), and a note when the
    GPU's view and the OS's disagree."""

    bytes: int
    signal: MemorySignal = "system"
    gpu_name: str | None = None
    note: str | None = None

    def describe(self) -> str:
        """The memory this headroom is of, in words for the user."""
        if self.signal == "gpu":
            return Text(CONTEXT, QT_TRANSLATE_NOOP("MemoryGuardian", "GPU memory ({0})"), (self.gpu_name or "?",))
        if self.signal == "unified_gpu":
            return Text(CONTEXT, QT_TRANSLATE_NOOP(
                "MemoryGuardian", "memory as the GPU sees it ({0}, page cache included)"), (self.gpu_name or "?",))
        return Text(CONTEXT, QT_TRANSLATE_NOOP("MemoryGuardian", "system memory"))


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
    """What the guardian may do to the engine: ask whether a model is loaded, gate new requests, unload it;
    ``gpu_pool`` says where the loaded engine's GPU memory is (see :data:`GpuPool`)."""

    loaded: Callable[[], bool]
    admission: AdmissionGate
    unload: Callable[[], None]
    gpu_pool: Callable[[], GpuPool] = lambda: "none"


def _gib(byte_count: int) -> str:
    """A size for the user: GiB with one decimal, MiB below 1 GiB (so 205 MiB free never reads as the 256 MiB floor)."""
    if abs(byte_count) < GIB:
        return f"{byte_count / MIB:.0f} MiB"
    return f"{byte_count / GIB:.1f} GiB"


def system_headroom(view: MemoryView, gpu_pool: GpuPool = "none") -> Headroom:
    """``MemAvailable``; on a shared pool the lower of it and the GPU's free figure plus the page cache."""
    available = view.available_bytes
    gpu = view.gpu
    if gpu is None or gpu_pool != "shared" or gpu.free_bytes >= available:
        return Headroom(available)
    credited = gpu.free_bytes + view.page_cache_bytes
    if credited >= available:
        return Headroom(available, note=Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MemoryGuardian",
            "The GPU reports {0} free, the system {1}: the difference is page cache, which the system reclaims "
            "when needed."), (_gib(gpu.free_bytes), _gib(available))))
    return Headroom(credited, "unified_gpu", gpu.name, Text(CONTEXT, QT_TRANSLATE_NOOP(
        "MemoryGuardian",
        "The GPU reports only {0} free while the system reports {1} available; with the page cache ({2}) the "
        "GPU can have {3}, and the guardian goes by that."),
        (_gib(gpu.free_bytes), _gib(available), _gib(view.page_cache_bytes), _gib(credited))))


def gpu_headroom(view: MemoryView, gpu_pool: GpuPool) -> Headroom | None:
    """The free memory of the GPU's own pool (a discrete card, GH200's HBM); None when there is none to guard."""
    if view.gpu is None or gpu_pool != "separate":
        return None
    return Headroom(view.gpu.free_bytes, "gpu", view.gpu.name)


def _users(processes: tuple[ProcessMemory, ...]) -> str:
    if not processes:
        return Text(CONTEXT, QT_TRANSLATE_NOOP("MemoryGuardian", "unknown"))
    return listed(process.describe() for process in processes)


class MemoryGuardian:
    """Samples ``read`` every ``interval_s`` on its own thread and guards ``engine`` (see the module docstring).

    :meth:`observe` is the whole decision for one sample (the thread only reads and calls it), so tests
    can drive it with a timeline of views. Listeners are called on the guardian's thread. ``thresholds``
    are the system signal's limits (read on each sample), ``gpu_thresholds`` a discrete GPU's;
    ``gpu_processes`` names the biggest users of the GPU when its signal triggers; ``close`` runs when
    the sampling thread ends (it closes the NVML session).
    """

    def __init__(
        self,
        read: Callable[[], MemoryView],
        engine: GuardedEngine,
        thresholds: Callable[[], GuardianThresholds],
        *,
        top_processes: Callable[[], tuple[ProcessMemory, ...]] = top_processes_by_rss,
        gpu_thresholds: GuardianThresholds | None = None,
        gpu_processes: Callable[[], tuple[ProcessMemory, ...]] = tuple,
        interval_s: float = DEFAULT_INTERVAL_S,
        close: Callable[[], None] | None = None,
    ) -> None:
        self._read = read
        self._engine = engine
        self._thresholds = thresholds
        self._gpu_thresholds = gpu_thresholds or GuardianThresholds.from_reserve(GPU_RESERVE_BYTES)
        self._top_processes = top_processes
        self._gpu_processes = gpu_processes
        self._close = close
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
        signals = self._signals(view)
        worst, thresholds = min(signals, key=lambda signal: _margin(*signal))
        if worst.bytes < thresholds.hard_floor_bytes:
            below = [signal for signal in signals if signal[0].bytes < signal[1].hard_floor_bytes]
            return self._unload(view, *min(below, key=lambda signal: _margin(*signal)))
        if self._level == "ok" and worst.bytes < thresholds.stop_admitting_bytes:
            return self._stop_admitting(view, worst, thresholds)
        if self._level == "low" and all(headroom.bytes >= limits.resume_bytes for headroom, limits in signals):
            self._engine.admission.admit()
            self._level = "ok"
            message = Text(CONTEXT, QT_TRANSLATE_NOOP(
                "MemoryGuardian", "Memory recovered ({0} free): new requests are accepted again."),
                (_gib(worst.bytes),))
            return self._notify(GuardianNotice("resumed", "ok", worst, view, thresholds, (), message))
        return None

    def _signals(self, view: MemoryView) -> list[tuple[Headroom, GuardianThresholds]]:
        """Each signal's headroom with its limits: the system's, and a discrete GPU's where the engine uses one."""
        pool = self._engine.gpu_pool()
        signals = [(system_headroom(view, pool), self._thresholds())]
        gpu = gpu_headroom(view, pool)
        if gpu is not None:
            signals.append((gpu, self._gpu_thresholds))
        return signals

    def _users_of(self, headroom: Headroom) -> tuple[ProcessMemory, ...]:
        """The biggest users of the memory ``headroom`` is of (the GPU's where NVML can say, else by RSS)."""
        if headroom.signal == "gpu":
            users = self._gpu_processes()
            if users:
                return users
        return self._top_processes()

    def _stop_admitting(self, view: MemoryView, headroom: Headroom, thresholds: GuardianThresholds) -> GuardianNotice:
        users = self._users_of(headroom)
        reason = Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MemoryGuardian", "New requests are paused: only {0} of {1} is free, less than the {2} safety margin."),
            (_gib(headroom.bytes), headroom.describe(), _gib(thresholds.stop_admitting_bytes)))
        hint = Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MemoryGuardian",
            "Close other programs, or unload the model or reload it with a shorter context or fewer chats. "
            "Most memory: {0}."), (_users(users),))
        self._engine.admission.refuse(reason, hint)
        self._level = "low"
        message = Sentences(reason, hint)
        return self._notify(GuardianNotice("stopped_admitting", "low", headroom, view, thresholds, users, message,
                                           offers=("unload", "reload_smaller")))

    def _unload(self, view: MemoryView, headroom: Headroom, thresholds: GuardianThresholds) -> GuardianNotice:
        users = self._users_of(headroom)
        self._engine.admission.refuse(Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MemoryGuardian", "The model is being unloaded: memory ran out.")))
        log.error("memory guardian: %s of %s free, below the hard floor of %s; unloading the engine",
                  _gib(headroom.bytes), headroom.describe(), _gib(thresholds.hard_floor_bytes))
        try:
            self._engine.unload()
        finally:
            self._engine.admission.admit()  # nothing is loaded now: submits fail with "no model" instead
            self._level = "ok"
        message = Text(CONTEXT, QT_TRANSLATE_NOOP(
            "MemoryGuardian",
            "The model was unloaded to keep the system responsive: only {0} of {1} was free (the floor is {2}). "
            "Most memory: {3}. Load it again with a shorter context or fewer chats once memory is free."),
            (_gib(headroom.bytes), headroom.describe(), _gib(thresholds.hard_floor_bytes), _users(users)))
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
        try:
            while not self._stop.is_set():
                try:
                    self.observe(self._read())
                except Exception:  # a failed reading must not end the guard
                    log.exception("memory guardian: reading memory failed")
                self._stop.wait(self._interval_s)
        finally:
            if self._close is not None:
                self._close()


def _margin(headroom: Headroom, thresholds: GuardianThresholds) -> float:
    """How far ``headroom`` is above its stop line, relative to it (negative: below); signals compare by this."""
    return (headroom.bytes - thresholds.stop_admitting_bytes) / max(1, thresholds.stop_admitting_bytes)


def gpu_pool_of(manager: EngineManager, view: MemoryView | None) -> GpuPool:
    """Where ``manager``'s loaded engine keeps GPU memory, from its plan and the GPU's reading.

    A discrete card with part of the plan on it is a ``separate`` pool; on a unified machine the GPU's
    figure is the ``shared`` pool when it is at least half the RAM (GB10 or Jetson with a driver that
    reports it), else the GPU's own memory (GH200's HBM: ``separate``); a CPU plan needs no GPU view.
    """
    plan = manager.status().plan
    if plan is None or view is None or view.gpu is None:
        return "none"
    if plan.memory_kind == "discrete":
        return "separate" if plan.gpu_bytes > 0 else "none"
    if plan.memory_kind == "unified":
        shared = view.gpu.total_bytes >= SHARED_POOL_FRACTION * view.total_bytes
        return "shared" if shared else "separate"
    return "none"


def guard_engine_manager(
    manager: EngineManager, settings: Callable[[], Settings], read: Callable[[], MemoryView] | None = None
) -> MemoryGuardian:
    """A guardian for ``manager``'s engine, with limits from the ``engine.os_reserve_gib`` setting (read live).

    ``read`` defaults to the OS's view (``/proc/meminfo``: MemAvailable and the page cache) plus the GPU's from
    NVML where it reports one (one NVML session, opened on the guardian's thread, closed when it stops).
    """

    def thresholds() -> GuardianThresholds:
        return GuardianThresholds.from_reserve(int(settings().float_value("engine.os_reserve_gib") * GIB))

    nvml = NvmlMemoryWatch() if read is None else None
    reader = read if read is not None else LiveMemoryReader(gpu=nvml)
    guardian: MemoryGuardian

    def gpu_pool() -> GpuPool:
        return gpu_pool_of(manager, guardian.last_view)

    engine = GuardedEngine(loaded=lambda: manager.engine is not None, admission=manager.admission,
                           unload=manager.unload, gpu_pool=gpu_pool)
    guardian = MemoryGuardian(reader, engine, thresholds,
                              gpu_processes=nvml.gpu_processes if nvml is not None else tuple,
                              close=nvml.close if nvml is not None else None)
    return guardian
