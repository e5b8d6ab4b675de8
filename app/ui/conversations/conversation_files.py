"""ConversationFiles: File > Export conversation (Markdown or JSON) and Import conversation (JSON)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from app.core.chat.export import EXPORT_SUFFIXES, ExportFormat, export_to_file, import_from_file
from app.core.chat.records import Conversation
from app.core.chat.store import ConversationStore
from app.ui.bridge import Bridge
from app.ui.i18n import render

AskSavePath = Callable[[ExportFormat, str], Path | None]
AskOpenPath = Callable[[], Path | None]
_UNSAFE_IN_NAMES = re.compile(r'[\\/:*?"<>|\x00-\x1f]+')


def suggested_file_name(title: str, export_format: ExportFormat) -> str:
    """A file name from the conversation's title (characters file systems refuse become spaces)."""
    stem = " ".join(_UNSAFE_IN_NAMES.sub(" ", title).split())[:80].strip(" .") or "conversation"
    return stem + EXPORT_SUFFIXES[export_format]


class ConversationFiles(QObject):
    """Asks where (file dialogs; tests replace ``ask_save_path`` and ``ask_open_path``), then reads the store
    and writes or reads the file on ``bridge``'s workers: the window never waits for SQLite or the disk.

    ``exported(path)``, ``imported(conversation_id)`` and ``failed(message)`` report the outcome on the GUI thread.
    """

    exported = Signal(object)
    imported = Signal(str)
    failed = Signal(str)

    def __init__(self, store: ConversationStore, bridge: Bridge, parent: QWidget) -> None:
        super().__init__(parent)
        self._store = store
        self._bridge = bridge
        self._parent = parent
        self.folder = Path.home()
        """Where the dialogs open: the folder of the last file written or read."""
        self.ask_save_path: AskSavePath = self._ask_save_path_dialog
        self.ask_open_path: AskOpenPath = self._ask_open_path_dialog

    def export_conversation(self, conversation_id: str, export_format: ExportFormat) -> None:
        """Ask for a file (named after the conversation's title), then write the conversation there
        (Markdown: the branch on show; JSON: all of it)."""
        store = self._store
        self._bridge.run_in_background(lambda: store.conversation(conversation_id).title,
                                       lambda title: self._ask_and_write(conversation_id, export_format, title),
                                       self._failed)

    def _ask_and_write(self, conversation_id: str, export_format: ExportFormat, title: str) -> None:
        path = self.ask_save_path(export_format, suggested_file_name(title, export_format))
        if path is None:
            return
        if not path.suffix:
            path = path.with_suffix(EXPORT_SUFFIXES[export_format])
        self.folder = path.parent
        store = self._store
        self._bridge.run_in_background(lambda: export_to_file(store, conversation_id, path, export_format),
                                       self.exported.emit, self._failed)

    def import_conversation(self) -> None:
        """Ask for a JSON export, then add its conversation (a bad file is refused whole; nothing changes)."""
        path = self.ask_open_path()
        if path is None:
            return
        self.folder = path.parent
        store = self._store

        def added(conversation: Conversation) -> None:
            self.imported.emit(conversation.id)

        self._bridge.run_in_background(lambda: import_from_file(store, path), added, self._failed)

    def _failed(self, error: Exception) -> None:
        self.failed.emit(render(str(error)) or type(error).__name__)

    def _ask_save_path_dialog(self, export_format: ExportFormat, suggested: str) -> Path | None:
        filters = {"markdown": self.tr("Markdown (*.md)"), "json": self.tr("UniDesk conversation (*.json)")}
        name, _ = QFileDialog.getSaveFileName(self._parent, self.tr("Export conversation"),
                                              str(self.folder / suggested), filters[export_format])
        return Path(name) if name else None

    def _ask_open_path_dialog(self) -> Path | None:
        name, _ = QFileDialog.getOpenFileName(self._parent, self.tr("Import conversation"), str(self.folder),
                                              self.tr("UniDesk conversation (*.json);;All files (*)"))
        return Path(name) if name else None
