"""LocalModelsPage: models on this computer (downloaded and your own): use, add a GGUF file or folder, delete."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.models.local_models import LocalModel
from app.core.models.units import human_size
from app.ui.models.model_texts import format_name

ID_ROLE = Qt.ItemDataRole.UserRole
NAME, FORMAT, SIZE, WHERE = range(4)


class LocalModelsPage(QWidget):
    """Signals: ``use_requested(LocalModel)``, ``delete_requested(LocalModel)``, ``add_file_requested()``,
    ``add_folder_requested()``."""

    use_requested = Signal(object)
    delete_requested = Signal(object)
    add_file_requested = Signal()
    add_folder_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("localModelsPage")
        self.list = QTreeWidget(self)
        self.list.setObjectName("localModelList")
        self.list.setColumnCount(4)
        self.list.setRootIsDecorated(False)
        self.list.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.list.header()
        header.setStretchLastSection(True)
        for column in (NAME, FORMAT, SIZE):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.list.itemSelectionChanged.connect(self._update_buttons)
        self.list.itemDoubleClicked.connect(lambda _item, _column: self._emit_use())
        self.empty_label = QLabel(self)
        self.empty_label.setObjectName("noLocalModels")
        self.empty_label.setWordWrap(True)
        self.use_button = QPushButton(self)
        self.use_button.setObjectName("useLocalModelButton")
        self.use_button.clicked.connect(self._emit_use)
        self.add_file_button = QPushButton(self)
        self.add_file_button.setObjectName("addModelFileButton")
        self.add_file_button.clicked.connect(self.add_file_requested)
        self.add_folder_button = QPushButton(self)
        self.add_folder_button.setObjectName("addModelFolderButton")
        self.add_folder_button.clicked.connect(self.add_folder_requested)
        self.delete_button = QPushButton(self)
        self.delete_button.setObjectName("deleteModelButton")
        self.delete_button.clicked.connect(self._emit_delete)
        buttons = QHBoxLayout()
        for button in (self.use_button, self.add_file_button, self.add_folder_button, self.delete_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.empty_label)
        layout.addWidget(self.list, 1)
        layout.addLayout(buttons)
        self._models: dict[str, LocalModel] = {}
        self._loaded: Path | None = None
        self.retranslate_ui()
        self.show_models(())

    def retranslate_ui(self) -> None:
        self.list.setHeaderLabels([self.tr("Name"), self.tr("Format"), self.tr("Size"), self.tr("Where")])
        self.list.setAccessibleName(self.tr("Models on this computer"))
        self.empty_label.setText(self.tr("No model on this computer yet. Download one from the catalog, "
                                         "or add a GGUF file or a Hugging Face model folder you already have."))
        self.use_button.setText(self.tr("Use this model"))
        self.add_file_button.setText(self.tr("Add GGUF file…"))
        self.add_folder_button.setText(self.tr("Add model folder…"))
        self.delete_button.setText(self.tr("Delete…"))
        self.delete_button.setToolTip(self.tr("Downloaded models are deleted from disk; your own files are only "
                                              "removed from this list"))
        self.show_models(tuple(self._models.values()), self._loaded)  # the loaded mark stays in the new language

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    def show_models(self, models: Sequence[LocalModel], loaded: Path | None = None) -> None:
        """Show ``models``, keeping the selection; the one at ``loaded`` (the model in use) is marked."""
        selected = self.selected_model()
        self._models = {model.id: model for model in models}
        self._loaded = loaded
        self.list.clear()
        for model in models:
            item = QTreeWidgetItem(self.list)
            item.setData(NAME, ID_ROLE, model.id)
            item.setText(NAME, model.name)
            if loaded is not None and Path(model.path).resolve() == loaded.resolve():
                item.setText(NAME, self.tr("{0} (loaded)").format(model.name))
                font = item.font(NAME)
                font.setBold(True)
                item.setFont(NAME, font)
            item.setText(FORMAT, format_name(model.format))
            item.setText(SIZE, human_size(model.size_bytes))
            where = self.tr("Downloaded") if model.managed else self.tr("Your file")
            item.setText(WHERE, self.tr("{0}: {1}").format(where, model.path))
            item.setToolTip(WHERE, model.path)
            if not model.is_present():
                item.setText(WHERE, self.tr("Missing: {0}").format(model.path))
            if selected is not None and model.id == selected.id:
                self.list.setCurrentItem(item)
        self.empty_label.setVisible(not models)
        self._update_buttons()

    def models(self) -> list[LocalModel]:
        return list(self._models.values())

    def selected_model(self) -> LocalModel | None:
        items = self.list.selectedItems()
        return self._models.get(str(items[0].data(NAME, ID_ROLE))) if items else None

    def select(self, model_id: str) -> bool:
        for row in range(self.list.topLevelItemCount()):
            item = self.list.topLevelItem(row)
            if item is not None and item.data(NAME, ID_ROLE) == model_id:
                self.list.setCurrentItem(item)
                return True
        return False

    def _update_buttons(self) -> None:
        model = self.selected_model()
        self.use_button.setEnabled(model is not None and model.is_present())
        self.delete_button.setEnabled(model is not None)

    def _emit_use(self) -> None:
        model = self.selected_model()
        if model is not None and model.is_present():
            self.use_requested.emit(model)

    def _emit_delete(self) -> None:
        model = self.selected_model()
        if model is not None:
            self.delete_requested.emit(model)
