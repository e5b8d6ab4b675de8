"""The chat's layout on a wide window: long conversation titles are elided in the sidebar (no sideways
scrolling, the whole title in the tooltip) and messages keep a readable width, centred; and in a 900x600
window, with a conversation open, every control is whole (issue 15, item 8)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRect
from PySide6.QtWidgets import QWidget

from app.ui.chat.message_list import READING_WIDTH_PX
from app.ui.i18n import LanguageSwitcher
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


def _whole_in(widget: QWidget, window: QWidget) -> bool:
    """Shown, at least as wide as it asks to be at least, and inside the window."""
    corner = widget.mapTo(window, widget.rect().topLeft())
    inside = window.rect().contains(QRect(corner, widget.size()))
    return widget.isVisible() and inside and widget.width() >= widget.minimumSizeHint().width()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_window_with_a_conversation_open_fits_900_by_600_with_every_control_whole(
    qtbot: Any, chat_windows: ChatWindows, switcher: LanguageSwitcher, screenshot: Shot, language: str,
    tiny_gguf: Path
) -> None:
    """It could not go below 996 px wide: a 200 px sidebar, the chat's notice and context line at their whole
    text's width, and the knowledge dock's row of three buttons. Now the lines elide where they must (whole
    in the tooltip), the buttons wrap and the sidebar asks for less; the context figures stay whole."""
    window = chat_windows.open(tiny_gguf)
    assert switcher.apply(language) == language
    view, sidebar, store = chat_of(window)
    conversation = store.create_conversation("Small window")
    question = store.add_message(conversation.id, "user", "Tell me everything about the plan. " * 3, None)
    store.add_message(conversation.id, "assistant", "".join(markdown_tokens(300)), question.id)
    sidebar.refresh(select=conversation.id)
    qtbot.waitUntil(lambda: len(view.messages.ordered_widgets()) == 2, timeout=WAIT_MS)
    window.knowledge_dock.raise_()
    window.resize(900, 600)
    qtbot.waitUntil(lambda: window.width() == 900 and window.height() == 600, timeout=WAIT_MS)
    least = window.minimumSizeHint()
    assert least.width() <= 900 and least.height() <= 600, least
    qtbot.waitUntil(lambda: view.meter.budget is not None, timeout=WAIT_MS)
    panel = window.knowledge_panel
    essential = [view.composer, view.composer.send_button, view.knowledge_scope, view.meter.bar, sidebar.search,
                 panel.add_files_button, panel.add_folder_button, panel.reindex_button, panel.remove_button,
                 panel.reveal_button, panel.table]
    qtbot.waitUntil(lambda: all(_whole_in(widget, window) for widget in essential), timeout=WAIT_MS)
    assert view.messages.viewport().width() >= 300  # room to read
    line = view.meter.label  # "Next prompt: 135 / 2.0K tokens", not elided
    qtbot.waitUntil(lambda: line.contentsRect().width() >= line.fontMetrics().horizontalAdvance(line.text()),
                    timeout=WAIT_MS)
    screenshot(window, f"window-900x600-conversation-{language}")
