"""KnowledgeScopeTree: the knowledge base's folders and documents with check boxes, for one conversation's scope."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPalette
from PySide6.QtWidgets import QHeaderView, QStyle, QTreeWidget, QTreeWidgetItem, QWidget

from app.core.chat.records import KnowledgeScope
from app.core.kb.catalog import DocumentRecord, DocumentStatus
from app.core.kb.document_filter import folder_prefix
from app.ui.knowledge.knowledge_texts import document_status_text, failure_detail

DOCUMENT_ROLE = Qt.ItemDataRole.UserRole
FOLDER_ROLE = Qt.ItemDataRole.UserRole + 1
NAME, STATUS = range(2)
FAILED_COLOUR = QColor("#c5221f")


def containing_folder(path: str, folders: Sequence[str]) -> str | None:
    """The deepest of ``folders`` that ``path`` is in (None: in none of them)."""
    inside = [folder for folder in folders if path != folder and path.startswith(folder_prefix(folder))]
    return max(inside, key=len) if inside else None


class KnowledgeScopeTree(QTreeWidget):
    """Folders added to the knowledge base (nested as on disk) holding their documents, then documents added
    on their own. A checked folder means every document in it, including ones added to it later; nothing
    checked means every document. ``scope_changed()`` after the user (un)checks something."""

    scope_changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("knowledgeScopeTree")
        self.setColumnCount(2)
        self.setUniformRowHeights(True)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(STATUS, QHeaderView.ResizeMode.Interactive)
        self._records: dict[int, DocumentRecord] = {}
        self._filling = False
        self.itemChanged.connect(self._item_changed)
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        self.setHeaderLabels([self.tr("Folder or document"), self.tr("Status")])
        self.setAccessibleName(self.tr("Documents this conversation may use"))
        self._filling = True
        try:
            for item in self._all_items():
                record = self._records.get(self._document_id(item) or -1)
                if record is not None:
                    self._show_status(item, record)
        finally:
            self._filling = False
        self.fit_status_column()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    # ---- filling -----------------------------------------------------------------------------
    def show_documents(
        self, records: Sequence[DocumentRecord], folders: Sequence[str], scope: KnowledgeScope
    ) -> None:
        """Show ``records`` under the added ``folders`` (and the scope's own folders), checked as ``scope`` says."""
        self._filling = True
        try:
            self.clear()
            self._records = {record.id: record for record in records}
            all_folders = sorted(dict.fromkeys([*folders, *scope.folders]))
            folder_items: dict[str, QTreeWidgetItem] = {}
            for folder in all_folders:  # sorted: a folder's parent folder comes before it
                parent_folder = containing_folder(folder, all_folders)
                parent = folder_items.get(parent_folder) if parent_folder is not None else None
                folder_items[folder] = self._folder_item(folder, parent, parent_folder)
            document_items: dict[int, QTreeWidgetItem] = {}
            for record in sorted(records, key=lambda document: document.path.lower()):
                home = containing_folder(record.path, all_folders)
                parent = folder_items.get(home) if home is not None else None
                document_items[record.id] = self._document_item(record, parent, home)
            for document_id in scope.document_ids:
                if document_id in document_items:  # one removed since is left out
                    document_items[document_id].setCheckState(NAME, Qt.CheckState.Checked)
            for folder in scope.folders:
                folder_items[folder].setCheckState(NAME, Qt.CheckState.Checked)  # its documents follow
            self.expandAll()
        finally:
            self._filling = False
        self.fit_status_column()

    def fit_status_column(self) -> None:
        """The Status column as wide as its widest text (or heading) in the language shown, with an em of room.

        Sized to the drawn width of the texts, not left to the header's size hint, which left the longest
        status flush against the frame (in Chinese, clipped); the name column takes the rest.
        """
        metrics = self.fontMetrics()
        margin = 2 * (self.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin, None, self) + 1)
        texts = [item.text(STATUS) for item in self._all_items()]
        widest = max((metrics.horizontalAdvance(text) for text in texts if text), default=0)
        heading = self.header().sectionSizeFromContents(STATUS).width()
        self.setColumnWidth(STATUS, max(widest + margin + metrics.horizontalAdvance("M"), heading))

    def _folder_item(self, folder: str, parent: QTreeWidgetItem | None, parent_folder: str | None) -> QTreeWidgetItem:
        item = QTreeWidgetItem(parent) if parent is not None else QTreeWidgetItem(self)
        item.setData(NAME, FOLDER_ROLE, folder)
        item.setText(NAME, folder[len(folder_prefix(parent_folder)):] if parent_folder is not None else folder)
        item.setToolTip(NAME, folder)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsAutoTristate)
        item.setCheckState(NAME, Qt.CheckState.Unchecked)
        return item

    def _document_item(
        self, record: DocumentRecord, parent: QTreeWidgetItem | None, folder: str | None
    ) -> QTreeWidgetItem:
        item = QTreeWidgetItem(parent) if parent is not None else QTreeWidgetItem(self)
        item.setData(NAME, DOCUMENT_ROLE, record.id)
        item.setText(NAME, record.path[len(folder_prefix(folder)):] if folder is not None else Path(record.path).name)
        item.setToolTip(NAME, record.path)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(NAME, Qt.CheckState.Unchecked)
        self._show_status(item, record)
        return item

    def _show_status(self, item: QTreeWidgetItem, record: DocumentRecord) -> None:
        """The document's state; failed ones in red with why, unfinished ones greyed (not searchable yet)."""
        item.setText(STATUS, document_status_text(record))
        if record.status is DocumentStatus.FAILED:
            item.setForeground(STATUS, QBrush(FAILED_COLOUR))
            item.setToolTip(STATUS, failure_detail(record))
        elif record.status is DocumentStatus.INDEXED:
            item.setForeground(STATUS, QBrush())
            item.setToolTip(STATUS, "")
        else:
            item.setForeground(STATUS, self.palette().brush(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text))
            item.setToolTip(STATUS, self.tr("Answers can use it once it is indexed."))

    # ---- reading -----------------------------------------------------------------------------
    def scope(self) -> KnowledgeScope:
        """What is checked: checked folders as folders, other checked documents by id (nothing: everything)."""
        document_ids: list[int] = []
        folders: list[str] = []
        pending = [self.topLevelItem(row) for row in range(self.topLevelItemCount())]
        while pending:
            item = pending.pop(0)
            if item is None:
                continue
            state = item.checkState(NAME)
            folder = item.data(NAME, FOLDER_ROLE)
            if folder is not None and state == Qt.CheckState.Checked:
                folders.append(str(folder))
            elif folder is not None and state == Qt.CheckState.PartiallyChecked:
                pending += [item.child(index) for index in range(item.childCount())]
            elif folder is None and state == Qt.CheckState.Checked:
                document_ids.append(int(item.data(NAME, DOCUMENT_ROLE)))
        return KnowledgeScope(tuple(sorted(document_ids)), tuple(folders))

    def clear_checks(self) -> None:
        """Uncheck everything (the conversation then uses every document)."""
        for item in list(self._all_items()):
            if item.childCount() == 0:  # documents and empty folders; the other folders follow their children
                item.setCheckState(NAME, Qt.CheckState.Unchecked)

    def document_count(self) -> int:
        return len(self._records)

    def item_for_document(self, document_id: int) -> QTreeWidgetItem | None:
        return next((item for item in self._all_items() if self._document_id(item) == document_id), None)

    def item_for_folder(self, folder: str) -> QTreeWidgetItem | None:
        return next((item for item in self._all_items() if item.data(NAME, FOLDER_ROLE) == folder), None)

    def _all_items(self) -> Iterator[QTreeWidgetItem]:
        pending = [self.topLevelItem(row) for row in range(self.topLevelItemCount())]
        while pending:
            item = pending.pop()
            if item is not None:
                yield item
                pending += [item.child(index) for index in range(item.childCount())]

    @staticmethod
    def _document_id(item: QTreeWidgetItem) -> int | None:
        value = item.data(NAME, DOCUMENT_ROLE)
        return int(value) if value is not None else None

    def _item_changed(self, _item: QTreeWidgetItem, column: int) -> None:
        if column == NAME and not self._filling:
            self.scope_changed.emit()
