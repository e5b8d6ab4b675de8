"""The memory guardian on a real NVIDIA card: another program fills the card (cuMemAlloc in a child process) and
the guardian, reading the card through NVML only (no CUDA context in this process), pauses new requests and then
unloads. Skipped where NVML reports no card memory (no NVIDIA GPU, or a unified one such as GB10)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from app.core.engines.admission import AdmissionGate
from app.core.hardware.live_memory import LiveMemoryReader
from app.core.hardware.nvml_reader import NvmlMemoryWatch
from app.core.services.memory_guardian import GuardedEngine, GuardianThresholds, MemoryGuardian

MIB = 1024**2
GIB = 1024**3
ANSWER_TIMEOUT_S = 120.0
# Another program: a CUDA context of its own, then allocations on request ("alloc BYTES" -> "ok" / "failed N").
FILLER = r"""
import ctypes, sys
cuda = ctypes.CDLL("libcuda.so.1")
assert cuda.cuInit(0) == 0
device, context = ctypes.c_int(), ctypes.c_void_p()
assert cuda.cuDeviceGet(ctypes.byref(device), 0) == 0
assert cuda.cuCtxCreate_v2(ctypes.byref(context), 0, device) == 0
kept = []
print("ready", flush=True)
for line in sys.stdin:
    pointer = ctypes.c_uint64()
    result = cuda.cuMemAlloc_v2(ctypes.byref(pointer), ctypes.c_size_t(int(line.split()[1])))
    kept.append(pointer)
    print("ok" if result == 0 else f"failed {result}", flush=True)
"""


class Filler:
    """The other program, driven line by line (each request waits for its answer)."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, "-c", FILLER], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        assert self._answer() == "ready"

    def _answer(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def take(self, byte_count: int) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"alloc {byte_count}\n")
        self.process.stdin.flush()
        assert self._answer() == "ok"

    def close(self) -> None:
        self.process.kill()
        self.process.wait(ANSWER_TIMEOUT_S)


@pytest.fixture
def watch() -> Iterator[NvmlMemoryWatch]:
    watch = NvmlMemoryWatch()
    if watch() is None:
        watch.close()
        pytest.skip("NVML reports no GPU memory here (no NVIDIA card, or a unified one)")
    yield watch
    watch.close()


def test_another_program_filling_the_card_pauses_then_unloads(watch: NvmlMemoryWatch) -> None:
    loaded, unloads = [True], []

    def unload() -> None:
        loaded[0] = False
        unloads.append("unload")

    gate = AdmissionGate()
    guardian = MemoryGuardian(
        LiveMemoryReader(gpu=watch),
        GuardedEngine(lambda: loaded[0], gate, unload, gpu_pool=lambda: "separate"),
        lambda: GuardianThresholds.from_reserve(GIB),  # the system's RAM is not what this test drains
        gpu_processes=watch.gpu_processes,
    )
    filler = Filler()
    try:
        assert guardian.observe(LiveMemoryReader(gpu=watch)()) is None  # the card has room
        free = watch()
        assert free is not None
        filler.take(free.free_bytes - 400 * MIB)
        view = LiveMemoryReader(gpu=watch)()
        assert view.gpu is not None and view.gpu.free_bytes < 512 * MIB
        notice = guardian.observe(view)
        assert notice is not None and notice.action == "stopped_admitting" and notice.headroom.signal == "gpu"
        assert view.gpu.name in notice.message and not gate.admitting
        assert [user.pid for user in notice.top_processes][:1] in ([], [filler.process.pid])  # named where NVML can
        print("paused:", notice.message)
        filler.take(200 * MIB)
        notice = guardian.observe(LiveMemoryReader(gpu=watch)())
        assert notice is not None and notice.action == "unloaded" and unloads == ["unload"]
        print("unloaded:", notice.message)
        # NVML only: this process holds no CUDA context on the card (the driver lists every process that does).
        holders = {user.pid for user in watch.gpu_processes(count=1000)}
        print("processes with a context on the card:", holders, "filler:", filler.process.pid, "this:", os.getpid())
        assert os.getpid() not in holders
    finally:
        filler.close()
