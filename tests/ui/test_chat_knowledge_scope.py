"""The knowledge base on/off and document scope per conversation, in the real window with a real knowledge base
(MiniLM, chromadb, SQLite) and a real tiny llama.cpp model: the choice reaches the answers' citations, survives
a restart, and opening it never waits for the knowledge base."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox, QWidget

from app.core.chat.records import KnowledgeScope
from app.core.kb.knowledge_base import KnowledgeBase
from app.core.kb.progress import ProgressTracker
from app.core.services.indexing import IndexingJob
from app.ui.chat.knowledge_scope_button import KnowledgeScopeButton
from app.ui.chat.knowledge_scope_dialog import KnowledgeScopeDialog
from app.ui.chat.knowledge_scope_tree import FAILED_COLOUR, STATUS
from app.ui.i18n import LanguageSwitcher
from app.ui.main_window import MainWindow
from tests.fixtures.documents import write_corrupt_pdf, write_text
from tests.fixtures.knowledge_base import open_knowledge_base
from tests.ui.chat_support import ChatWindows, chat_of, greedy, settled, wait_until_done

pytestmark = [pytest.mark.gui, pytest.mark.integration]
Shot = Callable[[QWidget, str], Path]
QUESTION = "Where does the grey heron nest?"
LOAD_MS = 30_000


def write_documents(root: Path) -> dict[str, Path]:
    """An added folder (two notes, a broken PDF, a subfolder) and a file added on its own."""
    docs = root / "docs"
    return {
        "heron": write_text(docs / "heron.md", "# Herons\n\nThe grey heron nests in tall reeds beside the river.\n",
                            "utf-8"),
        "otters": write_text(docs / "otters.md", "# Otters\n\nSea otters eat sea urchins and crack crabs.\n", "utf-8"),
        "broken": write_corrupt_pdf(docs / "broken.pdf"),
        "nested": write_text(docs / "birds" / "swifts.md", "# Swifts\n\nSwifts sleep while flying.\n", "utf-8"),
        "loose": write_text(root / "loose" / "moles.md", "# Moles\n\nMoles dig tunnels in the garden.\n", "utf-8"),
    }


def indexed_knowledge_base(root: Path, files: dict[str, Path]) -> KnowledgeBase:
    knowledge_base = open_knowledge_base(root / "kb")
    knowledge_base.indexer().run([files["heron"].parent, files["loose"]], ProgressTracker(), threading.Event())
    return knowledge_base


def ids_by_name(knowledge_base: KnowledgeBase, files: dict[str, Path]) -> dict[str, int]:
    by_path = {record.path: record.id for record in knowledge_base.documents()}
    return {name: by_path[str(path.resolve())] for name, path in files.items()}


def attach(window: MainWindow, knowledge_base: KnowledgeBase) -> KnowledgeScopeButton:
    """Hand the window's answerer the knowledge base (as opening it from the panel does); its scope button."""
    assert window.services.chat is not None and window.chat_view is not None
    window.services.chat.answerer.knowledge_base = knowledge_base
    return window.chat_view.knowledge_scope


def open_scope_dialog(qtbot: Any, button: KnowledgeScopeButton) -> KnowledgeScopeDialog:
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    dialog = button.dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.waitUntil(lambda: dialog.state == "loaded", timeout=LOAD_MS)
    return dialog


def save(dialog: KnowledgeScopeDialog) -> None:
    save_button = dialog.save_button
    assert dialog.buttons.buttonRole(save_button) is QDialogButtonBox.ButtonRole.AcceptRole
    save_button.click()
    assert not dialog.isVisible()


def citation_paths(window: MainWindow, conversation_id: str) -> set[str]:
    _view, _sidebar, store = chat_of(window)
    answer = store.messages(conversation_id)[-1]
    assert answer.role == "assistant" and answer.finish_reason != "error", answer.settings
    return {citation.path for citation in answer.citations}


