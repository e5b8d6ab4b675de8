"""GaugesPanel: the memory and speed gauges stacked in the gauges dock."""

from __future__ import annotations

from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget

from app.core.services.gauge_readings import GaugeSnapshot
from app.ui.gauges.memory_gauge import MemoryGauge
from app.ui.gauges.speed_gauge import SpeedGauge
from app.ui.i18n import follow_language


class GaugesPanel(QScrollArea):
    """Both gauges; the speed plot shrinks before anything scrolls (a 900x600 window shows them whole)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gaugesPanel")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget(self)
        layout = QVBoxLayout(body)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(6)
        self.memory_gauge = MemoryGauge(body)
        self.speed_gauge = SpeedGauge(body)
        separator = QFrame(body)
        separator.setFrameShape(QFrame.Shape.HLine)
        separator.setFrameShadow(QFrame.Shadow.Sunken)
        layout.addWidget(self.memory_gauge)
        layout.addWidget(separator)
        layout.addWidget(self.speed_gauge, 1)  # its plot takes the height left, and gives it up first
        self.setWidget(body)
        self.setMinimumWidth(280)
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.setAccessibleName(self.tr("Gauges"))

    def show_snapshot(self, snapshot: GaugeSnapshot) -> None:
        self.memory_gauge.show_snapshot(snapshot)
        self.speed_gauge.show_snapshot(snapshot)
