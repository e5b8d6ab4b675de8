"""The conversations sidebar in the real window over a real store: new, rename, pin (pinned first), delete
with confirmation (also while answering), full-text search with Chinese, and the selection remembered."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

from app.context import AppContext
from tests.fixtures.models import GgufFactory
from tests.ui.chat_support import (
    ANSWER_TIMEOUT_MS,
    STREAMING_CONTEXT,
    STREAMING_SHAPE,
    ChatWindows,
    chat_of,
    greedy,
    settled,
    streamed_text,
    streaming_id,
    wait_until_done,
)

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
WAIT_MS = 20_000  # searches and deletions run on worker threads: generous for a slow, loaded machine


def test_new_rename_pin_and_delete(qtbot: Any, chat_windows: ChatWindows, screenshot: Shot) -> None:
    window = chat_windows.open()
    view, sidebar, store = chat_of(window)

    def new_conversation() -> str:
        sidebar.new_conversation()
        settled(qtbot, view)
        assert sidebar.selected_id is not None
        return sidebar.selected_id

    first = new_conversation()
    assert sidebar.selected_id == first == view.conversation_id
    assert new_conversation() == first  # an empty conversation is reused, not piled up
    store.add_message(first, "user", "Plans for the garden", None)
    second = new_conversation()
    store.add_message(second, "user", "Holiday packing list", None)
    third = new_conversation()
    store.add_message(third, "user", "Bread recipe", None)
    sidebar.refresh()
    settled(qtbot, view)
    assert sidebar.shown_ids() == [third, second, first]  # most recent first

    sidebar.select(first)
    settled(qtbot, view)
    assert view.conversation_id == first
    asked: list[str] = []

    def ask_title(current: str) -> str:
        asked.append(current)
        return "Garden"

    sidebar.ask_title = ask_title
    sidebar.rename_action.trigger()
    settled(qtbot, view)
    assert asked == ["Plans for the garden"]
    assert store.conversation(first).title == "Garden" and view.title.text() == "Garden"
    assert "Garden" in sidebar.list.currentItem().text()

    sidebar.pin_action.trigger()
    settled(qtbot, view)
    assert store.conversation(first).pinned
    assert sidebar.shown_ids() == [first, third, second]  # pinned first
    assert sidebar.list.item(0).text().startswith("★")
    store.add_message(second, "user", "and sunscreen", store.branch(second)[-1].id)
    sidebar.refresh()
    settled(qtbot, view)
    assert sidebar.shown_ids() == [first, second, third]  # the pinned one stays on top of newer activity
    assert sidebar.selected_id == first
    screenshot(window, "conversations-01-pinned")

    sidebar.select(second)
    settled(qtbot, view)
    sidebar.confirm_delete = lambda _title: False
    sidebar.delete_action.trigger()
    settled(qtbot, view)
    assert store.has_conversation(second) and second in sidebar.shown_ids()
    titles: list[str] = []

    def confirm(title: str) -> bool:
        titles.append(title)
        return True

    sidebar.confirm_delete = confirm
    sidebar.delete_action.trigger()
    settled(qtbot, view)
    assert titles == ["Holiday packing list"]
    assert not store.has_conversation(second) and sidebar.shown_ids() == [first, third]
    assert sidebar.selected_id in (first, third) and view.conversation_id == sidebar.selected_id
    for _ in range(2):
        sidebar.delete_action.trigger()
        settled(qtbot, view)
    assert store.conversations() == [] and sidebar.shown_ids() == []
    assert view.conversation_id is None and view.title.text() == "New chat"


def test_search_finds_chinese_words_and_titles(qtbot: Any, chat_windows: ChatWindows, screenshot: Shot) -> None:
    window = chat_windows.open()
    view, sidebar, store = chat_of(window)
    park = store.create_conversation()
    store.add_message(park.id, "user", "我们明天去公园散步吧，天气应该很好。", None)
    model = store.create_conversation()
    store.add_message(model.id, "user", "这个模型的上下文长度是多少？", None)
    english = store.create_conversation("Weekend in the park")
    store.add_message(english.id, "user", "Which trails are open?", None)
    sidebar.refresh()
    qtbot.waitUntil(lambda: len(sidebar.shown_ids()) == 3, timeout=WAIT_MS)

    sidebar.search.setText("公园")  # (QTest cannot type CJK characters)
    qtbot.waitUntil(lambda: sidebar.shown_ids() == [park.id], timeout=WAIT_MS)
    shown = sidebar.results.lines(sidebar.list.indexFromItem(sidebar.list.item(0)), sidebar.list.fontMetrics(), 400)
    assert shown[0][1]  # the match (in the title, made from the message) is highlighted
    screenshot(window, "conversations-02-search-chinese")

    sidebar.search.setText("模型")
    qtbot.waitUntil(lambda: sidebar.shown_ids() == [model.id], timeout=WAIT_MS)
    sidebar.search.setText("trails")
    qtbot.waitUntil(lambda: sidebar.shown_ids() == [english.id], timeout=WAIT_MS)
    sidebar.search.setText("火车")
    qtbot.waitUntil(lambda: sidebar.shown_ids() == [], timeout=WAIT_MS)
    sidebar.search.setText("weekend")  # the title, not any message (after an empty result: the list must change)
    qtbot.waitUntil(lambda: sidebar.shown_ids() == [english.id], timeout=WAIT_MS)
    sidebar.search.clear()
    qtbot.waitUntil(lambda: len(sidebar.shown_ids()) == 3, timeout=WAIT_MS)

    sidebar.search.setText("公园")
    qtbot.waitUntil(lambda: sidebar.shown_ids() == [park.id], timeout=WAIT_MS)
    sidebar.list.setCurrentRow(0)
    settled(qtbot, view)
    assert view.conversation_id == park.id  # a result opens its conversation


def test_the_selected_conversation_is_remembered(
    qtbot: Any, chat_windows: ChatWindows, app_context: AppContext
) -> None:
    window = chat_windows.open()
    _view, sidebar, store = chat_of(window)
    chosen = store.create_conversation("Chosen")
    store.create_conversation("Newest")
    sidebar.refresh()
    sidebar.select(chosen.id)
    settled(qtbot, _view)
    window.close()
    again = chat_windows.open()
    view, sidebar, _store = chat_of(again)
    settled(qtbot, view)
    assert sidebar.selected_id == chosen.id and view.conversation_id == chosen.id


def test_deleting_a_conversation_while_it_answers_stops_it_first(
    qtbot: Any, chat_windows: ChatWindows, tiny_gguf_factory: GgufFactory, caplog: pytest.LogCaptureFixture
) -> None:
    window = chat_windows.open(tiny_gguf_factory(STREAMING_SHAPE), context_length=STREAMING_CONTEXT)
    view, sidebar, store = chat_of(window)
    view.sampling = greedy(6000, ignore_eos=True)
    assert view.send("Keep going")
    conversation_id = view.conversation_id
    assert conversation_id is not None
    qtbot.waitUntil(lambda: view.running.is_running(conversation_id), timeout=ANSWER_TIMEOUT_MS)
    answer_id = streaming_id(view, conversation_id)
    qtbot.waitUntil(lambda: len(streamed_text(view, conversation_id)) > 10, timeout=ANSWER_TIMEOUT_MS)
    sidebar.confirm_delete = lambda _title: True
    settled(qtbot, view)
    sidebar.delete_action.trigger()
    assert sidebar.shown_ids() == [] and view.conversation_id is None
    wait_until_done(qtbot, view, conversation_id)
    qtbot.waitUntil(lambda: not store.has_conversation(conversation_id), timeout=WAIT_MS)
    assert not store.has_message(answer_id)
    assert not [record for record in caplog.records if record.levelname in ("ERROR", "CRITICAL")]