def ask(qtbot: Any, window: MainWindow, question: str) -> str:
    view, _sidebar, _store = chat_of(window)
    assert view.send(question)
    conversation_id = view.conversation_id
    assert conversation_id is not None
    wait_until_done(qtbot, view, conversation_id)
    return conversation_id


def test_off_in_one_conversation_one_document_in_another_and_the_choice_is_kept(
    qtbot: Any, tmp_path: Path, chat_windows: ChatWindows, tiny_gguf: Path, screenshot: Shot
) -> None:
    files = write_documents(tmp_path)
    window = chat_windows.open(tiny_gguf)
    view, sidebar, store = chat_of(window)
    view.sampling = greedy(8)
    button = view.knowledge_scope
    assert not button.isEnabled() and "no knowledge base" in button.toolTip()
    knowledge_base = indexed_knowledge_base(tmp_path, files)
    ids = ids_by_name(knowledge_base, files)
    attach(window, knowledge_base)
    qtbot.waitUntil(button.isEnabled, timeout=LOAD_MS)

    # A new chat with the knowledge base turned off before its first message: no sources, no citations.
    view.show_conversation(None)
    settled(qtbot, view)
    assert button.text() == "Knowledge base: all documents"
    dialog = open_scope_dialog(qtbot, button)
    assert dialog.windowTitle() == "Knowledge base for a new chat"
    qtbot.mouseClick(dialog.enabled_box, Qt.MouseButton.LeftButton)
    assert not dialog.enabled_box.isChecked() and not dialog.tree.isEnabled()
    save(dialog)
    assert button.text() == "Knowledge base: off"
    off_id = ask(qtbot, window, QUESTION)
    assert not store.conversation(off_id).kb_enabled
    assert citation_paths(window, off_id) == set()
    assert button.conversation_id == off_id and button.text() == "Knowledge base: off"

    # Another conversation still answers from every document.
    everything = store.create_conversation("Every document")
    sidebar.refresh(select=everything.id)
    settled(qtbot, sidebar)
    assert button.text() == "Knowledge base: all documents"
    ask(qtbot, window, QUESTION)
    assert {str(files["heron"].resolve()), str(files["otters"].resolve())} <= citation_paths(window, everything.id)

    # A third is limited to the heron note: an otter question is answered from it alone.
    herons = store.create_conversation("Herons only")
    sidebar.refresh(select=herons.id)
    settled(qtbot, sidebar)
    dialog = open_scope_dialog(qtbot, button)
    assert dialog.windowTitle() == "Knowledge base for this conversation" and dialog.enabled_box.isChecked()
    heron_item = dialog.tree.item_for_document(ids["heron"])
    assert heron_item is not None
    heron_item.setCheckState(0, Qt.CheckState.Checked)
    assert dialog.summary.text() == "Answers use only the checked folders and documents."
    screenshot(dialog, "chat-20-knowledge-scope-dialog")
    save(dialog)
    assert button.text() == "Knowledge base: 1 document"
    heron_only = KnowledgeScope(document_ids=(ids["heron"],))
    qtbot.waitUntil(lambda: store.conversation(herons.id).kb_scope == heron_only, timeout=LOAD_MS)  # saved off-thread
    ask(qtbot, window, "What do sea otters eat?")
    assert citation_paths(window, herons.id) == {str(files["heron"].resolve())}
    screenshot(window, "chat-21-knowledge-scope-button")

    # A restarted window shows each conversation's stored choice.
    window.close()
    second = chat_windows.open()
    second_view, second_sidebar, _store = chat_of(second)
    second_button = attach(second, knowledge_base)
    second_sidebar.refresh(select=herons.id)
    settled(qtbot, second_sidebar)
    qtbot.waitUntil(second_button.isEnabled, timeout=LOAD_MS)
    assert second_button.text() == "Knowledge base: 1 document"
    dialog = open_scope_dialog(qtbot, second_button)
    checked = {name for name, document_id in ids.items()
               if (item := dialog.tree.item_for_document(document_id)) is not None
               and item.checkState(0) == Qt.CheckState.Checked}
    assert checked == {"heron"}
    dialog.reject()
    second_sidebar.refresh(select=off_id)
    settled(qtbot, second_sidebar)
    assert second_view.conversation_id == off_id and second_button.text() == "Knowledge base: off"


