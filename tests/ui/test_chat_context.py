"""The chat window's input states: no model (says so, offers Load model…, which loads one), the context
meter filling in from the draft, and a question too long for the context shown inline with what to do."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QWidget

from app.core.engines.manager import ManagerState
from app.main import build_context
from app.ui.chat.context_preview import PREVIEW_DELAY_MS, PREVIEW_MAX_WAIT_S
from app.ui.main_window import MainWindow
from tests.ui.chat_support import LOAD_TIMEOUT_MS, ChatWindows, chat_of, greedy, wait_until_done

pytestmark = pytest.mark.gui
PREVIEW_TIMEOUT_MS = 20_000

Shot = Callable[[QWidget, str], Path]


def test_without_a_model_the_input_says_so_and_load_model_loads_one(
    qtbot: Any, chat_windows: ChatWindows, tiny_gguf: Path, monkeypatch: pytest.MonkeyPatch, screenshot: Shot
) -> None:
    window = chat_windows.open()
    view, sidebar, store = chat_of(window)
    assert view.notice.isVisible() and view.notice.kind == "model"
    assert "No model" in view.notice.full_text and view.notice.action_button.text() == "Load model…"
    assert "No model" in view.composer.editor.placeholderText()
    assert "no model" in view.meter.label.text()

    view.composer.set_text("Hello?")
    assert not view.send()
    assert store.conversations() == [] and sidebar.shown_ids() == []  # nothing half-made is left behind
    assert view.composer.text() == "Hello?"  # the draft is kept
    assert view.notice.isVisible() and "No model is loaded. Load one" in view.notice.full_text
    assert view.notice.label.text().count("\n") == 0  # one line
    screenshot(window, "chat-07-no-model")

    chosen: list[str] = []

    def choose() -> Path:
        chosen.append("asked")
        return tiny_gguf

    # "Load model…" opens the model manager; there the user adds the file they have and it loads.
    manager = window.model_manager
    manager.ask_model_file = choose
    qtbot.mouseClick(view.notice.action_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(manager.isVisible, timeout=LOAD_TIMEOUT_MS)
    manager.add_model_file(use_after=True)
    assert chosen == ["asked"]
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=LOAD_TIMEOUT_MS)
    assert view.model_state is ManagerState.READY and not view.notice.isVisible()
    qtbot.waitUntil(lambda: bool(view.meter.parts()), timeout=PREVIEW_TIMEOUT_MS)
    assert view.meter.parts()["question"] > 0  # the kept draft is counted


def test_the_context_meter_shows_what_the_prompt_is_made_of(
    qtbot: Any, chat_windows: ChatWindows, tiny_gguf: Path, screenshot: Shot
) -> None:
    window = chat_windows.open(tiny_gguf)
    view, _sidebar, _store = chat_of(window)
    view.sampling = greedy(24, ignore_eos=True)
    qtbot.waitUntil(lambda: bool(view.meter.parts()), timeout=PREVIEW_TIMEOUT_MS)
    empty = view.meter.parts()
    assert empty["system"] > 0 and empty["reserved"] > 0 and empty["free"] > 0 and empty["history"] == 0
    assert sum(empty.values()) == view.meter.bar.total > 0

    assert view.send("Tell me about the weather")
    conversation_id = view.conversation_id
    assert conversation_id is not None
    wait_until_done(qtbot, view, conversation_id)
    runs = view.preview.runs
    typing_started = time.monotonic()
    qtbot.keyClicks(view.composer.editor, "And what about tomorrow, and the day after, and next week?")
    typed_s = time.monotonic() - typing_started
    qtbot.waitUntil(lambda: view.meter.parts().get("question", 0) > 10 and view.meter.parts()["history"] > 0,
                    timeout=PREVIEW_TIMEOUT_MS)
    # Typing is debounced, not one preview per keystroke (58 here): while keys come without a pause, one
    # preview per PREVIEW_MAX_WAIT_S at most, then one after the pause (and one the answer's end had queued).
    assert view.preview.runs - runs <= typed_s / PREVIEW_MAX_WAIT_S + 2
    parts = view.meter.parts()
    assert all(parts[key] > 0 for key in ("system", "history", "question", "reserved", "free"))
    assert sum(parts.values()) == view.meter.bar.total
    budget = view.meter.budget
    assert budget is not None and f"{budget.history:,}" in view.meter.toolTip()
    screenshot(window, "chat-08-context-meter")


def test_a_question_too_long_for_the_context_is_refused_inline(
    qtbot: Any, chat_windows: ChatWindows, tiny_gguf: Path, screenshot: Shot
) -> None:
    window = chat_windows.open(tiny_gguf, context_length=512)
    view, _sidebar, store = chat_of(window)
    view.sampling = greedy(16)
    long_question = "Please read all of this: " + "lorem ipsum dolor sit amet " * 150
    view.composer.set_text(long_question)
    qtbot.waitUntil(lambda: view.meter.bar.overflow, timeout=PREVIEW_TIMEOUT_MS)
    assert view.notice.isVisible() and view.notice.kind == "too_long"
    assert "does not fit" in view.notice.full_text and view.notice.action_button.text() == "Settings…"
    assert "512" in view.meter.label.text() or "0.5K" in view.meter.label.text()

    assert view.send()  # sent anyway: the answer fails in preparation and says why
    conversation_id = view.conversation_id
    assert conversation_id is not None
    wait_until_done(qtbot, view, conversation_id)
    answer = store.branch(conversation_id)[-1]
    assert answer.role == "assistant" and answer.finish_reason == "error"
    assert view.notice.kind == "error" and "does not fit" in view.notice.full_text
    assert "context length" in view.notice.full_text  # what to do
    assert view.notice.label.text().count("\n") == 0
    widget = view.messages.widget_for(answer.id)
    assert widget is not None and "failed" in widget.status.text()
    screenshot(window, "chat-09-question-too-long")

    view.composer.set_text("Short again")
    qtbot.waitUntil(lambda: not view.meter.bar.overflow and bool(view.meter.parts()),
                    timeout=PREVIEW_TIMEOUT_MS)


def test_settings_that_were_not_valid_are_named_above_the_input(
    qtbot: Any, isolated_environment: Path, open_window: Callable[..., MainWindow]
) -> None:
    settings_file = isolated_environment / "config" / "settings.toml"
    settings_file.parent.mkdir(parents=True, exist_ok=True)
    settings_file.write_text('version = 2\n[ui]\ntheme = "purple"\n', encoding="utf-8")
    context = build_context(str(isolated_environment), verbose=False)
    windows = ChatWindows(qtbot, context, open_window)
    try:
        window = windows.open()
        view, _sidebar, _store = chat_of(window)
        assert view.notice.kind == "settings" and "ui.theme" in view.notice.full_text
        qtbot.mouseClick(view.notice.close_button, Qt.MouseButton.LeftButton)
        assert view.notice.kind == "model"  # dismissed: the line goes back to saying there is no model
    finally:
        windows.close()


def test_typing_without_a_pause_still_moves_the_meter(
    qtbot: Any, chat_windows: ChatWindows, tiny_gguf: Path
) -> None:
    window = chat_windows.open(tiny_gguf)
    view, _sidebar, _store = chat_of(window)
    qtbot.waitUntil(lambda: bool(view.meter.parts()), timeout=PREVIEW_TIMEOUT_MS)
    runs = view.preview.runs
    keystrokes: list[float] = []
    runs_while_typing: list[int] = []  # previews a keystroke itself started: the wait ran out without a pause

    def type_a_word() -> None:
        before = view.preview.runs
        view.composer.editor.insertPlainText("word ")
        keystrokes.append(time.monotonic())
        runs_while_typing.append(view.preview.runs - before)

    typist = QTimer(window)
    typist.timeout.connect(type_a_word)
    started = time.monotonic()
    typist.start(100)  # faster than the 300 ms pause the meter waits for
    qtbot.waitUntil(lambda: sum(runs_while_typing) >= 2, timeout=PREVIEW_TIMEOUT_MS)
    typist.stop()
    typed_s = time.monotonic() - started
    forced = sum(runs_while_typing)
    assert forced <= typed_s / PREVIEW_MAX_WAIT_S + 1  # about once a second while typing...
    assert forced * 3 <= len(keystrokes)  # ...not once per keystroke
    # Any other preview needs a pause of PREVIEW_DELAY_MS between keystrokes (a stalled typist on a busy
    # machine makes some; a timer may fire 5 % early), plus one a request before the typing may have queued.
    pauses = sum(later - earlier >= 0.9 * PREVIEW_DELAY_MS / 1000
                 for earlier, later in itertools.pairwise([started, *keystrokes, time.monotonic()]))
    assert view.preview.runs - runs <= forced + pauses + 1
    qtbot.waitUntil(lambda: view.meter.parts().get("question", 0) > 20, timeout=PREVIEW_TIMEOUT_MS)


def test_earlier_turns_left_out_of_the_context_are_marked_in_the_conversation(
    qtbot: Any, chat_windows: ChatWindows, tiny_gguf: Path, screenshot: Shot
) -> None:
    """Once a long chat no longer fits the context, a quiet line in the conversation says which messages the
    model no longer sees (it was only in the tooltip of the answer's notes icon)."""
    window = chat_windows.open(tiny_gguf, context_length=512)
    view, _sidebar, store = chat_of(window)
    view.sampling = greedy(32, ignore_eos=True)
    dropped = 0
    for turn in range(10):
        assert view.send(f"Question {turn}: " + "lorem ipsum dolor sit amet " * 12)
        conversation_id = view.conversation_id
        assert conversation_id is not None
        wait_until_done(qtbot, view, conversation_id)
        answer = store.branch(conversation_id)[-1]
        assert answer.finish_reason == "length", answer.settings
        dropped = int(answer.settings.get("history_dropped", 0))
        if dropped:
            break
    assert dropped > 0, "the chat never outgrew the 512-token context"
    assert conversation_id is not None
    branch = store.branch(conversation_id)
    first_sent = branch[dropped]  # every earlier turn has text, so the first `dropped` messages were left out
    assert first_sent.role == "user"
    marker = view.messages.cut_marker
    qtbot.waitUntil(marker.isVisible, timeout=PREVIEW_TIMEOUT_MS)
    assert view.messages.cut_before == first_sent.id
    assert "not sent to the model" in view.messages.cut_label.text()
    above = view.messages.widget_for(branch[dropped - 1].id)
    below = view.messages.widget_for(first_sent.id)
    assert above is not None and below is not None
    qtbot.waitUntil(lambda: above.geometry().bottom() < marker.geometry().top()
                    and marker.geometry().bottom() < below.geometry().top(), timeout=PREVIEW_TIMEOUT_MS)
    view.messages.ensureWidgetVisible(marker)
    screenshot(window, "chat-42-context-cut-marker")
