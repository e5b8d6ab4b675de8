"""MachineSummaryView: the hardware summary as label / value rows aligned by their drawn width."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QGridLayout, QLabel, QWidget

from app.core.hardware.format import summary_rows
from app.ui.i18n import TextSource, render, rendered

LABEL, VALUE = range(2)


class MachineSummaryView(QWidget):
    """Shows a summary ``format_report`` made as a two-column grid (the label column as wide as its widest
    label in the language shown: Chinese labels are double width, so padding by characters would not line
    up); any other text (looking, failed) as one line. :meth:`text` is the summary as a copy gives it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("machineSummary")
        self._summary: TextSource = ""
        self.grid = QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setHorizontalSpacing(16)
        self.grid.setVerticalSpacing(2)
        self.grid.setColumnStretch(VALUE, 1)
        self.rows: list[tuple[QLabel, QLabel]] = []

    def show_summary(self, summary: TextSource) -> None:
        """Show ``summary`` (a report's Text, or any text source); :meth:`retranslate_ui` writes it again."""
        self._summary = summary
        self.retranslate_ui()

    def text(self) -> str:
        """The summary in the language shown, as plain lines (aligned by characters, as the CLI prints it)."""
        return rendered(self._summary)

    def retranslate_ui(self) -> None:
        summary = self._summary
        rows = summary_rows(summary) if isinstance(summary, str) else None
        if rows is None:
            texts = [("", rendered(summary))]
        else:
            texts = [(render(label), render(value)) for label, value in rows]
        while len(self.rows) > len(texts):
            for label in self.rows.pop():
                self.grid.removeWidget(label)
                label.deleteLater()
        while len(self.rows) < len(texts):
            self.rows.append((self._label(), self._label(wrap=True)))
            index = len(self.rows) - 1
            self.grid.addWidget(self.rows[index][LABEL], index, LABEL, Qt.AlignmentFlag.AlignBaseline)
            self.grid.addWidget(self.rows[index][VALUE], index, VALUE, Qt.AlignmentFlag.AlignBaseline)
        for (label, value), (label_text, value_text) in zip(self.rows, texts, strict=True):
            label.setText(label_text.strip())
            value.setText(value_text)
        self.setAccessibleDescription(self.text())

    def _label(self, *, wrap: bool = False) -> QLabel:
        label = QLabel(self)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setWordWrap(wrap)
        label.setTextFormat(Qt.TextFormat.PlainText)
        return label
