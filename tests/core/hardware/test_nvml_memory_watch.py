"""The GPU's view for the memory guardian: one NVML session, the GPU with the least free memory, unified GPUs left
out, the processes holding the card. NVML itself needs an NVIDIA driver, so a stand-in module answers here (the
logic around NVML is under test; the probe's tests cover the real module's absence)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from app.core.hardware.memory_users import ProcessMemory
from app.core.hardware.nvml_reader import GpuMemory, NvmlMemoryWatch

GIB = 1024**3


class NVMLError(Exception):
    pass


class NVMLError_NotSupported(NVMLError):
    pass


@dataclass
class Memory:
    free: int
    total: int


@dataclass
class Process:
    pid: int
    usedGpuMemory: int | None


@dataclass
class FakeNvml:
    """Answers as pynvml does for the GPUs given: (name, free, total); total None answers "not supported"."""

    gpus: list[tuple[str, int, int | None]]
    processes: dict[int, list[Process]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    NVMLError: type[Exception] = NVMLError
    NVMLError_NotSupported: type[Exception] = NVMLError_NotSupported

    def nvmlInit(self) -> None:
        self.calls.append("init")

    def nvmlShutdown(self) -> None:
        self.calls.append("shutdown")

    def nvmlDeviceGetCount(self) -> int:
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> int:
        return index

    def nvmlDeviceGetName(self, handle: int) -> bytes:
        return self.gpus[handle][0].encode()

    def nvmlDeviceGetMemoryInfo(self, handle: int) -> Memory:
        self.calls.append(f"memory {handle}")
        _, free, total = self.gpus[handle]
        if total is None:
            raise NVMLError_NotSupported("Not Supported")
        return Memory(free, total)

    def nvmlDeviceGetComputeRunningProcesses(self, handle: int) -> list[Process]:
        return self.processes.get(handle, [])

    def nvmlDeviceGetGraphicsRunningProcesses(self, handle: int) -> list[Process]:
        raise NVMLError("graphics processes are not reported on this driver")


def test_one_session_many_readings_and_the_gpu_with_least_free_memory() -> None:
    nvml = FakeNvml([("NVIDIA RTX A6000", 30 * GIB, 48 * GIB), ("NVIDIA GeForce RTX 4090", 3 * GIB, 24 * GIB)])
    watch = NvmlMemoryWatch(nvml)
    assert watch() == GpuMemory("NVIDIA GeForce RTX 4090", 3 * GIB, 24 * GIB)
    nvml.gpus[1] = ("NVIDIA GeForce RTX 4090", 20 * GIB, 24 * GIB)  # the game closed; the other card filled
    nvml.gpus[0] = ("NVIDIA RTX A6000", 1 * GIB, 48 * GIB)
    assert watch() == GpuMemory("NVIDIA RTX A6000", 1 * GIB, 48 * GIB)
    assert nvml.calls.count("init") == 1  # opened once, read twice: no new session per sample
    watch.close()
    assert nvml.calls[-1] == "shutdown"


def test_a_unified_gpu_without_a_memory_figure_gives_no_view_and_is_not_asked_again() -> None:
    nvml = FakeNvml([("NVIDIA GB10", 0, None)])
    watch = NvmlMemoryWatch(nvml)
    assert watch() is None and watch() is None
    assert nvml.calls.count("memory 0") == 1  # "not supported" is for good


def test_without_nvml_there_is_no_gpu_view() -> None:
    class Broken(FakeNvml):
        def nvmlInit(self) -> None:
            raise NVMLError("Driver Not Loaded")

    assert NvmlMemoryWatch(Broken([("x", 1, 2)]))() is None


def test_the_processes_holding_the_lowest_card_are_named_biggest_first() -> None:
    pid = os.getpid()
    nvml = FakeNvml([("NVIDIA GeForce RTX 4090", GIB // 4, 24 * GIB)],
                    {0: [Process(pid, 2 * GIB), Process(2**22 + 7, 20 * GIB), Process(3, None)]})
    watch = NvmlMemoryWatch(nvml)
    assert watch.gpu_processes() == ()  # nothing read yet: no card to ask about
    watch()
    users = watch.gpu_processes()
    assert [(user.pid, user.rss_bytes) for user in users] == [(2**22 + 7, 20 * GIB), (pid, 2 * GIB)]
    assert users[0].name == "?"  # a process this user cannot see (or gone) keeps its pid
    assert users[1] == ProcessMemory(pid, users[1].name, 2 * GIB) and users[1].name.startswith("python")


def test_the_installed_nvml_answers_or_says_there_is_no_view() -> None:
    watch = NvmlMemoryWatch()
    try:
        reading: Any = watch()
        assert reading is None or 0 <= reading.free_bytes <= reading.total_bytes
    finally:
        watch.close()
