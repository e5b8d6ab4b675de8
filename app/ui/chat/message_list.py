"""MessageList: the scrolling column of messages of the branch on show; keeps to the bottom while text streams."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QRect, QSize, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLayout, QScrollArea, QVBoxLayout, QWidget

from app.ui.chat.message_entries import MessageEntry
from app.ui.chat.message_widget import MessageWidget
from app.ui.i18n import follow_language

BOTTOM_SLACK_PX = 24
"""Within this distance of the end, the list counts as "at the bottom" and follows new text."""
READING_WIDTH_PX = 800
"""Messages are at most this wide, centred: longer lines are hard to read on a wide window."""
SIDE_MARGIN_PX = 16
FIRST_MESSAGES = 4
"""Opening a conversation builds its newest messages at once (about a screenful) ..."""
SLICE_MESSAGES = 3
"""... and the older ones a few per turn of the event loop, newest first (each renders its Markdown)."""


class _OneLineLabel(QLabel):
    """A word-wrapped label that asks for one line's width (a plain wrapped label asks for a narrow block)."""

    def sizeHint(self) -> QSize:
        width = self.fontMetrics().horizontalAdvance(self.text()) + 2 * self.margin() + 4
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:
        return QSize(min(self.sizeHint().width(), 120), super().minimumSizeHint().height())


