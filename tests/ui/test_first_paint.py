"""Start-up work waits for the window's first paint."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QMainWindow
from pytestqt.qtbot import QtBot

from app.ui import first_paint
from app.ui.first_paint import AfterFirstPaint

pytestmark = pytest.mark.gui
WAIT_MS = 10_000


def _window(qtbot: QtBot) -> QMainWindow:
    window = QMainWindow()
    window.setCentralWidget(QLabel("hello", window))
    qtbot.addWidget(window)
    return window


def test_callbacks_run_after_the_first_paint_in_order(qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_paint, "FALLBACK_DELAY_MS", 600_000)  # only the paint can run them in this test
    window = _window(qtbot)
    hook = AfterFirstPaint(window)
    calls: list[str] = []
    hook.add(lambda: calls.append("first"))
    hook.add(lambda: calls.append("second"))
    assert calls == [] and not hook.painted
    window.show()
    hook.window_shown()
    qtbot.waitUntil(lambda: calls == ["first", "second"], timeout=WAIT_MS)
    assert hook.painted
    hook.add(lambda: calls.append("late"))
    assert calls == ["first", "second"]  # not synchronously: on the next turn of the event loop
    qtbot.waitUntil(lambda: calls == ["first", "second", "late"], timeout=WAIT_MS)


def test_a_window_that_never_paints_still_gets_its_work_started(
        qtbot: QtBot, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(first_paint, "FALLBACK_DELAY_MS", 50)
    window = _window(qtbot)  # never shown, so never painted
    hook = AfterFirstPaint(window)
    calls: list[str] = []
    hook.add(lambda: calls.append("ran"))
    hook.window_shown()
    qtbot.waitUntil(lambda: calls == ["ran"], timeout=WAIT_MS)
    qtbot.wait(100)
    assert calls == ["ran"]  # once, not again when the fallback fires after a paint