def test_the_tree_shows_folders_documents_and_their_state_and_folders_can_be_chosen(
    qtbot: Any, tmp_path: Path, chat_windows: ChatWindows, screenshot: Shot
) -> None:
    files = write_documents(tmp_path)
    knowledge_base = indexed_knowledge_base(tmp_path, files)
    pending_folder = tmp_path / "later"
    write_text(pending_folder / "owls.md", "# Owls\n\nOwls hunt at night.\n", "utf-8")
    waiting = IndexingJob(knowledge_base, [pending_folder])
    waiting.cancel()  # cancelled before it starts: its document stays pending
    waiting.start().wait(60)
    window = chat_windows.open()
    _view, sidebar, store = chat_of(window)
    button = attach(window, knowledge_base)
    conversation = store.create_conversation("Folders")
    sidebar.refresh(select=conversation.id)
    settled(qtbot, sidebar)
    qtbot.waitUntil(button.isEnabled, timeout=LOAD_MS)
    ids = ids_by_name(knowledge_base, files)

    dialog = open_scope_dialog(qtbot, button)
    tree = dialog.tree
    docs, loose = str(files["heron"].parent.resolve()), str(files["loose"].resolve())
    tops = {tree.topLevelItem(row).toolTip(0) for row in range(tree.topLevelItemCount())}  # type: ignore[union-attr]
    assert tops == {docs, str(pending_folder.resolve()), loose}
    folder_item = tree.item_for_folder(docs)
    assert folder_item is not None and folder_item.text(0) == docs
    children = {folder_item.child(index).text(0) for index in range(folder_item.childCount())}  # type: ignore[union-attr]
    assert children == {"heron.md", "otters.md", "broken.pdf", "birds/swifts.md"}
    broken = tree.item_for_document(ids["broken"])
    assert broken is not None and broken.text(STATUS).startswith("Failed: ")
    assert broken.foreground(STATUS).color() == FAILED_COLOUR
    owls = next(tree.item_for_document(record.id) for record in knowledge_base.documents()
                if record.path.endswith("owls.md"))
    assert owls is not None and owls.text(STATUS) == "Pending" and "once it is indexed" in owls.toolTip(STATUS)
    assert dialog.summary.text().startswith("Nothing is checked, so answers may use every document.")

    folder_item.setCheckState(0, Qt.CheckState.Checked)
    assert tree.scope() == KnowledgeScope(folders=(docs,))
    heron = tree.item_for_document(ids["heron"])
    assert heron is not None and heron.checkState(0) == Qt.CheckState.Checked  # the folder's documents follow
    heron.setCheckState(0, Qt.CheckState.Unchecked)
    assert folder_item.checkState(0) == Qt.CheckState.PartiallyChecked
    assert tree.scope() == KnowledgeScope(tuple(sorted(ids[name] for name in ("otters", "broken", "nested"))))
    qtbot.mouseClick(dialog.all_button, Qt.MouseButton.LeftButton)
    assert tree.scope().everything and folder_item.checkState(0) == Qt.CheckState.Unchecked

    folder_item.setCheckState(0, Qt.CheckState.Checked)
    loose_item = tree.item_for_document(ids["loose"])
    assert loose_item is not None
    loose_item.setCheckState(0, Qt.CheckState.Checked)
    screenshot(dialog, "chat-22-knowledge-scope-folders")
    save(dialog)
    assert button.text() == "Knowledge base: 1 folder, 1 document"
    chosen = KnowledgeScope((ids["loose"],), (docs,))
    qtbot.waitUntil(lambda: store.conversation(conversation.id).kb_scope == chosen, timeout=LOAD_MS)  # saved off-thread

    dialog = open_scope_dialog(qtbot, button)
    reopened = dialog.tree.item_for_folder(docs)
    assert reopened is not None and reopened.checkState(0) == Qt.CheckState.Checked
    dialog.reject()
    assert store.conversation(conversation.id).kb_scope == KnowledgeScope((ids["loose"],), (docs,))


