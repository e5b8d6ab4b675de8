"""The chat window over a real tiny model: answers stream into the view and the store, once per frame;
Stop keeps the partial text; two conversations generate at once and switching never interrupts either."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QWidget

from app.ui.chat.running_answers import FRAME_INTERVAL_MS
from tests.fixtures.models import GgufFactory
from tests.ui.chat_support import (
    STREAMING_CONTEXT,
    STREAMING_SHAPE,
    ChatWindows,
    chat_of,
    greedy,
    settled,
    streamed_text,
    streaming_id,
    wait_until_done,
    wait_until_streaming,
)

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]


def test_a_sent_message_streams_into_the_view_and_the_store(
    qtbot: Any, chat_windows: ChatWindows, tiny_gguf_factory: GgufFactory, screenshot: Shot
) -> None:
    window = chat_windows.open(tiny_gguf_factory(STREAMING_SHAPE), context_length=STREAMING_CONTEXT,
                               save_interval_s=0.1)
    view, sidebar, store = chat_of(window)
    assert view.conversation_id is None and sidebar.shown_ids() == []
    view.sampling = greedy(1500, ignore_eos=True)
    pieces: list[str] = []
    view.running.text_arrived.connect(lambda _conversation, _message, piece: pieces.append(piece))

    qtbot.keyClicks(view.composer.editor, "Hello there")
    frames_before = view.running.frames
    sent_at = time.monotonic()
    qtbot.keyClick(view.composer.editor, Qt.Key.Key_Return)
    assert view.composer.text() == ""  # taken at once; stored and started on the store's worker

    conversation_id = wait_until_streaming(qtbot, view)
    assert sidebar.selected_id == conversation_id  # made and selected
    assert view.composer.text() == "" and view.composer.stop_button.isVisible()
    answer_id = streaming_id(view, conversation_id)
    widget = view.messages.widget_for(answer_id)
    assert widget is not None
    seen: list[str] = []
    sampler = QTimer(window)
    sampler.timeout.connect(lambda: seen.append(widget.text))
    sampler.start(30)
    qtbot.waitUntil(lambda: len(widget.text) > 40, timeout=30_000)
    screenshot(window, "chat-01-streaming")
    # The job saves the partial answer while it streams: the store holds a prefix of what is shown.
    qtbot.waitUntil(lambda: store.message(answer_id).text != "", timeout=10_000)
    partial = store.message(answer_id)
    assert not partial.finished and view.running.is_running(conversation_id)
    qtbot.waitUntil(lambda: widget.text.startswith(partial.text), timeout=10_000)  # the view is a frame behind
    assert "Hello there" in sidebar.list.item(0).text()  # the first question names the conversation

    wait_until_done(qtbot, view, conversation_id)
    streamed_for_s = time.monotonic() - sent_at
    sampler.stop()
    stored = store.message(answer_id)
    assert stored.finished and stored.finish_reason == "length"
    assert stored.completion_tokens == 1500
    assert view.messages.widget_for(answer_id) is widget and widget.text == stored.text
    assert "".join(pieces) == stored.text  # everything arrived through the frame timer, once
    # At most one signal per frame, whatever the decode speed: no more pieces than frames that drained text,
    # and no more than the frame timer can have fired in the time the answer took (Qt timers never catch up).
    assert len(pieces) <= view.running.frames - frames_before
    assert len(pieces) <= streamed_for_s * 1000 / FRAME_INTERVAL_MS + 2
    assert len({text for text in seen if text}) > 5  # and it grew on screen, frame by frame
    assert [message.role for message in store.branch(conversation_id)] == ["user", "assistant"]
    assert not view.composer.stop_button.isVisible() and view.composer.send_button.isVisible()
    decode = stored.timings["decode_tokens_per_s"]

    def gauge_has_the_answer() -> bool:
        latest = window.sampler.latest
        return latest is not None and latest.speed.last_decode_tok_s == pytest.approx(decode)

    qtbot.waitUntil(gauge_has_the_answer, timeout=20_000)  # the speed gauge shows this answer's own speed
    screenshot(window, "chat-02-answered")


def test_stop_keeps_the_partial_answer_and_offers_continue(
    qtbot: Any, chat_windows: ChatWindows, tiny_gguf_factory: GgufFactory, screenshot: Shot
) -> None:
    window = chat_windows.open(tiny_gguf_factory(STREAMING_SHAPE), context_length=STREAMING_CONTEXT)
    view, _sidebar, store = chat_of(window)
    view.sampling = greedy(6000, ignore_eos=True)
    assert view.send("Write a long story")
    conversation_id = wait_until_streaming(qtbot, view)
    answer_id = streaming_id(view, conversation_id)
    widget = view.messages.widget_for(answer_id)
    assert widget is not None
    qtbot.waitUntil(lambda: len(widget.text) > 20, timeout=30_000)

    qtbot.mouseClick(view.composer.stop_button, Qt.MouseButton.LeftButton)
    wait_until_done(qtbot, view, conversation_id)

    stored = store.message(answer_id)
    assert stored.finish_reason == "cancelled" and stored.finished
    assert 0 < (stored.completion_tokens or 0) < 6000 and stored.text.strip()
    assert widget.text == stored.text  # the partial text stays on show
    assert stored.can_continue and widget.continue_button.isVisible() and widget.continue_button.isEnabled()
    assert "Stopped" in widget.status.text()
    screenshot(window, "chat-03-stopped")

    view.sampling = greedy(40, ignore_eos=True)
    qtbot.mouseClick(widget.continue_button, Qt.MouseButton.LeftButton)
    assert view.is_answering(conversation_id)
    wait_until_done(qtbot, view, conversation_id)
    continued = store.message(answer_id)
    assert continued.text.startswith(stored.text) and len(continued.text) > len(stored.text)
    assert continued.finish_reason == "length"
    assert view.messages.widget_for(answer_id) is not None
    assert [message.id for message in store.branch(conversation_id)][-1] == answer_id  # the same message grew


def test_two_conversations_stream_at_once_and_switching_interrupts_neither(
    qtbot: Any, chat_windows: ChatWindows, tiny_gguf_factory: GgufFactory, screenshot: Shot
) -> None:
    window = chat_windows.open(tiny_gguf_factory(STREAMING_SHAPE), parallel_chats=2, context_length=STREAMING_CONTEXT)
    view, sidebar, store = chat_of(window)
    view.sampling = greedy(1500, ignore_eos=True)
    assert view.send("First conversation")
    first = wait_until_streaming(qtbot, view)
    sidebar.new_conversation()
    settled(qtbot, view)
    second = view.conversation_id
    assert second is not None and second != first and sidebar.selected_id == second
    assert view.send("Second conversation")
    assert wait_until_streaming(qtbot, view) == second
    assert view.running.conversations() == {first, second}
    first_answer, second_answer = streaming_id(view, first), streaming_id(view, second)
    assert view.messages.widget_for(first_answer) is None  # only the conversation on show is drawn

    def streamed(conversation_id: str) -> int:
        return len(streamed_text(view, conversation_id))

    qtbot.waitUntil(lambda: streamed(first) > 30 and streamed(second) > 30, timeout=30_000)
    assert all("●" in sidebar.list.item(row).text() for row in range(2))  # both marked as writing
    screenshot(window, "chat-04-two-conversations")
    for _ in range(3):  # flip back and forth while both write
        before = {first: streamed(first), second: streamed(second)}
        sidebar.select(first)
        settled(qtbot, view)
        assert view.conversation_id == first
        widget = view.messages.widget_for(first_answer)
        assert widget is not None and len(widget.text) >= before[first]  # re-attached with all text so far
        qtbot.waitUntil(lambda seen=before: streamed(first) > seen[first] and streamed(second) > seen[second],
                        timeout=10_000)
        sidebar.select(second)
        settled(qtbot, view)
        assert view.messages.widget_for(second_answer) is not None
    assert view.running.conversations() == {first, second}

    wait_until_done(qtbot, view, first)
    wait_until_done(qtbot, view, second)
    for answer_id in (first_answer, second_answer):
        stored = store.message(answer_id)
        assert stored.finish_reason == "length" and stored.completion_tokens == 1500  # neither was cut short
    widget = view.messages.widget_for(second_answer)
    assert widget is not None and widget.text == store.message(second_answer).text
    sidebar.select(first)
    settled(qtbot, view)
    widget = view.messages.widget_for(first_answer)
    assert widget is not None and widget.text == store.message(first_answer).text
