"""Plain, immutable results of the hardware probe, shared by the probe, the planner and the UI."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

BackendName = Literal["vllm", "llamacpp"]
BandwidthSource = Literal["table", "measured", "unknown"]
GpuVendor = Literal["nvidia", "amd", "apple", "intel", "other"]


@dataclass(frozen=True)
class GpuInfo:
    """One GPU as the probe saw it. Memory is ``None`` where the driver cannot say (unified)."""

    vendor: GpuVendor
    name: str
    memory_total_bytes: int | None = None
    memory_free_bytes: int | None = None
    integrated: bool | None = None
    compute_capability: str | None = None
    driver: str | None = None


@dataclass(frozen=True)
class UnifiedMemoryVerdict:
    """Whether the GPU shares system memory, and the evidence that decided it."""

    is_unified: bool
    evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class BandwidthEstimate:
    """Memory bandwidth in bytes/s and where the figure came from."""

    bytes_per_second: float
    source: BandwidthSource
    detail: str = ""


@dataclass(frozen=True)
class BackendRecommendation:
    backend: BackendName
    reason: str


@dataclass(frozen=True)
class HardwareReport:
    """Everything the planner and the UI need to know about this machine."""

    os_name: str
    os_release: str
    arch: str
    cpu_model: str
    cpu_cores_physical: int
    cpu_cores_logical: int
    ram_total_bytes: int
    ram_available_bytes: int
    unified: UnifiedMemoryVerdict
    bandwidth: BandwidthEstimate
    recommended_backend: BackendRecommendation
    gpus: tuple[GpuInfo, ...] = field(default_factory=tuple)

    @property
    def has_discrete_gpu(self) -> bool:
        """True when at least one GPU has memory of its own (not unified)."""
        return bool(self.gpus) and not self.unified.is_unified

    @property
    def gpu_memory_total_bytes(self) -> int:
        """Sum of the dedicated memory of all discrete GPUs (0 on unified or CPU-only)."""
        if self.unified.is_unified:
            return 0
        return sum(gpu.memory_total_bytes or 0 for gpu in self.gpus)

    @property
    def gpu_memory_free_bytes(self) -> int:
        """Free dedicated GPU memory (0 on unified or CPU-only); total where free is unknown."""
        if self.unified.is_unified:
            return 0
        return sum(
            gpu.memory_free_bytes if gpu.memory_free_bytes is not None else gpu.memory_total_bytes or 0
            for gpu in self.gpus
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (tuples become lists)."""
        return asdict(self)
