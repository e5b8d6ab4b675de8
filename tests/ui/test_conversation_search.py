"""Conversation search (Ctrl+F) in the real window: one row per conversation, a passage that is not the title
again and shows its match, and the matches highlighted."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QWidget

from app.ui.conversations.conversation_item import ID_ROLE
from app.ui.conversations.search_results import HIGHLIGHT_LIGHT, SNIPPET_ROLE
from tests.ui.chat_support import ChatWindows, chat_of, settled

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
WAIT_MS = 20_000
QUESTION = "How much memory does a 7B model need?"
LONG_ANSWER = ("It depends on the quantization you pick and on how long a context you ask for in the settings; "
               "a 7B model in q4 needs about 4.5 GB of memory for the weights, plus the KV cache.")


def _highlighted_pixels(image: QImage) -> int:
    wanted = HIGHLIGHT_LIGHT.rgb()
    return sum(1 for y in range(0, image.height(), 2) for x in range(0, image.width(), 2)
               if QColor(image.pixel(x, y)).rgb() == wanted)


def test_search_shows_one_row_per_conversation_with_a_visible_highlighted_match(
    qtbot: Any, chat_windows: ChatWindows, screenshot: Shot
) -> None:
    window = chat_windows.open()
    _view, sidebar, store = chat_of(window)
    english = store.create_conversation(QUESTION)
    parent = store.add_message(english.id, "user", QUESTION, None).id
    store.add_message(english.id, "assistant", LONG_ANSWER, parent, finish_reason="stop")
    chinese = store.create_conversation("显存和内存")
    asked = "我的电脑有 16 GB 内存，能跑哪些模型？加上知识库的检索，memory 够用吗？"
    parent = store.add_message(chinese.id, "user", asked, None).id
    store.add_message(chinese.id, "assistant", "16 GB memory is enough for most 7B models.", parent,
                      finish_reason="stop")
    sidebar.refresh()
    settled(qtbot, sidebar)

    sidebar.search.setFocus()
    sidebar.search.setText("memory")
    qtbot.waitUntil(lambda: sidebar.results.query == "memory", timeout=WAIT_MS)  # the results are in
    assert set(sidebar.shown_ids()) == {english.id, chinese.id}
    assert sidebar.list.count() == 2  # one row each, not one per matching message
    rows = {str(sidebar.list.item(row).data(ID_ROLE)): sidebar.list.item(row) for row in range(2)}
    assert all("\n" not in item.text() for item in rows.values())  # the title alone; the passage is drawn below
    english_passage = str(rows[english.id].data(SNIPPET_ROLE))
    assert english_passage and QUESTION not in english_passage and "4.5 GB of memory" in english_passage
    width = sidebar.list.viewport().width() - 8
    metrics = sidebar.list.fontMetrics()
    for conversation_id, item in rows.items():
        index = sidebar.list.indexFromItem(item)
        lines = sidebar.results.lines(index, metrics, width)
        passage, spans = lines[-1]
        assert len(lines) == 2, conversation_id
        assert "memory" in passage.lower() and spans, passage  # the match is inside what fits, and marked
        assert all(passage[start:end].lower() == "memory" for start, end in spans)
        assert sidebar.list.visualItemRect(item).height() >= 2 * metrics.height()  # room for both lines
    qtbot.waitUntil(lambda: _highlighted_pixels(sidebar.list.viewport().grab().toImage()) > 20, timeout=WAIT_MS)
    screenshot(window, "conversation-search")

    sidebar.search.setText("显存")  # matches the Chinese title only: no passage, the title is highlighted
    qtbot.waitUntil(lambda: sidebar.shown_ids() == [chinese.id], timeout=WAIT_MS)
    item = sidebar.list.item(0)
    title_line = sidebar.results.lines(sidebar.list.indexFromItem(item), metrics, width)
    assert len(title_line) == 1 and title_line[0][1] == [(0, 2)]
