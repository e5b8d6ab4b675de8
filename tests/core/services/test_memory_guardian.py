"""The memory guardian on simulated machines: fake memory timelines (the OS's view and the GPU's) drive a real
EngineManager with a fake engine; the GPU pool the guardian watches follows from the real plan of that manager."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from app.core.config import Settings
from app.core.engines.admission import RequestsPausedError
from app.core.engines.base import BackendName, EngineConfig, LoadedModel, NoModelLoadedError, ProgressCallback
from app.core.engines.manager import EngineManager
from app.core.engines.metrics import EngineMetrics, RequestMetrics
from app.core.engines.requests import ChatMessage, ChatRequest
from app.core.engines.stream import RequestStream
from app.core.hardware.live_memory import MemoryView
from app.core.hardware.memory_users import ProcessMemory
from app.core.hardware.nvml_reader import GpuMemory
from app.core.hardware.report import HardwareReport
from app.core.services.memory_guardian import (
    GpuPool,
    GuardedEngine,
    GuardianNotice,
    GuardianThresholds,
    MemoryGuardian,
    gpu_pool_of,
    system_headroom,
)
from tests.core.planner.fake_hardware import cpu_only, gb10, gh200, rtx4090

GIB = 1024**3
MIB = 1024**2
TOTAL = 128 * GIB
RESERVE = 4 * GIB  # stop admitting below 2 GiB, admit again from 3 GiB, unload below 1 GiB
BROWSER = ProcessMemory(4242, "chrome", 9 * GIB)
GAME = ProcessMemory(5151, "game.exe", 20 * GIB)  # what NVML says holds the card's memory
EVENT_TIMEOUT_S = 30.0
GB10_NAME, RTX_NAME = "NVIDIA GB10", "NVIDIA GeForce RTX 4090"


def os_view(available_gib: float, page_cache_gib: float = 0.0, gpu_free_gib: float | None = None,
            gpu_total_gib: float = TOTAL / GIB, gpu_name: str = GB10_NAME) -> MemoryView:
    """The OS's view; with ``gpu_free_gib`` the GPU's too (by default a GPU reporting the whole RAM as its own)."""
    gpu = None if gpu_free_gib is None else GpuMemory(gpu_name, int(gpu_free_gib * GIB), int(gpu_total_gib * GIB))
    return MemoryView(TOTAL, int(available_gib * GIB), int(page_cache_gib * GIB), gpu)


def card_view(vram_free_gib: float, available_gib: float = 40.0) -> MemoryView:
    """A desktop with a 24 GiB discrete card: plenty of RAM, ``vram_free_gib`` free on the card."""
    return os_view(available_gib, page_cache_gib=2, gpu_free_gib=vram_free_gib, gpu_total_gib=24, gpu_name=RTX_NAME)


class EchoEngine:
    """An engine that answers at once and records loads and unloads (the guardian's logic is under test)."""

    backend_name: BackendName = "llamacpp"

    def __init__(self, events: list[str]) -> None:
        self.events = events

    def load(self, config: EngineConfig, progress: ProgressCallback | None = None) -> LoadedModel:
        self.events.append("load")
        return LoadedModel("llamacpp", config.model_path.name, config, load_time_s=0.0)

    def warm_up(self) -> None:
        pass

    def submit(self, request: ChatRequest) -> RequestStream:
        stream = RequestStream(request.request_id)
        stream.push("echo: " + request.messages[-1].content)
        stream.finish("stop", RequestMetrics(generated_tokens=1, finish_reason="stop"))
        return stream

    def cancel(self, request_id: str) -> None:
        pass

    def metrics(self) -> EngineMetrics:
        return EngineMetrics(backend="llamacpp", model_name="echo")

    def count_tokens(self, text: str) -> int:
        return len(text.split())

    def render_prompt(self, messages: tuple[ChatMessage, ...]) -> str:
        return "\n".join(message.content for message in messages)

    def unload(self) -> None:
        self.events.append("unload")


class Machine:
    """A loaded fake engine behind a real EngineManager, and a guardian watching it."""

    def __init__(self, model: Path, timeline: Sequence[MemoryView | Exception] = (),
                 hardware: HardwareReport | None = None) -> None:
        self.events: list[str] = []
        settings = Settings.defaults()
        report = hardware or cpu_only()

        def factory(backend: BackendName) -> EchoEngine:
            return EchoEngine(self.events)

        self.manager = EngineManager(lambda: report, lambda: settings, engine_factory=factory)
        self.manager.load(model)
        self.notices: list[GuardianNotice] = []
        self.timeline = list(timeline)
        self.samples_read = 0

        def gpu_pool() -> GpuPool:  # as guard_engine_manager decides it: from the loaded plan and the reading
            return gpu_pool_of(self.manager, self.guardian.last_view)

        self.guardian = MemoryGuardian(
            self.read,
            GuardedEngine(lambda: self.manager.engine is not None, self.manager.admission, self.manager.unload,
                          gpu_pool),
            lambda: GuardianThresholds.from_reserve(RESERVE),
            top_processes=lambda: (BROWSER,),
            gpu_processes=lambda: (GAME,),
            interval_s=0.001,
        )
        self.guardian.add_listener(self.notices.append)

    def read(self) -> MemoryView:
        index = min(self.samples_read, len(self.timeline) - 1)
        self.samples_read += 1
        sample = self.timeline[index]
        if isinstance(sample, Exception):
            raise sample
        return sample

    def play(self, views: list[MemoryView]) -> list[str]:
        """Observe ``views`` one by one; the actions taken, in order."""
        return [notice.action for view in views if (notice := self.guardian.observe(view)) is not None]

    def ask(self) -> str:
        stream = self.manager.submit(ChatRequest.single_prompt("hello"))
        stream.wait(timeout=EVENT_TIMEOUT_S)
        return stream.text


@pytest.fixture
def machine(tiny_gguf: Path) -> Iterator[Machine]:
    machine = Machine(tiny_gguf)
    yield machine
    machine.guardian.stop()


@pytest.fixture
def spark(tiny_gguf: Path) -> Iterator[Machine]:
    """A DGX Spark whose GPU driver reports the shared pool as its own memory (the GPU's view may leave out
    the page cache)."""
    machine = Machine(tiny_gguf, hardware=gb10())
    yield machine
    machine.guardian.stop()


@pytest.fixture
def desktop(tiny_gguf: Path) -> Iterator[Machine]:
    """A desktop with an RTX 4090: the model's layers are planned onto the card."""
    machine = Machine(tiny_gguf, hardware=rtx4090())
    yield machine
    machine.guardian.stop()


def test_thresholds_follow_the_reserve() -> None:
    thresholds = GuardianThresholds.from_reserve(RESERVE)
    assert (thresholds.hard_floor_bytes, thresholds.stop_admitting_bytes, thresholds.resume_bytes) == (
        1 * GIB, 2 * GIB, 3 * GIB)
    tiny = GuardianThresholds.from_reserve(0)
    assert tiny.hard_floor_bytes == tiny.stop_admitting_bytes == 256 * MIB
    with pytest.raises(ValueError):
        GuardianThresholds(stop_admitting_bytes=GIB, resume_bytes=GIB, hard_floor_bytes=2 * GIB)


def test_another_program_eats_memory_then_admission_stops_then_the_engine_is_unloaded(machine: Machine) -> None:
    assert machine.ask() == "echo: hello"
    assert machine.play([os_view(40), os_view(12), os_view(3.5)]) == []
    assert machine.play([os_view(1.6)]) == ["stopped_admitting"]
    with pytest.raises(RequestsPausedError) as refused:
        machine.ask()
    assert "only 1.6 GiB of system memory is free, less than the 2.0 GiB" in refused.value.message
    assert "chrome (pid 4242): 9.0 GiB" in str(refused.value.hint)
    stopped = machine.notices[-1]
    assert stopped.offers == ("unload", "reload_smaller") and stopped.top_processes == (BROWSER,)
    assert machine.play([os_view(1.4), os_view(1.2)]) == []  # still low: nothing more to do, said once
    assert machine.play([os_view(0.7)]) == ["unloaded"]
    assert machine.manager.engine is None and machine.events[-1] == "unload"
    assert "717 MiB" in machine.notices[-1].message and "chrome" in machine.notices[-1].message
    with pytest.raises(NoModelLoadedError):  # the gate is open again; there is simply no model
        machine.ask()
    assert machine.play([os_view(0.5)]) == []  # nothing loaded: nothing to guard


def test_memory_coming_back_admits_requests_again_after_hysteresis(machine: Machine) -> None:
    assert machine.play([os_view(1.9)]) == ["stopped_admitting"]
    assert machine.play([os_view(2.5)]) == []  # above the stop line but below the resume line
    assert not machine.manager.admission.admitting
    assert machine.play([os_view(3.2)]) == ["resumed"]
    assert machine.ask() == "echo: hello"


def test_the_gpu_pool_follows_the_loaded_plan(tiny_gguf: Path) -> None:
    assert Machine(tiny_gguf, hardware=gb10()).manager.status().plan.memory_kind == "unified"  # type: ignore[union-attr]
    shared = Machine(tiny_gguf, hardware=gb10())
    assert gpu_pool_of(shared.manager, os_view(50, gpu_free_gib=40)) == "shared"  # the GPU reports the RAM
    assert gpu_pool_of(shared.manager, os_view(50)) == "none"  # NVML "not supported": no GPU view
    hopper = Machine(tiny_gguf, hardware=gh200())
    hbm = MemoryView(480 * GIB, 400 * GIB, 0, GpuMemory("NVIDIA GH200 480GB", 90 * GIB, 96 * GIB))
    assert gpu_pool_of(hopper.manager, hbm) == "separate"  # the Hopper's own HBM, not the Grace's RAM
    card = Machine(tiny_gguf, hardware=rtx4090())
    assert gpu_pool_of(card.manager, card_view(10)) == "separate"
    laptop = Machine(tiny_gguf)
    assert gpu_pool_of(laptop.manager, card_view(10)) == "none"  # a CPU plan keeps nothing on a GPU


def test_page_cache_growing_while_a_model_loads_is_not_taken_for_lost_memory(spark: Machine) -> None:
    # Reading a 100 GB model: the page cache grows, the GPU's free figure (which leaves the cache out) falls
    # toward nothing, MemAvailable stays high because the kernel reclaims the cache on demand.
    cache_step = 12.4375  # GiB per sample (a binary fraction: the figures add up exactly)
    timeline = [os_view(100, page_cache_gib=cache_step * step, gpu_free_gib=100 - cache_step * step)
                for step in range(9)]
    assert timeline[-1].gpu is not None and timeline[-1].gpu.free_bytes == GIB // 2  # below the 1 GiB floor alone
    assert spark.play(timeline) == []
    assert spark.manager.admission.admitting and spark.ask() == "echo: hello"
    headroom = system_headroom(timeline[-1], "shared")
    assert (headroom.bytes, headroom.signal) == (timeline[-1].available_bytes, "system")
    assert headroom.note is not None and "page cache" in headroom.note


def test_a_gpu_view_lower_than_the_page_cache_explains_pauses_then_unloads(spark: Machine) -> None:
    # The OS looks healthy (30 GiB available, 1 GiB of it page cache) but the GPU's allocator has little left:
    # the guardian goes by the GPU's figure plus the page cache it can reclaim (0.8 + 1 = 1.8 GiB).
    disagreeing = os_view(30, page_cache_gib=1, gpu_free_gib=0.8)
    headroom = system_headroom(disagreeing, "shared")
    assert (headroom.bytes, headroom.signal) == (int(1.8 * GIB), "unified_gpu")
    assert spark.play([os_view(30, page_cache_gib=1, gpu_free_gib=25), disagreeing]) == ["stopped_admitting"]
    stopped = spark.notices[-1]
    assert stopped.headroom.signal == "unified_gpu"
    assert "only 1.8 GiB of memory as the GPU sees it (NVIDIA GB10, page cache included) is free" in stopped.message
    assert "GPU reports only 819 MiB free" in str(stopped.headroom.note)
    assert stopped.top_processes == (BROWSER,)  # the shared pool: the biggest programs by RSS
    assert spark.play([os_view(30, page_cache_gib=0.5, gpu_free_gib=0.3)]) == ["unloaded"]
    assert spark.manager.engine is None
    assert spark.notices[-1].headroom.signal == "unified_gpu"


def test_a_gpu_view_higher_than_memavailable_does_not_hide_a_drain(spark: Machine) -> None:
    # The other direction: the GPU still reports plenty, but MemAvailable falls (another program, no page cache).
    assert spark.play([os_view(1.5, gpu_free_gib=20)]) == ["stopped_admitting"]
    assert spark.notices[-1].headroom.signal == "system"
    assert "only 1.5 GiB of system memory is free" in spark.notices[-1].message
    assert spark.play([os_view(3.5, gpu_free_gib=20)]) == ["resumed"]
    assert spark.play([os_view(0.6, gpu_free_gib=20)]) == ["unloaded"]


def test_another_program_filling_the_discrete_card_pauses_then_unloads(desktop: Machine) -> None:
    # RAM is plentiful throughout; a game takes the card's memory: 1 GiB reserve -> pause below 512 MiB,
    # admit again from 768 MiB, unload below 256 MiB.
    assert desktop.play([card_view(3.0), card_view(1.0), card_view(0.6)]) == []
    assert desktop.play([card_view(0.4)]) == ["stopped_admitting"]
    stopped = desktop.notices[-1]
    assert stopped.headroom.signal == "gpu" and stopped.headroom.gpu_name == RTX_NAME
    assert stopped.thresholds == GuardianThresholds.from_reserve(GIB)
    assert "only 410 MiB of GPU memory (NVIDIA GeForce RTX 4090) is free, less than the 512 MiB" in stopped.message
    assert stopped.top_processes == (GAME,) and "game.exe (pid 5151)" in stopped.message
    with pytest.raises(RequestsPausedError):
        desktop.ask()
    assert desktop.play([card_view(0.7)]) == []  # above the stop line, below the resume line
    assert desktop.play([card_view(0.9, available_gib=1.9)]) == []  # the card recovered, RAM now low: still paused
    assert not desktop.manager.admission.admitting
    assert desktop.play([card_view(0.9)]) == ["resumed"]
    assert desktop.play([card_view(0.2)]) == ["unloaded"]
    assert desktop.manager.engine is None and "GPU memory (NVIDIA GeForce RTX 4090)" in desktop.notices[-1].message


def test_a_full_card_does_not_matter_to_a_model_that_is_not_on_it(machine: Machine) -> None:
    assert machine.play([card_view(0.1)]) == []  # a CPU plan: the card's memory is someone else's business
    assert machine.manager.engine is not None and machine.ask() == "echo: hello"


def test_a_sudden_drop_below_the_floor_unloads_without_a_warning_first(machine: Machine) -> None:
    assert machine.play([os_view(20), os_view(0.3)]) == ["unloaded"]
    assert machine.notices[-1].level == "critical" and machine.manager.engine is None


def test_the_guardian_thread_samples_and_acts_on_its_own(tiny_gguf: Path) -> None:
    timeline = [os_view(50), os_view(20), os_view(8), os_view(1.8), os_view(1.8), os_view(0.9)]
    machine = Machine(tiny_gguf, timeline)
    unloaded = threading.Event()
    machine.guardian.add_listener(lambda notice: unloaded.set() if notice.action == "unloaded" else None)
    machine.guardian.start()
    try:
        assert unloaded.wait(EVENT_TIMEOUT_S)
    finally:
        machine.guardian.stop()
    assert [notice.action for notice in machine.notices] == ["stopped_admitting", "unloaded"]
    assert machine.manager.engine is None


def test_the_guardian_thread_watches_the_card_and_closes_its_reader_when_stopped(tiny_gguf: Path) -> None:
    timeline = [card_view(4.0), card_view(2.0), card_view(0.45), card_view(0.45), card_view(0.1)]
    machine = Machine(tiny_gguf, timeline, hardware=rtx4090())
    closed = threading.Event()
    machine.guardian._close = closed.set  # what guard_engine_manager hands in: the NVML session's close
    unloaded = threading.Event()
    machine.guardian.add_listener(lambda notice: unloaded.set() if notice.action == "unloaded" else None)
    machine.guardian.start()
    try:
        assert unloaded.wait(EVENT_TIMEOUT_S)
    finally:
        machine.guardian.stop()
    assert closed.wait(EVENT_TIMEOUT_S)
    assert [(notice.action, notice.headroom.signal) for notice in machine.notices] == [
        ("stopped_admitting", "gpu"), ("unloaded", "gpu")]


def test_a_failing_reader_or_listener_does_not_stop_the_guard(tiny_gguf: Path) -> None:
    machine = Machine(tiny_gguf, [OSError("meminfo vanished"), os_view(0.5)])
    done = threading.Event()

    def broken(notice: GuardianNotice) -> None:
        raise RuntimeError("listener bug")

    machine.guardian.add_listener(broken)
    machine.guardian.add_listener(lambda notice: done.set())
    machine.guardian.start()
    try:
        assert done.wait(EVENT_TIMEOUT_S)
    finally:
        machine.guardian.stop()
    assert machine.samples_read >= 2 and machine.notices[0].action == "unloaded"
