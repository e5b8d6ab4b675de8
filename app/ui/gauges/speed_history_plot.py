"""SpeedHistoryPlot: decode tokens/s over the last minute against the roofline (QPainter, no plotting library)."""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.ui.gauges.gauge_style import format_rate, plot_colors
from app.ui.i18n import follow_language

HISTORY_S = 60.0
MIN_HEIGHT, MAX_HEIGHT = 56, 220  # pixels: enough for the line and its two labels; no taller than useful


class SpeedHistoryPlot(QWidget):
    """Line of decode tok/s samples (gaps while idle) with the roofline as a dashed line."""

    def __init__(self, parent: QWidget | None = None, history_s: float = HISTORY_S) -> None:
        super().__init__(parent)
        self.setObjectName("speedHistory")
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumHeight(MIN_HEIGHT)  # it gives up height first when the dock is short (a 600-pixel window)
        self.setMaximumHeight(MAX_HEIGHT)
        self._history_s = history_s
        self.samples: deque[tuple[float, float | None, float | None]] = deque()
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        """Its name; the texts drawn on the plot follow at the next paint."""
        self.setAccessibleName(self.tr("Decode speed history"))
        self.update()

    def sizeHint(self) -> QSize:
        """Its least height: a scroll area sizes a word-wrapping panel by the preferred heights, so a taller
        hint here made a short dock scroll; the expanding policy gives it the height that is left."""
        return QSize(240, MIN_HEIGHT)

    def add_sample(self, at: float, decode_tok_s: float | None, roofline_tok_s: float | None) -> None:
        """Append one reading (``decode_tok_s`` None while idle) and drop those older than the window."""
        self.samples.append((at, decode_tok_s, roofline_tok_s))
        while self.samples and self.samples[0][0] < at - self._history_s:
            self.samples.popleft()
        self.update()

    def clear(self) -> None:
        self.samples.clear()
        self.update()

    def _y_max(self) -> float:
        values = [value for _, decode, roof in self.samples for value in (decode, roof) if value]
        return max(values) * 1.15 if values else 1.0

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        area = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.fillRect(area, palette.color(QPalette.ColorRole.Base))
        painter.setPen(QPen(palette.color(QPalette.ColorRole.Mid), 1))
        painter.drawRect(area)
        plot = area.adjusted(4, 16, -4, -4)
        y_max = self._y_max()
        text_color = palette.color(QPalette.ColorRole.PlaceholderText)
        painter.setPen(text_color)
        if any(decode or roof for _, decode, roof in self.samples):
            painter.drawText(
                QRectF(area.left() + 4, area.top() + 1, area.width() - 8, 14),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                format_rate(y_max),
            )
        painter.drawText(
            QRectF(area.left() + 4, area.top() + 1, area.width() - 8, 14),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            self.tr("last {0:.0f} s").format(self._history_s),
        )
        if not any(decode is not None for _, decode, _ in self.samples):
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, self.tr("No decoding in the last minute"))
        if self.samples:
            now = self.samples[-1][0]

            def point(at: float, value: float) -> QPointF:
                x = plot.right() - (now - at) / self._history_s * plot.width()
                return QPointF(x, plot.bottom() - value / y_max * plot.height())

            self._draw_series(painter, [(at, roof) for at, _, roof in self.samples], point,
                              QPen(QColor(plot_colors(palette).roofline), 1.2, Qt.PenStyle.DashLine))
            self._draw_series(painter, [(at, decode) for at, decode, _ in self.samples], point,
                              QPen(QColor(plot_colors(palette).decode), 2.0))
        painter.end()

    @staticmethod
    def _draw_series(painter: QPainter, values: list[tuple[float, float | None]], point: object, pen: QPen) -> None:
        path = QPainterPath()
        drawing = False
        for at, value in values:
            if value is None:
                drawing = False
                continue
            position = point(at, value)  # type: ignore[operator]
            if drawing:
                path.lineTo(position)
            else:
                path.moveTo(position)
                drawing = True
        painter.setPen(pen)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
