"""Hardware probe: OS, CPU, RAM, GPUs, unified-memory verdict, memory bandwidth and backend choice.

Importing this package is cheap: numpy, pynvml and libcuda are touched only while probing.
"""

from __future__ import annotations

from app.core.hardware.format import format_report
from app.core.hardware.probe import probe_hardware
from app.core.hardware.report import (
    BackendName,
    BackendRecommendation,
    BandwidthEstimate,
    BandwidthSource,
    GpuInfo,
    GpuVendor,
    HardwareReport,
    UnifiedMemoryVerdict,
)
from app.core.hardware.sources import ProbeSources

__all__ = [
    "BackendName",
    "BackendRecommendation",
    "BandwidthEstimate",
    "BandwidthSource",
    "GpuInfo",
    "GpuVendor",
    "HardwareReport",
    "ProbeSources",
    "UnifiedMemoryVerdict",
    "format_report",
    "probe_hardware",
]
