"""WatchedFoldersView: the folders the knowledge base keeps up to date, with Show and Stop watching."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, Qt, Signal, SignalInstance
from PySide6.QtWidgets import QHBoxLayout, QLabel, QListWidget, QListWidgetItem, QPushButton, QVBoxLayout, QWidget

from app.ui.icons import themed_icon

PATH_ROLE = Qt.ItemDataRole.UserRole


class WatchedFoldersView(QWidget):
    """``stop_watching_requested(folder)`` and ``reveal_requested(folder)`` for the selected folder."""

    stop_watching_requested = Signal(str)
    reveal_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("watchedFolders")
        self.title = QLabel(self)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.hint = QLabel(self)
        self.hint.setWordWrap(True)
        self.hint.setObjectName("watchedFoldersHint")
        self.list = QListWidget(self)
        self.list.setObjectName("watchedFolderList")
        self.list.setMaximumHeight(96)
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.list.itemSelectionChanged.connect(self._update_buttons)
        self.reveal_button = QPushButton(self)
        self.reveal_button.setObjectName("revealFolderButton")
        self.reveal_button.setIcon(themed_icon("reveal"))
        self.reveal_button.clicked.connect(lambda: self._emit_for_selected(self.reveal_requested))
        self.stop_button = QPushButton(self)
        self.stop_button.setObjectName("stopWatchingButton")
        self.stop_button.setIcon(themed_icon("stop"))
        self.stop_button.clicked.connect(lambda: self._emit_for_selected(self.stop_watching_requested))
        buttons = QHBoxLayout()
        buttons.addWidget(self.reveal_button)
        buttons.addWidget(self.stop_button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.hint)
        layout.addWidget(self.list)
        layout.addLayout(buttons)
        self._watching = True
        self.retranslate_ui()
        self._update_buttons()

    def retranslate_ui(self) -> None:
        self.title.setText(self.tr("Watched folders"))
        if self._watching:
            self.hint.setText(self.tr("New, changed and deleted files in these folders are picked up by themselves."))
        else:
            self.hint.setText(self.tr("Checking folders is off in Settings; add a folder again to pick up changes."))
        self.list.setAccessibleName(self.tr("Watched folders"))
        self.reveal_button.setText(self.tr("Show in file manager"))
        self.stop_button.setText(self.tr("Stop watching"))
        self.stop_button.setToolTip(self.tr("Keep the documents but stop checking this folder for changes"))

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def show_folders(self, folders: Sequence[str], *, watching: bool = True) -> None:
        """Show ``folders``, keeping the selection; hidden when there are none."""
        selected = self.selected_folder()
        self._watching = watching
        self.list.clear()
        for folder in folders:
            item = QListWidgetItem(folder, self.list)
            item.setData(PATH_ROLE, folder)
            item.setToolTip(folder)
            if folder == selected:
                self.list.setCurrentItem(item)
        self.setVisible(bool(folders))
        self.retranslate_ui()
        self._update_buttons()

    def folders(self) -> list[str]:
        return [str(self.list.item(row).data(PATH_ROLE)) for row in range(self.list.count())]

    def selected_folder(self) -> str | None:
        item = self.list.currentItem()
        return str(item.data(PATH_ROLE)) if item is not None and item.isSelected() else None

    def _update_buttons(self) -> None:
        chosen = self.selected_folder() is not None
        self.reveal_button.setEnabled(chosen)
        self.stop_button.setEnabled(chosen)

    def _emit_for_selected(self, signal: SignalInstance) -> None:
        folder = self.selected_folder()
        if folder is not None:
            signal.emit(folder)
