"""The memory guardian on simulated machines: fake memory timelines drive a real EngineManager with a fake engine."""

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
from app.core.services.memory_guardian import (
    GuardedEngine,
    GuardianNotice,
    GuardianThresholds,
    MemoryGuardian,
    effective_headroom,
)
from tests.core.planner.fake_hardware import cpu_only

GIB = 1024**3
MIB = 1024**2
TOTAL = 128 * GIB
RESERVE = 4 * GIB  # stop admitting below 2 GiB, admit again from 3 GiB, unload below 1 GiB
BROWSER = ProcessMemory(4242, "chrome", 9 * GIB)
EVENT_TIMEOUT_S = 30.0


def os_view(available_gib: float, page_cache_gib: float = 0.0, gpu_free_gib: float | None = None) -> MemoryView:
    gpu_free = None if gpu_free_gib is None else int(gpu_free_gib * GIB)
    return MemoryView(TOTAL, int(available_gib * GIB), int(page_cache_gib * GIB), gpu_free,
                      None if gpu_free is None else TOTAL)


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

    def __init__(self, model: Path, timeline: Sequence[MemoryView | Exception] = ()) -> None:
        self.events: list[str] = []
        settings = Settings.defaults()

        def factory(backend: BackendName) -> EchoEngine:
            return EchoEngine(self.events)

        self.manager = EngineManager(lambda: cpu_only(), lambda: settings, engine_factory=factory)
        self.manager.load(model)
        self.notices: list[GuardianNotice] = []
        self.timeline = list(timeline)
        self.samples_read = 0
        self.guardian = MemoryGuardian(
            self.read,
            GuardedEngine(lambda: self.manager.engine is not None, self.manager.admission, self.manager.unload),
            lambda: GuardianThresholds.from_reserve(RESERVE),
            top_processes=lambda: (BROWSER,),
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
    assert "1.6 GiB" in refused.value.message and "2.0 GiB" in refused.value.message
    assert "chrome (pid 4242): 9.0 GiB" in str(refused.value.hint)
    stopped = machine.notices[-1]
    assert stopped.offers == ("unload", "reload_smaller") and stopped.top_processes == (BROWSER,)
    assert machine.play([os_view(1.4), os_view(1.2)]) == []  # still low: nothing more to do, said once
    assert machine.play([os_view(0.7)]) == ["unloaded"]
    assert machine.manager.engine is None and machine.events[-1] == "unload"
    assert "0.7 GiB" in machine.notices[-1].message and "chrome" in machine.notices[-1].message
    with pytest.raises(NoModelLoadedError):  # the gate is open again; there is simply no model
        machine.ask()
    assert machine.play([os_view(0.5)]) == []  # nothing loaded: nothing to guard


def test_memory_coming_back_admits_requests_again_after_hysteresis(machine: Machine) -> None:
    assert machine.play([os_view(1.9)]) == ["stopped_admitting"]
    assert machine.play([os_view(2.5)]) == []  # above the stop line but below the resume line
    assert not machine.manager.admission.admitting
    assert machine.play([os_view(3.2)]) == ["resumed"]
    assert machine.ask() == "echo: hello"


def test_page_cache_growing_while_a_model_loads_is_not_taken_for_lost_memory(machine: Machine) -> None:
    # Reading a 60 GB model: the page cache grows, CUDA's free figure (which leaves the cache out) falls
    # toward nothing, MemAvailable stays high because the kernel reclaims the cache on demand.
    timeline = [os_view(100 - step, page_cache_gib=10 * step, gpu_free_gib=100 - 11 * step) for step in range(9)]
    assert machine.play(timeline) == []
    assert machine.manager.admission.admitting and machine.ask() == "echo: hello"
    headroom = effective_headroom(timeline[-1])
    assert headroom.bytes == timeline[-1].available_bytes
    assert headroom.note is not None and "page cache" in headroom.note


def test_the_gpu_view_wins_when_it_sees_less_than_the_page_cache_explains(machine: Machine) -> None:
    # The OS looks healthy (30 GiB available, 1 GiB of cache) but the GPU allocator has only 1.5 GiB left.
    disagreeing = os_view(30, page_cache_gib=1, gpu_free_gib=1.5)
    assert effective_headroom(disagreeing).bytes == int(1.5 * GIB)
    assert machine.play([os_view(30, page_cache_gib=1, gpu_free_gib=25), disagreeing]) == ["stopped_admitting"]
    assert "GPU reports only 1.5 GiB" in str(machine.notices[-1].headroom.note)
    assert machine.play([os_view(30, page_cache_gib=1, gpu_free_gib=0.6)]) == ["unloaded"]
    assert machine.manager.engine is None


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
