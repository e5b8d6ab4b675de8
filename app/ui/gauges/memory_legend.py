"""MemoryLegend: the names, colours and sizes of a memory bar's segments, as a small table."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from app.core.services.gauge_readings import MemoryBarReading, SegmentKey
from app.ui.gauges.gauge_style import SEGMENT_COLORS, SEGMENT_ORDER, format_gib, segment_name, segment_note
from app.ui.i18n import follow_language

SWATCH_SIZE = 10


class MemoryLegend(QWidget):
    """One row per segment: swatch, name, size and share of the pool."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryLegend")
        self._grid = QGridLayout(self)
        self._grid.setContentsMargins(0, 0, 0, 0)
        self._grid.setHorizontalSpacing(6)
        self._grid.setVerticalSpacing(0)
        self._grid.setColumnStretch(1, 1)
        self._rows: dict[SegmentKey, tuple[QLabel, QLabel, QLabel, QLabel]] = {}
        for row, key in enumerate(SEGMENT_ORDER):
            swatch = QLabel(self)
            swatch.setFixedSize(SWATCH_SIZE, SWATCH_SIZE)
            fill = "transparent" if key == "free" else SEGMENT_COLORS[key]  # free is the bar's empty background
            border = "#9e9e9e" if key == "free" else SEGMENT_COLORS[key]
            swatch.setStyleSheet(f"background: {fill}; border: 1px solid {border}; border-radius: 2px;")
            name = QLabel(self)
            size = QLabel(self)
            size.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            share = QLabel(self)
            share.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            share.setMinimumWidth(36)
            for column, widget in enumerate((swatch, name, size, share)):
                self._grid.addWidget(widget, row, column)
                widget.setVisible(False)
            self._rows[key] = (swatch, name, size, share)
        self.reading: MemoryBarReading | None = None
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        for key, (_, name, _, _) in self._rows.items():
            name.setText(segment_name(key))
            name.setToolTip(segment_note(key))
        if self.reading is not None:
            self.set_reading(self.reading)

    def set_reading(self, reading: MemoryBarReading) -> None:
        self.reading = reading
        present = {segment.key: segment.bytes for segment in reading.segments}
        for key, widgets in self._rows.items():
            shown = key in present
            for widget in widgets:
                widget.setVisible(shown)
            if shown:
                _, _, size, share = widgets
                size.setText(format_gib(present[key]))
                fraction = present[key] / reading.total_bytes if reading.total_bytes else 0.0
                share.setText(f"{fraction * 100:.0f} %" if fraction >= 0.005 else "<1 %")

    def value_text(self, key: SegmentKey) -> str | None:
        """The size shown for ``key`` (None when the row is hidden); for tests and screen readers."""
        _, _, size, _ = self._rows[key]
        return size.text() if not size.isHidden() else None
