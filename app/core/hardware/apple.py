"""Apple Silicon detection: macOS on arm64 (or an ``Apple M…`` chip seen through Rosetta)."""

from __future__ import annotations

from app.core.hardware.report import GpuInfo
from app.core.hardware.sources import ProbeSources


def apple_chip_name(sources: ProbeSources) -> str | None:
    """The chip name from ``sysctl -n machdep.cpu.brand_string`` (e.g. ``Apple M3 Max``), if any."""
    output = sources.run_command(["sysctl", "-n", "machdep.cpu.brand_string"])
    if output is None or not output.strip():
        return None
    return output.strip()


def detect_apple_silicon(sources: ProbeSources, cpu_model: str) -> GpuInfo | None:
    """The Apple GPU as a :class:`GpuInfo` on Apple Silicon Macs, otherwise ``None``.

    ``cpu_model`` is the brand string the CPU probe already read; it is asked again only if empty.
    """
    if sources.system != "Darwin":
        return None
    chip = cpu_model if cpu_model.startswith("Apple") else apple_chip_name(sources)
    on_apple_chip = sources.machine.lower() == "arm64" or (chip or "").startswith("Apple M")
    if not on_apple_chip:
        return None
    return GpuInfo(vendor="apple", name=chip or "Apple Silicon", integrated=True)
