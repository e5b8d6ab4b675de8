"""PathField: a line edit for a file or folder path with a Browse button (file or folder)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFileDialog, QHBoxLayout, QLineEdit, QMenu, QToolButton, QWidget

from app.ui.i18n import TextSource, follow_language, rendered


class PathField(QWidget):
    """Path text plus a Browse menu; ``text_edited`` fires for typing and for a chosen path.

    ``accessible_name`` names the field (a function: written again after a language switch).
    """

    text_edited = Signal(str)

    def __init__(self, accessible_name: TextSource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._accessible_name = accessible_name
        self.line_edit = QLineEdit(self)
        self.line_edit.setClearButtonEnabled(True)
        self.browse_button = QToolButton(self)
        self.browse_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(self.browse_button)
        self.choose_file_action = menu.addAction("", self._choose_file)
        self.choose_folder_action = menu.addAction("", self._choose_folder)
        self.browse_button.setMenu(menu)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.line_edit, stretch=1)
        layout.addWidget(self.browse_button)
        self.line_edit.textEdited.connect(self.text_edited)
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        name = rendered(self._accessible_name)
        self.line_edit.setAccessibleName(name)
        self.line_edit.setPlaceholderText(self.tr("No path chosen"))
        self.browse_button.setText(self.tr("Browse…"))
        self.browse_button.setAccessibleName(self.tr("Browse for {0}").format(name))
        self.browse_button.setToolTip(self.tr("Choose a file or a folder"))
        self.choose_file_action.setText(self.tr("Choose a file…"))
        self.choose_folder_action.setText(self.tr("Choose a folder…"))

    def text(self) -> str:
        return self.line_edit.text()

    def set_text(self, text: str) -> None:
        self.line_edit.setText(text)

    def _start_folder(self) -> str:
        current = Path(self.line_edit.text()).expanduser()
        return str(current if current.is_dir() else current.parent) if self.line_edit.text() else str(Path.home())

    def _choose_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Choose a file"), self._start_folder(),
            self.tr("GGUF models (*.gguf);;All files (*)"),
        )
        self._take(path)

    def _choose_folder(self) -> None:
        self._take(QFileDialog.getExistingDirectory(self, self.tr("Choose a folder"), self._start_folder()))

    def _take(self, path: str) -> None:
        if path:
            self.line_edit.setText(path)
            self.text_edited.emit(path)
