"""RunningAnswers: fast streams are drained once per frame (many tokens per signal), nothing is lost or
repeated, several answers run side by side, and each ending is reported once with its metrics."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent, QObject
from PySide6.QtWidgets import QWidget

from app.context import AppContext
from app.ui.chat.markdown_body import MarkdownBody
from app.ui.chat.running_answers import FinishedAnswer, RunningAnswers
from app.ui.main_window import MainWindow
from tests.ui.chat_support import ChatWindows, FakeAnswer, chat_of, markdown_tokens, settled

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
WAIT_MS = 20_000  # answers stream from threads: generous for a slow, loaded machine
STREAM_MS = 60_000  # a whole long answer


def test_fast_streams_arrive_once_per_frame_and_whole(qtbot: Any) -> None:
    frame_ms = 25
    running = RunningAnswers(frame_interval_ms=frame_ms)
    received: dict[str, list[str]] = {"one": [], "two": []}
    finished: list[FinishedAnswer] = []
    ended_at: list[float] = []
    running.text_arrived.connect(lambda conversation, _message, piece: received[conversation].append(piece))
    running.finished.connect(finished.append)
    running.finished.connect(lambda _outcome: ended_at.append(time.monotonic()))
    began = time.monotonic()
    first = FakeAnswer(markdown_tokens(300), tokens_per_s=600, message_id="m1", prefix="Earlier text. ")
    second = FakeAnswer(markdown_tokens(200), tokens_per_s=400, message_id="m2")
    running.add("one", first.start())
    running.add("two", second.start())
    with pytest.raises(ValueError, match="already generating"):
        running.add("one", FakeAnswer([], 1.0))
    assert running.conversations() == {"one", "two"}

    qtbot.waitUntil(lambda: not running.conversations(), timeout=WAIT_MS)

    assert "".join(received["one"]) == "".join(markdown_tokens(300))
    assert "".join(received["two"]) == "".join(markdown_tokens(200))
    # At most one signal per answer per frame, and frames come at the timer's pace, not the tokens' (~0.5 s of
    # streaming: a few dozen frames for 500 tokens, never one per token; a slow machine only stretches the time).
    pieces = len(received["one"]) + len(received["two"])
    assert pieces <= running.frames * 2
    streamed_ms = (max(ended_at) - began) * 1000
    assert running.frames <= streamed_ms / frame_ms + 2
    assert sorted(outcome.conversation_id for outcome in finished) == ["one", "two"]
    by_conversation = {outcome.conversation_id: outcome for outcome in finished}
    assert by_conversation["one"].message_id == "m1" and by_conversation["one"].error is None
    metrics = by_conversation["one"].metrics
    assert metrics is not None and metrics.generated_tokens == 300
    assert not running.ticking  # idle: no timer ticking


def test_the_text_so_far_includes_the_prefix_and_cancel_stops_one_answer(qtbot: Any) -> None:
    running = RunningAnswers(frame_interval_ms=20)
    slow = FakeAnswer(markdown_tokens(10_000), tokens_per_s=200, message_id="slow", prefix="Before. ")
    other = FakeAnswer(markdown_tokens(20_000), tokens_per_s=200, message_id="other")  # 100 s: still running below
    running.add("a", slow.start())
    running.add("b", other.start())
    qtbot.waitUntil(lambda: len((running.streaming_message("a") or ("", ""))[1]) > 60, timeout=WAIT_MS)
    message_id, text = running.streaming_message("a") or ("", "")
    assert message_id == "slow" and text.startswith("Before. Here is a plan")
    assert running.cancel("a") and not running.cancel("missing")
    qtbot.waitUntil(lambda: not running.is_running("a"), timeout=WAIT_MS)
    assert running.is_running("b")  # the other conversation goes on
    before = len((running.streaming_message("b") or ("", ""))[1])
    qtbot.waitUntil(lambda: len((running.streaming_message("b") or ("", ""))[1]) > before + 20, timeout=WAIT_MS)
    running.cancel_all()
    assert running.wait_all(WAIT_MS / 1000)


def test_a_long_markdown_answer_streams_into_the_real_window_in_parts(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], screenshot: Shot
) -> None:
    windows = ChatWindows(qtbot, app_context, open_window)
    try:
        window = windows.open()
        view, sidebar, store = chat_of(window)
        conversation = store.create_conversation()
        question = store.add_message(conversation.id, "user", "Explain the plan, with code.", None)
        answer = store.add_message(conversation.id, "assistant", "", question.id, finished=False)
        sidebar.refresh(select=conversation.id)
        settled(qtbot, view)
        tokens = markdown_tokens(2500)

        def save(text: str) -> None:
            store.finish_message(answer.id, text=text, finish_reason="stop")

        view.running.add(conversation.id, FakeAnswer(tokens, 1500, message_id=answer.id, save_result=save).start())
        view.reload()
        settled(qtbot, view)
        widget = view.messages.widget_for(answer.id)
        assert widget is not None and "Writing" in widget.status.text()
        qtbot.waitUntil(lambda: len(widget.body.parts) >= 2, timeout=WAIT_MS)
        screenshot(window, "chat-12-long-markdown-streaming")
        qtbot.waitUntil(lambda: not view.running.is_running(conversation.id), timeout=STREAM_MS)
        settled(qtbot, view)  # the ended answer is read back from the store on its worker
        assert widget.text == "".join(tokens) == store.message(answer.id).text
        assert len(widget.body.parts) >= 4 and not widget.status.isVisibleTo(widget)
        whole = MarkdownBody()
        qtbot.addWidget(whole)
        whole.set_markdown(widget.text)
        assert widget.body.plain_text() == whole.plain_text()
    finally:
        windows.close()


def test_streaming_into_a_long_conversation_leaves_the_earlier_messages_alone(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow]
) -> None:
    """A growing answer at the end of 40 messages moves, resizes and re-renders none of the messages above
    it (they were squeezed by a pixel and let grow back on every frame: a whole-column relayout per frame)."""
    windows = ChatWindows(qtbot, app_context, open_window)
    try:
        window = windows.open()
        view, sidebar, store = chat_of(window)
        conversation = store.create_conversation("A long chat")
        parent = None
        earlier_answer = "".join(markdown_tokens(300))
        for index in range(40):
            role = "user" if index % 2 == 0 else "assistant"
            parent = store.add_message(conversation.id, role, earlier_answer if role == "assistant" else
                                       f"Question {index}?", parent).id
        question = store.add_message(conversation.id, "user", "And the last one?", parent)
        answer = store.add_message(conversation.id, "assistant", "", question.id, finished=False)
        sidebar.refresh(select=conversation.id)
        qtbot.waitUntil(lambda: view.messages.widget_for(answer.id) is not None and not view.messages.building,
                        timeout=WAIT_MS)  # the older messages are built a few per turn of the event loop
        earlier = view.messages.ordered_widgets()[:-1]
        assert len(earlier) == 41
        changes: list[str] = []

        class Watch(QObject):
            def eventFilter(self, watched: QObject, event: QEvent) -> bool:
                if event.type() in (QEvent.Type.Move, QEvent.Type.Resize):
                    changes.append(f"message {earlier.index(watched)}: {event.type().name}")
                return False

        watch = Watch()
        tokens = markdown_tokens(1500)

        def save(text: str) -> None:
            store.finish_message(answer.id, text=text, finish_reason="stop")

        view.running.add(conversation.id, FakeAnswer(tokens, 400, message_id=answer.id, save_result=save).start())
        streaming = view.messages.widget_for(answer.id)
        assert streaming is not None
        qtbot.waitUntil(lambda: view.running.frames >= 10, timeout=WAIT_MS)  # the column is laid out by now
        geometry = [widget.geometry() for widget in earlier]
        renders = [widget.body.renders for widget in earlier]
        for widget in earlier:
            widget.installEventFilter(watch)
        frames, height = view.running.frames, streaming.height()
        qtbot.waitUntil(lambda: not view.running.is_running(conversation.id), timeout=STREAM_MS)
        settled(qtbot, view)  # the ended answer is read back from the store on its worker
        for widget in earlier:
            widget.removeEventFilter(watch)
        assert view.running.frames - frames >= 20 and streaming.height() > height + 200  # it grew, frame by frame
        assert streaming.text == "".join(tokens)
        assert changes == [], "\n".join(changes[:10])
        assert [widget.geometry() for widget in earlier] == geometry
        assert [widget.body.renders for widget in earlier] == renders
    finally:
        windows.close()
