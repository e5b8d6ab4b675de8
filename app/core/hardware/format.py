"""Human-readable, multi-line text of a hardware report (what ``unidesk probe`` prints)."""

from __future__ import annotations

from app.core.hardware.report import BandwidthEstimate, GpuInfo, HardwareReport

GIB = 1024**3
LABEL_WIDTH = 16


def format_bytes(byte_count: int | None) -> str:
    """``"23.4 GiB"``, or ``"unknown"`` for ``None`` / zero."""
    return f"{byte_count / GIB:.1f} GiB" if byte_count else "unknown"


def format_bandwidth(estimate: BandwidthEstimate) -> str:
    """``"273 GB/s (table: NVIDIA GB10 ...)"`` or ``"unknown (why)"``."""
    if estimate.source == "unknown" or estimate.bytes_per_second <= 0:
        return f"unknown ({estimate.detail})" if estimate.detail else "unknown"
    gigabytes = estimate.bytes_per_second / 1e9
    figure = f"{gigabytes:,.0f} GB/s" if gigabytes >= 10 else f"{gigabytes:.1f} GB/s"
    return f"{figure} ({estimate.source}: {estimate.detail})"


def _gpu_line(gpu: GpuInfo, is_unified: bool) -> str:
    details: list[str] = []
    if gpu.memory_total_bytes is not None:
        free = f", {format_bytes(gpu.memory_free_bytes)} free" if gpu.memory_free_bytes is not None else ""
        details.append(f"{format_bytes(gpu.memory_total_bytes)}{free}")
    elif is_unified:
        details.append("shares system RAM")
    if gpu.integrated:
        details.append("integrated")
    if gpu.compute_capability:
        details.append(f"compute {gpu.compute_capability}")
    if gpu.driver:
        details.append(f"driver {gpu.driver}")
    suffix = f" ({', '.join(details)})" if details else ""
    return f"{gpu.name}{suffix}"


def _row(label: str, value: str) -> str:
    return f"{label:<{LABEL_WIDTH}}{value}"


def format_report(report: HardwareReport) -> str:
    """The report as aligned ``label  value`` lines, with the unified-memory evidence as bullets."""
    unified = report.unified
    total, available = format_bytes(report.ram_total_bytes), format_bytes(report.ram_available_bytes)
    lines = [
        _row("OS", f"{report.os_name} {report.os_release} ({report.arch})"),
        _row(
            "CPU",
            f"{report.cpu_model}, {report.cpu_cores_physical} cores / {report.cpu_cores_logical} threads",
        ),
        _row(
            "RAM",
            f"{total} total, {available} available",
        ),
    ]
    if report.gpus:
        for index, gpu in enumerate(report.gpus):
            lines.append(_row("GPU" if index == 0 else "", _gpu_line(gpu, unified.is_unified)))
    else:
        lines.append(_row("GPU", "none"))
    verdict = "yes: one pool (system RAM), counted once" if unified.is_unified else "no"
    lines.append(_row("Unified memory", verdict))
    lines.extend(_row("", f"- {line}") for line in unified.evidence)
    lines.append(_row("Bandwidth", format_bandwidth(report.bandwidth)))
    backend = report.recommended_backend
    lines.append(_row("Backend", f"{backend.backend} ({backend.reason})"))
    return "\n".join(lines)
