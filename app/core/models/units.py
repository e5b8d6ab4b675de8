"""Human-readable sizes in decimal units, as the Hugging Face hub shows them (1 GB = 10^9 bytes)."""

from __future__ import annotations

_UNITS = ((10**12, "TB"), (10**9, "GB"), (10**6, "MB"), (10**3, "kB"))


def human_size(byte_count: int | None) -> str:
    """``"4.68 GB"``, ``"512 kB"``, ``"17 bytes"``; ``"unknown"`` for None."""
    if byte_count is None:
        return "unknown"
    for scale, unit in _UNITS:
        if abs(byte_count) >= scale:
            value = byte_count / scale
            return f"{value:.2f} {unit}" if value < 100 else f"{value:.0f} {unit}"
    return f"{byte_count} bytes"
