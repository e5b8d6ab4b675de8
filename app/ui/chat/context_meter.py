"""ContextMeter: a thin stacked bar of what the next prompt is made of and how much of the context is left."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from app.core.chat.prompt import ContextBudget
from app.ui.i18n import TextSource, follow_language, rendered

BAR_HEIGHT = 8
PART_COLORS = {
    "system": "#8e8cd8",
    "sources": "#2e9e6b",
    "history": "#4a90d9",
    "question": "#f0a030",
    "reserved": "#c8a2c8",
}
OVERFLOW_COLOR = "#e53935"


def compact_tokens(count: int) -> str:
    """1234 -> "1.2K", 32768 -> "32.8K", 512 -> "512"."""
    if count < 1000:
        return str(count)
    return f"{count / 1000:.1f}K"


def budget_parts(budget: ContextBudget) -> dict[str, int]:
    """The meter's parts in drawing order (free last); they add up to the context."""
    return {
        "system": budget.system, "sources": budget.sources, "history": budget.history,
        "question": budget.question, "reserved": budget.reserved_for_answer, "free": max(0, budget.free),
    }


class _Bar(QWidget):
    """The stacked bar itself."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.parts: dict[str, int] = {}
        self.total = 0
        self.overflow = False
        self.setMinimumWidth(60)
        self.setFixedHeight(BAR_HEIGHT + 4)

    def sizeHint(self) -> QSize:
        return QSize(self.minimumWidth(), BAR_HEIGHT + 4)  # the line beside it comes first; it takes what is left

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        area = QRectF(0.5, 2.5, self.width() - 1.0, BAR_HEIGHT)
        free = self.palette().color(QPalette.ColorRole.Mid)
        free.setAlpha(70)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(free)
        painter.drawRoundedRect(area, 3, 3)
        if self.overflow:
            painter.setBrush(QColor(OVERFLOW_COLOR))
            painter.drawRoundedRect(area, 3, 3)
        elif self.total > 0:
            painter.setClipRect(area)
            x = area.left()
            for key, tokens in self.parts.items():
                if key == "free" or tokens <= 0:
                    continue
                width = area.width() * tokens / self.total
                painter.setBrush(QColor(PART_COLORS[key]))
                painter.drawRect(QRectF(x, area.top(), width, area.height()))
                x += width
        painter.end()


class _ElidedLabel(QLabel):
    """A one-line label that may be narrower than its text: it draws the text elided (``text()`` stays whole)."""

    def minimumSizeHint(self) -> QSize:
        return QSize(min(40, super().minimumSizeHint().width()), super().minimumSizeHint().height())

    def paintEvent(self, event: QPaintEvent) -> None:
        room = self.contentsRect()
        shown = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, room.width())
        painter = QPainter(self)
        self.style().drawItemText(painter, room, int(self.alignment()), self.palette(), self.isEnabled(), shown,
                                  QPalette.ColorRole.WindowText)
        painter.end()


class ContextMeter(QWidget):
    """Shows a :class:`ContextBudget` (tooltip: every part in tokens), or a state line when there is none.

    It counts this conversation's next prompt against one chat's context window; the KV-cache line in the gauges
    counts something else (cells filled across all chats, text kept for reuse included), and both tooltips say so.

    A language switch writes what is shown again from the budget (or overflow, or state line) it holds.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("contextMeter")
        self.bar = _Bar(self)
        self.label = _ElidedLabel(self)  # elided in a narrow window; the tooltip holds the whole line
        self.label.setObjectName("contextMeterLabel")
        self.label.setEnabled(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.label)
        self.budget: ContextBudget | None = None
        self._show_again: Callable[[], None] = partial(self.set_unavailable,
                                                       lambda: self.tr("Context: no model loaded"))
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.setAccessibleName(self.tr("Context used"))
        self._show_again()

    def parts(self) -> dict[str, int]:
        """Tokens per part as drawn now (empty when no budget is shown)."""
        return dict(self.bar.parts)

    def set_budget(self, budget: ContextBudget) -> None:
        self._show_again = partial(self.set_budget, budget)
        self.budget = budget
        self.bar.parts = budget_parts(budget)
        self.bar.total = budget.context
        self.bar.overflow = False
        used = budget.prompt
        self.label.setText(self.tr("Next prompt: {0} / {1} tokens").format(compact_tokens(used),
                                                                           compact_tokens(budget.context)))
        names = {
            "system": self.tr("System prompt"), "sources": self.tr("Sources"), "history": self.tr("Earlier messages"),
            "question": self.tr("Your question"), "reserved": self.tr("Kept for the answer"), "free": self.tr("Free"),
        }
        lines = [self.tr("What this conversation sends with your next message: {0} of the {1} tokens one chat can "
                         "hold (its context window).").format(f"{used:,}", f"{budget.context:,}")]
        lines += [self.tr("{0}: {1}").format(names[key], f"{tokens:,}") for key, tokens in self.bar.parts.items()]
        lines.append(self.tr("Sources are searched when you send (not counted before)."))
        lines.append(self.tr("The KV cache in the gauges counts something else: the cells filled in all chats, "
                             "including earlier prompts and answers kept so a follow-up is not read again."))
        self.setToolTip("\n".join(lines))
        self.bar.update()

    def set_overflow(self, needed: int, context: int) -> None:
        """The question does not fit: the bar turns red."""
        self._show_again = partial(self.set_overflow, needed, context)
        self.budget = None
        self.bar.parts = {}
        self.bar.total = context
        self.bar.overflow = True
        self.label.setText(self.tr("Next prompt: {0} / {1} tokens").format(compact_tokens(needed),
                                                                           compact_tokens(context)))
        self.setToolTip(self.tr("The question needs {0} tokens (with room for the answer); the context holds {1}.")
                        .format(f"{needed:,}", f"{context:,}"))
        self.bar.update()

    def set_unavailable(self, text: TextSource) -> None:
        """A state line instead of the bar (a function: written again after a language switch)."""
        self._show_again = partial(self.set_unavailable, text)
        self.budget = None
        self.bar.parts = {}
        self.bar.total = 0
        self.bar.overflow = False
        self.label.setText(rendered(text))
        self.setToolTip(rendered(text))
        self.bar.update()
