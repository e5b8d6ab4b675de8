"""MemoryGauge: where memory goes, one stacked bar per pool (RAM or unified pool, and GPU memory) with a legend."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from app.core.services.gauge_readings import GaugeSnapshot, MemoryBarReading
from app.ui.gauges.gauge_style import format_gib, gauge_title, pool_name
from app.ui.gauges.memory_bar import MemoryBar
from app.ui.gauges.memory_legend import MemoryLegend
from app.ui.i18n import follow_language

MAX_BARS = 2


class MemoryGauge(QWidget):
    """Shows the memory part of a GaugeSnapshot (the last one is kept, so a language switch writes it again)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryGauge")
        self.snapshot: GaugeSnapshot | None = None
        self.title = gauge_title(self)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        self.captions: list[QLabel] = []
        self.bars: list[MemoryBar] = []
        self.legends: list[MemoryLegend] = []
        for _ in range(MAX_BARS):
            caption = QLabel(self)
            caption.setObjectName("poolCaption")
            bar = MemoryBar(self)
            legend = MemoryLegend(self)
            for widget in (caption, bar, legend):
                layout.addWidget(widget)
                widget.setVisible(False)
            self.captions.append(caption)
            self.bars.append(bar)
            self.legends.append(legend)
        self.summary = QLabel(self)
        self.summary.setObjectName("memorySummary")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.setAccessibleName(self.tr("Memory gauge"))
        self.title.setText(self.tr("Memory"))
        if self.snapshot is None:
            self.summary.setText(self.tr("Reading memory…"))
        else:
            self.show_snapshot(self.snapshot)

    def show_snapshot(self, snapshot: GaugeSnapshot) -> None:
        self.snapshot = snapshot
        for index in range(MAX_BARS):
            reading = snapshot.bars[index] if index < len(snapshot.bars) else None
            for widget in (self.captions[index], self.bars[index], self.legends[index]):
                widget.setVisible(reading is not None)
            if reading is not None:
                self._show_bar(index, reading)
        held = snapshot.process_rss_bytes + snapshot.engine_child_rss_bytes
        if snapshot.engine_child_rss_bytes:
            text = self.tr("UniDesk holds {0} now (app {1}, engine processes {2}).").format(
                format_gib(held), format_gib(snapshot.process_rss_bytes), format_gib(snapshot.engine_child_rss_bytes)
            )
        else:
            text = self.tr("UniDesk holds {0} now.").format(format_gib(held))
        if snapshot.model_loaded:  # how the figures were found: a tooltip, so a short window shows every figure
            note = self.tr("Model parts are the memory plan; other programs and free space are measured.")
        else:
            note = self.tr("No model is loaded.")
        self.summary.setText(text)
        self.summary.setToolTip(note)
        self.title.setToolTip(note)

    def _show_bar(self, index: int, reading: MemoryBarReading) -> None:
        self.captions[index].setText(
            self.tr("{0}: {1}").format(pool_name(reading.pool), format_gib(reading.total_bytes))
        )
        self.bars[index].set_reading(reading)
        self.legends[index].set_reading(reading)
