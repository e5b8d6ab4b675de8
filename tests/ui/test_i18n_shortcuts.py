"""The shortcut table: keys reach their handlers window-wide, keys a button already owns are left to it, and the
action names follow the language."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QLineEdit, QMainWindow, QPushButton, QVBoxLayout, QWidget

from app.ui.i18n import LanguageSwitcher
from app.ui.shortcuts import SHORTCUTS, install_shortcuts, keys_in_use

pytestmark = pytest.mark.gui
WAIT_MS = 20_000  # window activation and a button's click animation: generous for a slow, loaded machine


@pytest.fixture
def window(qtbot: Any) -> Iterator[QMainWindow]:
    main = QMainWindow()
    body = QWidget(main)
    layout = QVBoxLayout(body)
    main.editor = QLineEdit(body)  # type: ignore[attr-defined]
    layout.addWidget(main.editor)  # type: ignore[attr-defined]
    main.setCentralWidget(body)
    qtbot.addWidget(main)
    main.show()
    main.activateWindow()
    qtbot.waitUntil(main.isActiveWindow, timeout=WAIT_MS)
    yield main


def test_the_table_names_the_five_shortcuts() -> None:
    table = {spec.name: spec.keys for spec in SHORTCUTS}
    assert table == {
        "new_chat": ("Ctrl+N",), "send": ("Ctrl+Return", "Ctrl+Enter"), "stop": ("Esc",),
        "search": ("Ctrl+F",), "focus_knowledge_base": ("Ctrl+K",),
    }
    assert all(not spec.sequences()[0].isEmpty() for spec in SHORTCUTS)


def test_keys_reach_their_handlers_from_anywhere_in_the_window(qtbot: Any, window: QMainWindow) -> None:
    calls: list[str] = []
    handlers = {spec.name: (lambda name=spec.name: calls.append(name)) for spec in SHORTCUTS}
    installed = install_shortcuts(window, handlers)
    editor = window.editor  # type: ignore[attr-defined]
    editor.setFocus()

    qtbot.keyClick(editor, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(editor, Qt.Key.Key_Enter, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.KeypadModifier)
    qtbot.keyClick(editor, Qt.Key.Key_Escape)
    qtbot.keyClick(editor, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClick(editor, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)

    assert calls == ["focus_knowledge_base", "send", "send", "stop", "search", "new_chat"]
    assert installed.skipped == {}
    assert editor.text() == ""  # no key leaked into the editor


def test_a_key_a_button_already_owns_is_left_to_it(qtbot: Any, window: QMainWindow) -> None:
    button = QPushButton("New", window.centralWidget())
    button.setObjectName("newChatButton")
    button.setShortcut(QKeySequence("Ctrl+N"))
    button.show()
    pressed: list[bool] = []
    button.clicked.connect(lambda: pressed.append(True))
    calls: list[str] = []
    assert keys_in_use(window)["Ctrl+N"] == "newChatButton"

    installed = install_shortcuts(window, {"new_chat": lambda: calls.append("new_chat"),
                                           "stop": lambda: calls.append("stop")})
    qtbot.keyClick(window.editor, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)  # type: ignore[attr-defined]

    qtbot.waitUntil(lambda: pressed == [True], timeout=WAIT_MS)  # a button's shortcut clicks it after a short animation
    assert installed.skipped == {"new_chat": "newChatButton"}
    assert set(installed.actions) == {"stop"}
    assert calls == []  # one binding, so Qt is not left with an ambiguous key


def test_action_names_follow_the_language(qtbot: Any, qapp: Any, window: QMainWindow) -> None:
    installed = install_shortcuts(window, {"stop": lambda: None, "focus_knowledge_base": lambda: None})
    switcher = LanguageSwitcher(qapp)
    try:
        assert installed.actions["stop"].text() == "Stop the answer"
        switcher.apply("zh_CN")
        installed.retranslate_ui()
        assert installed.actions["stop"].text() == "停止回答"
        assert installed.actions["focus_knowledge_base"].text() == "转到知识库"
    finally:
        switcher.apply("en")
        switcher.deleteLater()
    installed.retranslate_ui()
    assert installed.actions["stop"].text() == "Stop the answer"