class MessageList(QScrollArea):
    """Reuses a message's widget while its id stays on show, so switching or finishing only redraws what changed.

    The last message (the one an answer streams into) sits in the column on its own; the ones before it sit in
    one block (``earlier``), so a growing answer re-lays out three items a frame, however long the chat is.

    Opening a long conversation builds its newest ``FIRST_MESSAGES`` widgets at once and the older ones
    ``SLICE_MESSAGES`` per turn of the event loop, above them (``building`` until done), so the window keeps
    drawing; a list scrolled away from the end stays on the same message while they arrive.

    Forwards the messages' signals (ids, citations, links) under the same names.
    """

    regenerate_requested = Signal(str)
    continue_requested = Signal(str)
    edit_submitted = Signal(str, str)
    branch_requested = Signal(str)
    citation_open_requested = Signal(object)
    citation_passage_requested = Signal(object, QRect)
    link_activated = Signal(QUrl)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("messageList")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOn)
        self.content = QWidget(self)
        self.content.setObjectName("messageListContent")
        self._layout = QVBoxLayout(self.content)
        self._layout.setContentsMargins(SIDE_MARGIN_PX, 12, SIDE_MARGIN_PX, 12)
        self._layout.setSpacing(10)
        # The column grows before its messages are placed: without it, a growing answer first squeezed every
        # message above it by a pixel and then let them grow back (two moves and a resize of each per frame).
        self._layout.setSizeConstraint(QLayout.SizeConstraint.SetMinimumSize)
        self.empty_hint = QLabel(self.content)
        self.empty_hint.setObjectName("emptyChatHint")
        self.empty_hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty_hint.setWordWrap(True)
        self.empty_hint.setEnabled(False)
        self._layout.addWidget(self.empty_hint)
        self.earlier = QWidget(self.content)
        self.earlier.setObjectName("earlierMessages")
        self._earlier_layout = QVBoxLayout(self.earlier)
        self._earlier_layout.setContentsMargins(0, 0, 0, 0)
        self._earlier_layout.setSpacing(10)
        self._layout.addWidget(self.earlier)
        self._layout.addStretch(1)
        self.cut_marker = self._cut_marker()
        self.cut_before: str | None = None
        """The message the marker line stands above: the oldest one still sent to the model (None: no line)."""
        self.setWidget(self.content)
        self.widgets: dict[str, MessageWidget] = {}
        self._order: list[str] = []
        self._entries: list[MessageEntry] = []
        self._streamed: dict[str, str] = {}
        self._cut_wanted: str | None = None
        self._build_timer = QTimer(self)
        self._build_timer.setInterval(0)
        self._build_timer.timeout.connect(self._build_slice)
        self.slices = 0
        """Turns of the event loop that built older messages (tests and benchmarks read it)."""
        self._follow = True
        self._last_maximum = 0
        self.verticalScrollBar().rangeChanged.connect(self._range_changed)
        self.verticalScrollBar().valueChanged.connect(self._value_changed)
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        """The list's name (its empty hint is the chat view's; each message rewrites its own texts)."""
        self.setAccessibleName(self.tr("Messages"))
        self.cut_label.setText(self.tr("Earlier messages above this line are not sent to the model (context full)"))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._cap_reading_width()

    def _cap_reading_width(self) -> None:
        """Centre the messages in a column of at most ``READING_WIDTH_PX`` (margins change only on resize)."""
        side = max(SIDE_MARGIN_PX, (self.viewport().width() - READING_WIDTH_PX) // 2)
        margins = self._layout.contentsMargins()
        if margins.left() != side or margins.right() != side:
            self._layout.setContentsMargins(side, margins.top(), side, margins.bottom())

    def set_empty_hint(self, text: str) -> None:
        self.empty_hint.setText(text)

    def _cut_marker(self) -> QWidget:
        """A quiet line across the column with a short sentence in the middle, hidden until needed."""
        marker = QWidget(self.earlier)
        marker.setObjectName("contextCutMarker")
        row = QHBoxLayout(marker)
        row.setContentsMargins(0, 2, 0, 2)
        self.cut_label = _OneLineLabel(marker)
        self.cut_label.setObjectName("contextCutLabel")
        self.cut_label.setEnabled(False)  # drawn in the palette's muted text colour
        self.cut_label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.cut_label.setWordWrap(True)
        row.addWidget(self._rule(marker), 1)
        row.addWidget(self.cut_label)  # as wide as its words (wrapped only in a narrow column)
        row.addWidget(self._rule(marker), 1)
        marker.setVisible(False)
        return marker

    @staticmethod
    def _rule(parent: QWidget) -> QFrame:
        rule = QFrame(parent)
        rule.setFrameShape(QFrame.Shape.HLine)
        rule.setFrameShadow(QFrame.Shadow.Sunken)
        rule.setEnabled(False)
        rule.setMinimumWidth(24)
        return rule

    def show_entries(self, entries: Sequence[MessageEntry], streamed: dict[str, str],
                     cut_before: str | None = None) -> None:
        """Show ``entries`` in order; ``streamed`` maps streaming message ids to the text written so far;
        ``cut_before``: the oldest message still sent to the model, when older ones were left out (a marker
        line above it says so). Messages not built yet are built newest first, a few per turn of the loop."""
        self._entries, self._streamed, self._cut_wanted = list(entries), dict(streamed), cut_before
        wanted = [entry.message.id for entry in entries]
        kept = set(wanted)
        for message_id in [identifier for identifier in self.widgets if identifier not in kept]:
            widget = self.widgets.pop(message_id)
            self._layout.removeWidget(widget)
            self._earlier_layout.removeWidget(widget)
            widget.deleteLater()
        for entry in entries:
            existing = self.widgets.get(entry.message.id)
            if existing is not None:
                existing.update_entry(entry, streamed.get(entry.message.id))
        self._order = wanted
        missing = [entry for entry in entries if entry.message.id not in self.widgets]
        for entry in missing[-FIRST_MESSAGES:]:
            self._build(entry)
        self._arrange()
        self.empty_hint.setVisible(not entries)
        if self.building:
            self._build_timer.start()
        else:
            self._build_timer.stop()

    @property
    def building(self) -> bool:
        """Some messages on show are not built yet."""
        return len(self.widgets) < len(self._order)

    def _build(self, entry: MessageEntry) -> None:
        widget = MessageWidget(entry, self.content)
        widget.update_entry(entry, self._streamed.get(entry.message.id))
        self._connect(widget)
        self.widgets[entry.message.id] = widget

    def _build_slice(self) -> None:
        """Build the newest few messages still missing (above those on show)."""
        missing = [entry for entry in self._entries if entry.message.id not in self.widgets]
        for entry in missing[-SLICE_MESSAGES:]:
            self._build(entry)
        self.slices += 1
        self._arrange()
        if not self.building:
            self._build_timer.stop()

    def _arrange(self) -> None:
        """Put the built widgets in order: the last message in the column, the ones before it in ``earlier``."""
        self._earlier_layout.removeWidget(self.cut_marker)
        shown = [self.widgets[message_id] for message_id in self._order if message_id in self.widgets]
        last_id = self._order[-1] if self._order else None
        position = 0
        for widget in shown:
            last = widget.entry.message.id == last_id
            layout, index = (self._layout, 2) if last else (self._earlier_layout, position)  # 2: after hint, block
            if layout.indexOf(widget) != index:
                self._layout.removeWidget(widget)
                self._earlier_layout.removeWidget(widget)
                layout.insertWidget(index, widget)
            if not last:
                position += 1
        self.earlier.setVisible(any(widget.entry.message.id != last_id for widget in shown))
        cut_before = self._cut_wanted
        first = self._order[0] if self._order else None
        self._place_cut_marker(cut_before if cut_before in self.widgets and cut_before != first else None)

    def _place_cut_marker(self, cut_before: str | None) -> None:
        self.cut_before = cut_before
        if cut_before is not None:
            position = self._earlier_layout.indexOf(self.widgets[cut_before])  # -1: the last message, after the block
            self._earlier_layout.insertWidget(position if position >= 0 else self._earlier_layout.count(),
                                              self.cut_marker)
        self.cut_marker.setVisible(cut_before is not None)

    def widget_for(self, message_id: str) -> MessageWidget | None:
        return self.widgets.get(message_id)

    def ordered_widgets(self) -> list[MessageWidget]:
        """The messages built so far, in order (all of them once ``building`` is False)."""
        return [self.widgets[message_id] for message_id in self._order if message_id in self.widgets]

    def append(self, message_id: str, piece: str) -> bool:
        """Append streamed text to a message on show; False if it is not on show."""
        widget = self.widgets.get(message_id)
        if widget is None:
            return False
        widget.append(piece)
        return True

    def scroll_to_end(self) -> None:
        self._follow = True
        bar = self.verticalScrollBar()
        bar.setValue(bar.maximum())

    def _connect(self, widget: MessageWidget) -> None:
        widget.regenerate_requested.connect(self.regenerate_requested)
        widget.continue_requested.connect(self.continue_requested)
        widget.edit_submitted.connect(self.edit_submitted)
        widget.branch_requested.connect(self.branch_requested)
        widget.citation_open_requested.connect(self.citation_open_requested)
        widget.citation_passage_requested.connect(self.citation_passage_requested)
        widget.link_activated.connect(self.link_activated)

    def _range_changed(self, _minimum: int, maximum: int) -> None:
        bar = self.verticalScrollBar()
        if self._follow:
            bar.setValue(maximum)
        elif self.building and maximum > self._last_maximum:  # older messages arrived above: stay on the same one
            bar.setValue(bar.value() + maximum - self._last_maximum)
        self._last_maximum = maximum

    def _value_changed(self, value: int) -> None:
        self._follow = value >= self.verticalScrollBar().maximum() - BOTTOM_SLACK_PX
