"""The chat's layout on a wide window: long conversation titles are elided in the sidebar (no sideways
scrolling, the whole title in the tooltip) and messages keep a readable width, centred."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from app.ui.chat.message_list import READING_WIDTH_PX
from tests.ui.chat_support import ChatWindows, chat_of, markdown_tokens

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
WAIT_MS = 20_000
LONG_TITLE = "A conversation about planning the vegetable garden for next spring, with a long title indeed"


def test_long_titles_are_elided_in_the_sidebar_without_sideways_scrolling(
    qtbot: Any, chat_windows: ChatWindows, screenshot: Shot
) -> None:
    window = chat_windows.open()
    window.resize(1600, 1000)
    _view, sidebar, store = chat_of(window)
    long = store.create_conversation(LONG_TITLE)
    store.add_message(long.id, "user", "Hello", None)
    short = store.create_conversation("Bread")
    sidebar.refresh(select=short.id)
    qtbot.waitUntil(lambda: sidebar.shown_ids() == [short.id, long.id], timeout=WAIT_MS)
    qtbot.waitUntil(lambda: sidebar.list.viewport().width() > 0, timeout=WAIT_MS)
    rows = sidebar.list
    item = rows.item(1)
    viewport = rows.viewport().width()
    assert rows.fontMetrics().horizontalAdvance(LONG_TITLE) > viewport  # the title is too long to show whole
    assert not rows.horizontalScrollBar().isVisible()
    assert rows.visualItemRect(item).width() <= viewport  # the row ends at the list's edge: its text is elided
    assert LONG_TITLE in item.toolTip()
    screenshot(window, "chat-40-sidebar-long-title")


def test_messages_keep_a_readable_width_centred_on_a_wide_window(
    qtbot: Any, chat_windows: ChatWindows, screenshot: Shot
) -> None:
    window = chat_windows.open()
    window.resize(1600, 1000)
    view, sidebar, store = chat_of(window)
    conversation = store.create_conversation("Wide window")
    question = store.add_message(conversation.id, "user", "Tell me everything about the plan. " * 8, None)
    store.add_message(conversation.id, "assistant", "".join(markdown_tokens(400)), question.id)
    sidebar.refresh(select=conversation.id)
    qtbot.waitUntil(lambda: len(view.messages.ordered_widgets()) == 2, timeout=WAIT_MS)
    viewport = view.messages.viewport()
    assert viewport.width() > READING_WIDTH_PX + 150  # a wide window: room to spare on both sides
    for widget in view.messages.ordered_widgets():
        qtbot.waitUntil(lambda widget=widget: widget.width() > READING_WIDTH_PX // 2, timeout=WAIT_MS)  # laid out
        assert READING_WIDTH_PX - 40 <= widget.width() <= READING_WIDTH_PX
        left = widget.mapTo(viewport, widget.rect().topLeft()).x()
        right = viewport.width() - (left + widget.width())
        assert abs(left - right) <= 2, (left, right)  # centred
    screenshot(window, "chat-41-wide-window")
