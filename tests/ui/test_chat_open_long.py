"""Opening a long conversation: its newest messages are on show at once and the older ones are built a few per
turn of the event loop, above them, so the window keeps drawing while a long chat opens."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QTimer

from app.ui.chat.message_list import FIRST_MESSAGES, SLICE_MESSAGES
from tests.ui.chat_support import ChatWindows, chat_of, markdown_tokens

pytestmark = pytest.mark.gui
WAIT_MS = 60_000


def test_a_long_conversation_opens_newest_first_while_the_event_loop_keeps_turning(
    qtbot: Any, chat_windows: ChatWindows
) -> None:
    window = chat_windows.open()
    view, sidebar, store = chat_of(window)
    answer = "".join(markdown_tokens(300))
    conversation = store.create_conversation("Long chat")
    parent = None
    for number in range(52):
        text = f"Question {number}" if number % 2 == 0 else f"Answer {number}\n\n{answer}"
        parent = store.add_message(conversation.id, "user" if number % 2 == 0 else "assistant", text, parent).id
    wanted = [message.id for message in store.branch(conversation.id)]
    seen: list[list[str]] = []  # the messages built, at each turn of the event loop
    turns = QTimer()
    turns.setInterval(0)
    turns.timeout.connect(lambda: seen.append([widget.entry.message.id for widget in view.messages.ordered_widgets()]))
    turns.start()
    sidebar.refresh(select=conversation.id)
    qtbot.waitUntil(lambda: len(view.messages.ordered_widgets()) == len(wanted), timeout=WAIT_MS)
    turns.stop()
    assert not view.messages.building
    counts = sorted({len(built) for built in seen if built})
    assert counts[0] <= FIRST_MESSAGES  # the newest ones first, the loop turned before the rest
    assert len(counts) >= (len(wanted) - FIRST_MESSAGES) // SLICE_MESSAGES  # a few per turn, never all at once
    assert all(built == wanted[len(wanted) - len(built):] for built in seen)  # always the newest, in order
    bar = view.messages.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.value() == bar.maximum(), timeout=WAIT_MS)  # still at the newest message
    last = view.messages.widget_for(wanted[-1])
    assert last is not None and not last.visibleRegion().isEmpty()
    texts = [widget.text for widget in view.messages.ordered_widgets()]
    assert texts[0] == "Question 0" and texts[-1].startswith("Answer 51")
