"""HardwareReport objects for machines the planner must handle, built directly (no probing)."""

from __future__ import annotations

from dataclasses import replace

from app.core.hardware.report import (
    BackendRecommendation,
    BandwidthEstimate,
    GpuInfo,
    HardwareReport,
    UnifiedMemoryVerdict,
)

GIB = 1024**3


def gb10(available_gib: float = 120.0) -> HardwareReport:
    """NVIDIA DGX Spark: 128 GiB unified LPDDR5x at 273 GB/s; NVML reports no memory of its own."""
    return HardwareReport(
        os_name="Linux",
        os_release="6.11",
        arch="aarch64",
        cpu_model="Cortex-X925",
        cpu_cores_physical=20,
        cpu_cores_logical=20,
        ram_total_bytes=128 * GIB,
        ram_available_bytes=int(available_gib * GIB),
        unified=UnifiedMemoryVerdict(True, ("NVML memory not supported",)),
        bandwidth=BandwidthEstimate(273e9, "table", "GB10"),
        recommended_backend=BackendRecommendation("vllm", "unified memory"),
        gpus=(GpuInfo("nvidia", "NVIDIA GB10", None, None, integrated=True, compute_capability="12.1"),),
    )


def gh200() -> HardwareReport:
    """GH200: the probe calls it unified (Grace + Hopper over NVLink-C2C), but the Hopper reports 96 GiB of HBM."""
    return replace(
        gb10(available_gib=400.0),
        cpu_model="Neoverse-V2",
        ram_total_bytes=480 * GIB,
        unified=UnifiedMemoryVerdict(True, ("Grace CPU next to an NVIDIA GPU",)),
        gpus=(GpuInfo("nvidia", "NVIDIA GH200 480GB", 96 * GIB, 94 * GIB, integrated=False),),
    )


def rtx4090(vram_free_gib: float = 23.0, ram_available_gib: float = 48.0) -> HardwareReport:
    """A desktop with a 24 GiB RTX 4090 (1008 GB/s) and 64 GiB of RAM."""
    return HardwareReport(
        os_name="Linux",
        os_release="6.8",
        arch="x86_64",
        cpu_model="Ryzen 9 7950X",
        cpu_cores_physical=16,
        cpu_cores_logical=32,
        ram_total_bytes=64 * GIB,
        ram_available_bytes=int(ram_available_gib * GIB),
        unified=UnifiedMemoryVerdict(False),
        bandwidth=BandwidthEstimate(1008e9, "table", "RTX 4090"),
        recommended_backend=BackendRecommendation("llamacpp", "discrete GPU"),
        gpus=(GpuInfo("nvidia", "NVIDIA GeForce RTX 4090", 24 * GIB, int(vram_free_gib * GIB), integrated=False),),
    )


def cpu_only(ram_total_gib: float = 16.0, ram_available_gib: float = 12.0, bandwidth: float = 50e9) -> HardwareReport:
    """A laptop without a usable GPU."""
    return HardwareReport(
        os_name="Linux",
        os_release="6.8",
        arch="x86_64",
        cpu_model="Core i7",
        cpu_cores_physical=4,
        cpu_cores_logical=8,
        ram_total_bytes=int(ram_total_gib * GIB),
        ram_available_bytes=int(ram_available_gib * GIB),
        unified=UnifiedMemoryVerdict(False),
        bandwidth=BandwidthEstimate(bandwidth, "measured"),
        recommended_backend=BackendRecommendation("llamacpp", "no GPU"),
    )
