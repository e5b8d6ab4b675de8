"""The knowledge base and model manager composed into the real main window: dock, drops onto the chat, the first-run
guide, the Models menu, shortcuts, and an answer that cites the dropped documents."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import SIGNAL, Qt
from PySide6.QtWidgets import QMenu, QWidget

from app.ui.main_window import MainWindow
from tests.fixtures.documents import CHINESE_TEXT, write_pdf, write_text
from tests.fixtures.models import GgufFactory
from tests.ui.chat_support import (
    STREAMING_CONTEXT,
    STREAMING_SHAPE,
    ChatWindows,
    chat_of,
    greedy,
    wait_until_done,
)
from tests.ui.knowledge_support import INDEXING_TIMEOUT_MS, drop_files, wait_until_indexed
from tests.ui.models_support import make_library

pytestmark = [pytest.mark.gui, pytest.mark.integration, pytest.mark.slow]
Shot = Callable[[QWidget, str], Path]
WAIT_MS = 20_000  # the dock and the first-run guide come after worker threads report: generous for a loaded machine


@pytest.fixture
def open_composed(chat_windows: ChatWindows, tmp_path: Path) -> Callable[..., MainWindow]:
    """Open the window as the app composes it, with a model library under the test's folder."""

    def open_one(model: Path | None = None, **options: Any) -> MainWindow:
        return chat_windows.open(model, library=make_library(tmp_path / "library"), **options)

    return open_one


def test_dropping_onto_the_chat_indexes_and_the_answer_cites_the_documents(
    qtbot: Any, tmp_path: Path, open_composed: Callable[..., MainWindow],
    tiny_gguf: Path, screenshot: Shot,
) -> None:
    window = open_composed(tiny_gguf)
    view, _sidebar, store = chat_of(window)
    qtbot.waitUntil(lambda: window.knowledge_dock in window.tabifiedDockWidgets(window.gauges_dock),
                    timeout=WAIT_MS)
    assert window.knowledge_dock.toggleViewAction() in window.view_menu.actions()
    pdf = write_pdf(tmp_path / "docs" / "heron-guide.pdf",
                    [["The grey heron nests in tall reeds beside the river Wend."]])
    gbk = write_text(tmp_path / "docs" / "gbk-notes.txt", CHINESE_TEXT, "gbk")

    assert drop_files(view.composer.editor.viewport(), [pdf, gbk]) == (True, True)

    assert view.composer.text() == ""  # the drop went to the knowledge base, not into the message
    wait_until_indexed(qtbot, window.knowledge_panel, [pdf, gbk])
    assert window.knowledge_dock.isVisible()
    chat = window.services.chat
    assert chat is not None and chat.answerer.knowledge_base is window.knowledge.knowledge_base
    screenshot(window, "kb-04-window-after-drop")

    assert view.send("Where does the grey heron nest beside the river Wend?")
    conversation_id = view.conversation_id
    assert conversation_id is not None
    wait_until_done(qtbot, view, conversation_id)
    answer = store.messages(conversation_id)[-1]
    assert answer.role == "assistant"
    cited = {Path(citation.path).name for citation in answer.citations}
    assert "heron-guide.pdf" in cited
    assert next(citation for citation in answer.citations if citation.path == str(pdf)).page == 1


def test_indexing_in_the_window_waits_while_an_answer_is_written(
    qtbot: Any, tmp_path: Path, open_composed: Callable[..., MainWindow],
    tiny_gguf_factory: GgufFactory,
) -> None:
    window = open_composed(tiny_gguf_factory(STREAMING_SHAPE), context_length=STREAMING_CONTEXT)
    view, _sidebar, _store = chat_of(window)
    knowledge_base = window.knowledge.open()  # the embedding model ready, so indexing reaches its first batch at once
    knowledge_base.embedders.get(knowledge_base.settings.str_value("kb.embedding_model")).load()
    manager = window.services.engine_manager
    view.sampling = greedy(STREAMING_CONTEXT - 100, ignore_eos=True)  # far longer than the test needs
    assert view.send("Tell me a long story about herons.")
    conversation_id = view.conversation_id
    assert conversation_id is not None
    qtbot.waitUntil(manager.generating, timeout=WAIT_MS)

    notes = write_text(tmp_path / "docs" / "heron-notes.txt", "Grey herons nest in tall reeds beside the river.",
                       "utf-8")
    window.knowledge_panel.add_paths([notes])

    def paused() -> bool:
        service = window.knowledge.service
        job = service.current_job() if service is not None else None
        return job is not None and job.progress().paused

    qtbot.waitUntil(paused, timeout=INDEXING_TIMEOUT_MS)
    qtbot.waitUntil(lambda: "Paused while an answer is written" in window.knowledge_panel.progress.phase_label.text(),
                    timeout=WAIT_MS)
    assert view.running.is_running(conversation_id) and window.knowledge.knowledge_base is knowledge_base
    assert knowledge_base.stats().chunks == 0  # nothing embedded while the answer runs

    view.composer.stop_button.click()  # the answer ends: indexing carries on by itself
    wait_until_done(qtbot, view, conversation_id)
    wait_until_indexed(qtbot, window.knowledge_panel, [notes])
    assert not manager.generating() and knowledge_base.stats().chunks > 0


def test_models_menu_first_run_guide_and_shortcuts(
    qtbot: Any, open_composed: Callable[..., MainWindow]
) -> None:
    window = open_composed(first_run_guide=True)
    manager = window.model_manager
    qtbot.waitUntil(manager.isVisible, timeout=WAIT_MS)  # no model anywhere: the first-run guide opens by itself
    assert manager.stack.currentWidget() is manager.first_run
    manager.close()

    assert window.models_action.text() == "&Models…"
    file_menus = [menu for menu in window.load_action.associatedObjects() if isinstance(menu, QMenu)]
    assert window.models_action in file_menus[0].actions()
    # The Load buttons open the manager now, not a file dialog.
    assert window.welcome.receivers(SIGNAL("load_requested()")) == 1
    window.welcome.load_requested.emit()
    assert manager.isVisible() and manager.stack.currentWidget() is manager.tabs
    manager.close()

    assert window.shortcuts.skipped == {"new_chat": "newChatButton"}  # the sidebar's button keeps Ctrl+N
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow, timeout=WAIT_MS)
    view, sidebar, _store = chat_of(window)
    view.composer.editor.setFocus()
    qtbot.keyClick(view.composer.editor, Qt.Key.Key_K, Qt.KeyboardModifier.ControlModifier)
    assert window.knowledge_dock.isVisible() and window.knowledge_panel.table.hasFocus()
    qtbot.keyClick(window.knowledge_panel.table, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert sidebar.search.hasFocus()
