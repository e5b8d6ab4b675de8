"""Colours and names of the gauges' memory segments and pools (one place, so bar and legend agree)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor

from app.core.services.gauge_readings import PoolKey, SegmentKey

SEGMENT_COLORS: dict[SegmentKey, str] = {
    "app": "#7e57c2",
    "weights": "#1e88e5",
    "kv_used": "#00897b",
    "kv_reserved": "#80cbc4",
    "compute": "#fb8c00",
    "runtime": "#8e24aa",
    "embedder": "#c0ca33",
    "other": "#9e9e9e",
    "free": "#e0e0e0",
}
SEGMENT_ORDER: tuple[SegmentKey, ...] = tuple(SEGMENT_COLORS)
CONTEXT = "Gauges"


def segment_color(key: SegmentKey) -> QColor:
    return QColor(SEGMENT_COLORS[key])


def segment_name(key: SegmentKey) -> str:
    """The segment's name for people (translated)."""
    names: dict[SegmentKey, str] = {
        "app": QCoreApplication.translate("Gauges", "UniDesk"),
        "weights": QCoreApplication.translate("Gauges", "Weights"),
        "kv_used": QCoreApplication.translate("Gauges", "KV cache in use"),
        "kv_reserved": QCoreApplication.translate("Gauges", "KV cache reserved"),
        "compute": QCoreApplication.translate("Gauges", "Compute buffers"),
        "runtime": QCoreApplication.translate("Gauges", "Runtime"),
        "embedder": QCoreApplication.translate("Gauges", "Embedding model"),
        "other": QCoreApplication.translate("Gauges", "Other programs"),
        "free": QCoreApplication.translate("Gauges", "Free"),
    }
    return names[key]


def pool_name(pool: PoolKey) -> str:
    """The memory pool's name for people (translated)."""
    names: dict[PoolKey, str] = {
        "system": QCoreApplication.translate("Gauges", "System memory"),
        "unified": QCoreApplication.translate("Gauges", "Unified memory (CPU and GPU share it)"),
        "gpu": QCoreApplication.translate("Gauges", "GPU memory"),
    }
    return names[pool]


def format_rate(tokens_per_second: float) -> str:
    """Tokens/s as "45.6 tok/s", or "21,018 tok/s" from 100 on."""
    if tokens_per_second >= 100:
        return QCoreApplication.translate("Gauges", "{0} tok/s").format(f"{tokens_per_second:,.0f}")
    return QCoreApplication.translate("Gauges", "{0} tok/s").format(f"{tokens_per_second:.1f}")


def format_gib(byte_count: int) -> str:
    """Bytes as "12.3 GiB" (MiB below one GiB, KiB below one MiB)."""
    if byte_count < 1024**2:
        return QCoreApplication.translate("Gauges", "{0} KiB").format(round(byte_count / 1024))
    if byte_count < 1024**3:
        return QCoreApplication.translate("Gauges", "{0} MiB").format(round(byte_count / 1024**2))
    return QCoreApplication.translate("Gauges", "{0:.1f} GiB").format(byte_count / 1024**3)
