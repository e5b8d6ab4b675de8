"""The two context numbers say what each counts: the meter under the input is this conversation's next prompt
against one chat's context window; the gauges' KV-cache line is the cache cells filled in all chats (the reused
prefix included); each tooltip explains the difference. A real model answers in a real window."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import Qt
from PySide6.QtWidgets import QWidget

from app.ui.i18n import LanguageSwitcher
from tests.ui.chat_support import ChatWindows, chat_of, greedy, wait_until_done
from tests.ui.i18n_support import english_left, shown_text

pytestmark = pytest.mark.gui
Shot = Callable[[QWidget, str], Path]


def test_the_meter_and_the_kv_gauge_each_say_what_they_count(
        qtbot: Any, chat_windows: ChatWindows, tiny_gguf: Path, switcher: LanguageSwitcher, screenshot: Shot) -> None:
    window = chat_windows.open(tiny_gguf)
    window.resize(1300, 800)
    view, _, _ = chat_of(window)
    view.sampling = greedy(24, ignore_eos=True)
    assert view.send("Where does the heron nest?")
    assert view.conversation_id is not None
    wait_until_done(qtbot, view, view.conversation_id)
    view.composer.set_text("And the kingfisher?")
    qtbot.waitUntil(lambda: view.meter.budget is not None and view.meter.budget.history > 0, timeout=30_000)
    budget = view.meter.budget
    assert budget is not None
    assert view.meter.label.text().startswith("Next prompt: ")
    tip = view.meter.toolTip()
    assert f"{budget.prompt:,} of the {budget.context:,} tokens one chat can hold" in tip
    assert "KV cache in the gauges counts something else" in tip

    def kv_shown() -> bool:
        latest = window.sampler.latest
        return latest is not None and latest.speed.kv_cells_used > 0

    window.sampler.sample_now()
    qtbot.waitUntil(kv_shown, timeout=30_000)
    note = window.gauges.speed_gauge.note
    qtbot.waitUntil(lambda: note.text().startswith("KV cache, all chats:"), timeout=10_000)
    tooltip = shown_text(note.toolTip())
    assert "meter under the message box" in tooltip and "every chat together" in tooltip
    assert Qt.mightBeRichText(note.toolTip())  # so Qt wraps it to the screen
    window.gauges_dock.raise_()
    screenshot(window, "context-numbers-en")
    switcher.apply("zh_CN")
    qtbot.waitUntil(lambda: view.meter.label.text().startswith("下一次提示"), timeout=5_000)
    qtbot.waitUntil(lambda: note.text().startswith("KV 缓存（所有对话）"), timeout=5_000)
    shown = [view.meter.label.text(), view.meter.toolTip(), note.text(), shown_text(note.toolTip())]
    assert english_left(shown, ["K"]) == []
    assert "系统提示词：" in view.meter.toolTip()  # a Chinese colon after each part's name
    screenshot(window, "context-numbers-zh")
