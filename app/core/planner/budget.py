"""How much memory a plan may use on this machine: unified pool, discrete GPU + RAM, or RAM only."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.core.hardware.report import HardwareReport

MemoryKind = Literal["unified", "discrete", "cpu"]
GIB = 1024**3
GPU_RESERVE_BYTES = GIB
"""Left free on a discrete GPU (the desktop, a browser and other programs draw on it too); the memory guardian
pauses new requests when the card's free memory falls to half of it."""


@dataclass(frozen=True)
class MemoryBudget:
    """Free memory the plan may fill.

    ``host_bytes`` is MemAvailable minus the reserve (never below 0). ``gpu_bytes`` is free
    dedicated VRAM less :data:`GPU_RESERVE_BYTES` (discrete only); a unified machine has one pool,
    counted once, as host.
    """

    kind: MemoryKind
    host_bytes: int
    gpu_bytes: int
    ram_total_bytes: int
    gpu_total_bytes: int
    reserve_bytes: int

    @property
    def total_bytes(self) -> int:
        """Everything the plan may use."""
        return self.host_bytes + self.gpu_bytes

    @property
    def has_gpu(self) -> bool:
        """True when a GPU backend (CUDA/Metal) will run: unified with a GPU, or discrete."""
        return self.kind != "cpu"


def memory_budget(hardware: HardwareReport, reserve_bytes: int) -> MemoryBudget:
    """The budget for ``hardware`` keeping ``reserve_bytes`` of RAM free."""
    host = max(0, hardware.ram_available_bytes - reserve_bytes)
    if hardware.unified.is_unified and hardware.gpus:
        kind: MemoryKind = "unified"
    elif hardware.has_discrete_gpu and hardware.gpu_memory_total_bytes > 0:
        kind = "discrete"
    else:
        kind = "cpu"
    return MemoryBudget(
        kind=kind,
        host_bytes=host,
        gpu_bytes=max(0, hardware.gpu_memory_free_bytes - GPU_RESERVE_BYTES) if kind == "discrete" else 0,
        ram_total_bytes=hardware.ram_total_bytes,
        gpu_total_bytes=hardware.gpu_memory_total_bytes if kind == "discrete" else 0,
        reserve_bytes=reserve_bytes,
    )