def test_opening_never_waits_for_a_busy_knowledge_base(
    qtbot: Any, tmp_path: Path, chat_windows: ChatWindows
) -> None:
    files = write_documents(tmp_path)
    knowledge_base = indexed_knowledge_base(tmp_path, files)
    window = chat_windows.open()
    _view, sidebar, store = chat_of(window)
    button = attach(window, knowledge_base)
    conversation = store.create_conversation("Busy")
    sidebar.refresh(select=conversation.id)
    settled(qtbot, sidebar)
    qtbot.waitUntil(button.isEnabled, timeout=LOAD_MS)

    held, release = threading.Event(), threading.Event()

    def busy() -> None:  # like a search loading its embedding model: the knowledge base is locked meanwhile
        with knowledge_base._lock:
            held.set()
            release.wait(30)

    holder = threading.Thread(target=busy, daemon=True)
    holder.start()
    assert held.wait(5)
    try:
        # Were the dialog to wait for the lock, the click would return only once the holder gives up (30 s),
        # and the dialog would then be loaded, not loading.
        qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
        dialog = button.dialog
        assert dialog is not None and dialog.isVisible()
        assert dialog.state == "loading" and dialog.status.text() == "Reading the documents…"
        assert dialog.enabled_box.isEnabled() and not dialog.tree.isEnabled()
        qtbot.wait(200)
        assert dialog.state == "loading"
    finally:
        release.set()
        holder.join(5)
    qtbot.waitUntil(lambda: dialog.state == "loaded", timeout=LOAD_MS)
    assert dialog.tree.document_count() == len(files) and dialog.tree.isEnabled()
    dialog.reject()


def test_the_control_follows_a_language_switch(
    qtbot: Any, qapp: Any, tmp_path: Path, chat_windows: ChatWindows
) -> None:
    files = write_documents(tmp_path)
    knowledge_base = indexed_knowledge_base(tmp_path, files)
    ids = ids_by_name(knowledge_base, files)
    window = chat_windows.open()
    _view, sidebar, store = chat_of(window)
    button = attach(window, knowledge_base)
    scope = KnowledgeScope((ids["heron"], ids["loose"]), (str(files["nested"].parent.resolve()),))
    conversation = store.create_conversation("Languages", kb_scope=scope)
    sidebar.refresh(select=conversation.id)
    settled(qtbot, sidebar)
    qtbot.waitUntil(button.isEnabled, timeout=LOAD_MS)
    assert button.text() == "Knowledge base: 1 folder, 2 documents"
    dialog = open_scope_dialog(qtbot, button)
    heron = dialog.tree.item_for_document(ids["heron"])
    assert heron is not None and heron.text(STATUS) == "Indexed"
    languages = LanguageSwitcher(qapp)
    try:
        languages.apply("zh_CN")
        qtbot.waitUntil(lambda: button.text() == "知识库：1 个文件夹、2 个文档", timeout=LOAD_MS)
        qtbot.waitUntil(lambda: dialog.windowTitle() == "此对话的知识库", timeout=LOAD_MS)
        assert dialog.enabled_box.text() == "在此对话中使用知识库" and dialog.all_button.text() == "使用全部文档"
        assert dialog.tree.headerItem().text(0) == "文件夹或文档"
        assert heron.text(STATUS) != "Indexed" and button.accessibleName() == "此对话的知识库"
        assert dialog.tree.scope() == scope  # what is checked stays
    finally:
        languages.apply("en")
    qtbot.waitUntil(lambda: button.text() == "Knowledge base: 1 folder, 2 documents", timeout=LOAD_MS)
    qtbot.waitUntil(lambda: heron.text(STATUS) == "Indexed", timeout=LOAD_MS)
    dialog.reject()
    languages.deleteLater()
