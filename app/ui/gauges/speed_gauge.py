"""SpeedGauge: TTFT, prefill and decode tokens/s (live and last answer) against the roofline, with a history plot."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from app.core.services.gauge_readings import GaugeSnapshot, SpeedReading
from app.ui.gauges.gauge_style import format_rate, gauge_title
from app.ui.gauges.speed_history_plot import SpeedHistoryPlot
from app.ui.i18n import follow_language

DASH = "–"


def wrapped_tooltip(text: str) -> str:
    """``text`` as rich text, which Qt wraps to a tooltip's width (plain text would run off the screen)."""
    return f"<p>{html.escape(text)}</p>"


class SpeedGauge(QWidget):
    """Shows the speed part of a GaugeSnapshot (the last one is kept, so a language switch writes it again)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("speedGauge")
        self.snapshot: GaugeSnapshot | None = None
        self.title = gauge_title(self)
        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(0)
        grid.setColumnStretch(1, 1)
        self.values: dict[str, QLabel] = {}
        self.names: dict[str, QLabel] = {}
        for row, key in enumerate(("ttft", "prefill", "decode", "roofline", "chats")):
            label = QLabel(self)
            value = QLabel(DASH, self)
            value.setObjectName(f"speed:{key}")
            value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            label.setBuddy(value)
            grid.addWidget(label, row, 0)
            grid.addWidget(value, row, 1)
            self.values[key] = value
            self.names[key] = label
        self.history = SpeedHistoryPlot(self)
        self.note = QLabel(self)
        self.note.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addLayout(grid)
        layout.addWidget(self.history, 1)
        layout.addWidget(self.note)
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.setAccessibleName(self.tr("Speed gauge"))
        self.title.setText(self.tr("Speed"))
        names = {
            "ttft": self.tr("Time to first token"), "prefill": self.tr("Prefill"), "decode": self.tr("Decode"),
            "roofline": self.tr("Bandwidth limit"), "chats": self.tr("Chats"),
        }
        for key, name in names.items():
            self.names[key].setText(name)
            self.values[key].setAccessibleName(name)
        if self.snapshot is not None:
            self._show_values(self.snapshot)

    def show_snapshot(self, snapshot: GaugeSnapshot) -> None:
        self.snapshot = snapshot
        self._show_values(snapshot)
        speed = snapshot.speed
        self.history.add_sample(snapshot.taken_at, speed.decode_tok_s, speed.roofline_tok_s)

    def _show_values(self, snapshot: GaugeSnapshot) -> None:
        speed = snapshot.speed
        self.values["ttft"].setText(self._seconds(speed.last_ttft_s))
        self.values["prefill"].setText(self._rate(speed.prefill_tok_s, speed.last_prefill_tok_s))
        self.values["decode"].setText(self._rate(speed.decode_tok_s, speed.last_decode_tok_s))
        self.values["roofline"].setText(self._roofline(speed))
        self.values["chats"].setText(
            self.tr("{0} running, {1} waiting").format(speed.running_requests, speed.waiting_requests)
        )
        if not snapshot.model_loaded:
            self.note.setText(self.tr("Load a model to see its speed."))
        elif speed.kv_cells_capacity:
            self.note.setText(self.tr("KV cache, all chats: {0} of {1} cells in use.").format(
                f"{speed.kv_cells_used:,}", f"{speed.kv_cells_capacity:,}"
            ))
        else:
            self.note.setText("")
        explained = snapshot.model_loaded and speed.kv_cells_capacity
        self.note.setToolTip(wrapped_tooltip(self.tr(
            "Cells of the model's KV cache holding text now, in every chat together: earlier prompts and answers "
            "are kept so a follow-up is not read again. The meter under the message box counts something else: the "
            "next prompt of the conversation on show, against one chat's context window.")) if explained else "")

    def _seconds(self, value: float | None) -> str:
        if value is None:
            return DASH
        return self.tr("{0:.0f} ms").format(value * 1000) if value < 1 else self.tr("{0:.2f} s").format(value)

    def _rate(self, live: float | None, last: float | None) -> str:
        if live is not None:
            return self.tr("{0} now").format(format_rate(live))
        if last is not None:
            return self.tr("{0}, last answer").format(format_rate(last))
        return DASH

    def _roofline(self, speed: SpeedReading) -> str:
        if speed.roofline_tok_s is None:
            return DASH
        fraction = speed.roofline_fraction
        ceiling = format_rate(speed.roofline_tok_s)
        if fraction is None:
            return ceiling
        return self.tr("{0} ({1:.0f} % reached)").format(ceiling, fraction * 100)
