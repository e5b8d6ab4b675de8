"""Colours and names of the gauges' memory segments, pools and plot lines (one place, so bar and legend agree)."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel, QWidget

from app.core.services.gauge_readings import PoolKey, SegmentKey
from app.ui.theme import is_dark

SEGMENT_COLORS: dict[SegmentKey, str] = {
    "app": "#7e57c2",
    "weights": "#1e88e5",
    "kv_used": "#00897b",
    "kv_reserved": "#80cbc4",
    "compute": "#fb8c00",
    "runtime": "#8e24aa",
    "embedder": "#c0ca33",
    "other": "#9e9e9e",
    "cache": "#cfd8dc",
    "free": "#e0e0e0",
}
SEGMENT_ORDER: tuple[SegmentKey, ...] = tuple(SEGMENT_COLORS)
CONTEXT = "Gauges"


@dataclass(frozen=True)
class PlotColors:
    """The speed plot's lines: decode tokens/s and the bandwidth roofline."""

    decode: str
    roofline: str


LIGHT_PLOT = PlotColors(decode="#1e88e5", roofline="#e53935")
DARK_PLOT = PlotColors(decode="#64b5f6", roofline="#ef9a9a")  # lighter tones: they read on a dark base


def plot_colors(palette: QPalette) -> PlotColors:
    """The line colours for a widget drawn with ``palette`` (read at paint time, so they follow the theme)."""
    return DARK_PLOT if is_dark(palette) else LIGHT_PLOT


def segment_color(key: SegmentKey) -> QColor:
    """A memory segment's fill: mid tones that read on light and dark bases alike."""
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
        "cache": QCoreApplication.translate("Gauges", "Page cache"),
        "free": QCoreApplication.translate("Gauges", "Free"),
    }
    return names[key]


def segment_note(key: SegmentKey) -> str:
    """What a segment's short name leaves out (its legend row's tooltip), or ""."""
    if key == "cache":
        return QCoreApplication.translate("Gauges", "Files the system keeps in memory: reclaimable, so counted as free")
    return ""


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


def gauge_title(parent: QWidget) -> QLabel:
    """The bold heading label of a gauge (its text is set by the gauge's retranslate_ui)."""
    title = QLabel(parent)
    title.setObjectName("gaugeTitle")
    font = title.font()
    font.setBold(True)
    title.setFont(font)
    return title
