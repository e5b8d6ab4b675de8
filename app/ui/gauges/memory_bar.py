"""MemoryBar: one memory pool drawn as a stacked bar (QPainter), segment by segment."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.core.services.gauge_readings import MemoryBarReading
from app.ui.gauges.gauge_style import format_gib, segment_color, segment_name
from app.ui.i18n import follow_language

BAR_HEIGHT = 18  # pixels: room for the hatching of reserved KV, short enough for a 600-pixel window


class MemoryBar(QWidget):
    """Stacked bar of a MemoryBarReading; reserved-but-empty KV is hatched, free space is the background."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryBar")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMinimumHeight(BAR_HEIGHT)
        self.reading: MemoryBarReading | None = None
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.setAccessibleName(self.tr("Memory bar"))
        if self.reading is not None:
            self.set_reading(self.reading)

    def sizeHint(self) -> QSize:
        return QSize(240, BAR_HEIGHT)

    def set_reading(self, reading: MemoryBarReading) -> None:
        self.reading = reading
        parts = [f"{segment_name(segment.key)} {format_gib(segment.bytes)}" for segment in reading.segments]
        description = ", ".join(parts)
        self.setAccessibleDescription(description)
        self.setToolTip("\n".join(parts))
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        outline = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        palette = self.palette()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(palette.color(QPalette.ColorRole.Base))
        painter.drawRoundedRect(outline, 4, 4)
        reading = self.reading
        if reading is not None and reading.total_bytes > 0:
            painter.save()
            clip = QPainterPath()
            clip.addRoundedRect(outline, 4, 4)
            painter.setClipPath(clip)
            x = outline.left()
            scale = outline.width() / reading.total_bytes
            for segment in reading.segments:
                width = segment.bytes * scale
                if segment.key != "free" and width > 0:
                    rect = QRectF(x, outline.top(), max(width, 1.0), outline.height())
                    color = segment_color(segment.key)
                    painter.fillRect(rect, color)
                    if segment.key == "kv_reserved":
                        painter.fillRect(rect, QBrush(QColor(segment_color("kv_used")), Qt.BrushStyle.BDiagPattern))
                x += width
            painter.restore()
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(palette.color(QPalette.ColorRole.Mid), 1))
        painter.drawRoundedRect(outline, 4, 4)
        painter.end()
