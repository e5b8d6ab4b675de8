"""File > Export conversation (Markdown, JSON) and Import conversation in the real window: files written whole,
a JSON export comes back as a new conversation, a bad file is refused with a clear notice and changes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from app.core.chat.records import Citation
from app.core.chat.store import ConversationStore
from app.ui.main_window import MainWindow
from tests.ui.chat_support import ChatWindows, chat_of, settled

pytestmark = pytest.mark.gui

WAIT_MS = 20_000
QUESTION = "How long is the undersea cable?"
ANSWER = "It is **42 km** long [1]."


def _conversation(store: ConversationStore, title: str) -> str:
    conversation = store.create_conversation(title)
    question = store.add_message(conversation.id, "user", QUESTION, None)
    store.add_message(conversation.id, "assistant", ANSWER, question.id, finish_reason="stop", model="tiny-model",
                      citations=(Citation(1, "/docs/cable.md", None, "Cable", 3, True, "The cable is 42 km."),))
    return conversation.id


def _show(qtbot: Any, window: MainWindow, conversation_id: str) -> None:
    view, sidebar, _store = chat_of(window)
    sidebar.select(conversation_id)
    settled(qtbot, view)
    qtbot.waitUntil(lambda: view.conversation_id == conversation_id, timeout=WAIT_MS)


def _answer_saves_to(window: MainWindow, folder: Path, asked: list[tuple[str, str]]) -> None:
    files = window.conversation_files
    assert files is not None

    def ask(export_format: str, suggested: str) -> Path:
        asked.append((export_format, suggested))
        return folder / suggested

    files.ask_save_path = ask  # type: ignore[assignment]


def test_the_conversation_on_show_is_exported_as_markdown_and_as_json(
    qtbot: Any, chat_windows: ChatWindows, tmp_path: Path
) -> None:
    window = chat_windows.open()
    view, _sidebar, store = chat_of(window)
    conversation_id = _conversation(store, "Cable: length / route?")
    _show(qtbot, window, conversation_id)
    asked: list[tuple[str, str]] = []
    _answer_saves_to(window, tmp_path, asked)
    window.file_menu.aboutToShow.emit()
    markdown_action, json_action = window.menus.export_markdown_action, window.menus.export_json_action
    assert markdown_action is not None and json_action is not None
    assert markdown_action.isEnabled() and json_action.isEnabled()
    assert markdown_action in window.file_menu.actions() and window.menus.import_action in window.file_menu.actions()

    markdown_action.trigger()
    markdown = tmp_path / "Cable length route.md"
    qtbot.waitUntil(markdown.exists, timeout=WAIT_MS)
    assert asked == [("markdown", "Cable length route.md")]  # characters file systems refuse are left out
    text = markdown.read_text(encoding="utf-8")
    assert text.startswith("# Cable: length / route?")
    assert "## You" in text and QUESTION in text and "## Assistant (tiny-model)" in text and ANSWER in text
    assert "1. " in text and "Sources:" in text
    qtbot.waitUntil(lambda: "exported" in view.notice.full_text, timeout=WAIT_MS)
    assert str(markdown) in view.notice.full_text

    json_action.trigger()
    exported = tmp_path / "Cable length route.json"
    qtbot.waitUntil(exported.exists, timeout=WAIT_MS)
    document = json.loads(exported.read_text(encoding="utf-8"))
    assert document["conversation"]["id"] == conversation_id
    assert [message["text"] for message in document["messages"]] == [QUESTION, ANSWER]
    assert not list(tmp_path.glob(".*.part"))  # written whole: no temporary file is left


def test_a_json_export_is_imported_as_a_new_conversation_and_shown(
    qtbot: Any, chat_windows: ChatWindows, tmp_path: Path
) -> None:
    window = chat_windows.open()
    view, _sidebar, store = chat_of(window)
    original = _conversation(store, "Cable")
    _show(qtbot, window, original)
    _answer_saves_to(window, tmp_path, [])
    window.file_menu.aboutToShow.emit()  # as when the user opens File
    json_action = window.menus.export_json_action
    assert json_action is not None
    json_action.trigger()
    exported = tmp_path / "Cable.json"
    qtbot.waitUntil(exported.exists, timeout=WAIT_MS)
    files, import_action = window.conversation_files, window.menus.import_action
    assert files is not None and import_action is not None
    files.ask_open_path = lambda: exported

    import_action.trigger()

    qtbot.waitUntil(lambda: view.conversation_id not in (None, original), timeout=WAIT_MS)
    imported = view.conversation_id
    assert imported is not None and len(store.conversations()) == 2
    assert [(message.role, message.text) for message in store.branch(imported)] == [
        ("user", QUESTION), ("assistant", ANSWER)]
    assert store.branch(imported)[1].citations[0].path == "/docs/cable.md"
    assert {message.id for message in store.messages(imported)}.isdisjoint(
        message.id for message in store.messages(original))  # the same file twice: ids are renewed


def test_a_file_that_is_not_an_export_is_refused_with_a_notice_and_nothing_changes(
    qtbot: Any, chat_windows: ChatWindows, tmp_path: Path
) -> None:
    window = chat_windows.open()
    view, _sidebar, store = chat_of(window)
    existing = _conversation(store, "Kept")
    _show(qtbot, window, existing)
    files, import_action = window.conversation_files, window.menus.import_action
    assert files is not None and import_action is not None
    for name, content in (("notes.json", "these are notes, not JSON"),
                          ("other.json", json.dumps({"format": "something-else", "version": 1}))):
        bad = tmp_path / name
        bad.write_text(content, encoding="utf-8")
        files.ask_open_path = lambda path=bad: path  # type: ignore[misc]
        view.notice.clear()

        import_action.trigger()

        qtbot.waitUntil(lambda: view.notice.isVisible() and view.notice.level == "error", timeout=WAIT_MS)
        assert "not a UniDesk conversation export" in view.notice.full_text
        assert [conversation.id for conversation in store.conversations()] == [existing]
        assert view.conversation_id == existing


def test_export_is_offered_only_while_a_conversation_is_shown(qtbot: Any, chat_windows: ChatWindows) -> None:
    window = chat_windows.open()
    view, _sidebar, _store = chat_of(window)
    assert view.conversation_id is None
    window.file_menu.aboutToShow.emit()
    markdown_action, json_action = window.menus.export_markdown_action, window.menus.export_json_action
    assert markdown_action is not None and json_action is not None
    assert not markdown_action.isEnabled() and not json_action.isEnabled()
    assert window.menus.import_action is not None and window.menus.import_action.isEnabled()
