"""GaugesPanel: the memory and speed gauges stacked in the gauges dock."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QScrollArea, QVBoxLayout, QWidget

from app.core.services.gauge_readings import GaugeSnapshot
from app.ui.gauges.memory_gauge import MemoryGauge
from app.ui.gauges.speed_gauge import SpeedGauge
from app.ui.i18n import follow_language


class GaugesPanel(QScrollArea):
    """Both gauges; when the dock is short the speed plot shrinks, then steps aside, before the figures scroll
    (a 900x600 window shows every figure, in Chinese too, with a GPU's second memory bar)."""

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
        body.installEventFilter(self)  # a text that grew (new figures, another language) may leave less room
        self.setMinimumWidth(280)
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.setAccessibleName(self.tr("Gauges"))

    def show_snapshot(self, snapshot: GaugeSnapshot) -> None:
        self.memory_gauge.show_snapshot(snapshot)
        self.speed_gauge.show_snapshot(snapshot)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self._make_room()
        return super().eventFilter(watched, event)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._make_room()

    def _make_room(self) -> None:
        """Show the speed plot only where the figures fit with it at its least height (decided from the room
        the dock has without scroll bars, so showing or hiding it never flips back and forth)."""
        body, room = self.widget(), self.maximumViewportSize()
        plot = self.speed_gauge.history
        spacing = max(0, self.speed_gauge.layout().spacing())
        need = body.heightForWidth(room.width()) if body.hasHeightForWidth() else body.minimumSizeHint().height()
        if plot.isHidden():
            need += plot.minimumHeight() + spacing
        plot.setVisible(need <= room.height())
