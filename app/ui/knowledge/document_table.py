"""DocumentTable: the knowledge base's documents with their state (indexed, keywords only while embedding, pending,
failed with why), pages, chunks."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTreeWidget, QTreeWidgetItem, QWidget

from app.core.kb.catalog import DocumentRecord, DocumentStatus
from app.ui.knowledge.knowledge_texts import document_status_text, failure_detail, notes_text, stage_detail
from app.ui.theme import status_colors

ID_ROLE = Qt.ItemDataRole.UserRole
NAME, STATUS, PAGES, CHUNKS = range(4)


class DocumentTable(QTreeWidget):
    """One row per document, in the order added; the selection survives refreshes."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("documentTable")
        self.setColumnCount(4)
        self.setRootIsDecorated(False)
        self.setUniformRowHeights(True)
        self.setAlternatingRowColors(True)
        self.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        header = self.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(NAME, QHeaderView.ResizeMode.Stretch)
        for column in (STATUS, PAGES, CHUNKS):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self._records: dict[int, DocumentRecord] = {}
        self.retranslate_ui()

    def retranslate_ui(self) -> None:
        self.setHeaderLabels([self.tr("Document"), self.tr("Status"), self.tr("Pages"), self.tr("Chunks")])
        self.setAccessibleName(self.tr("Documents in the knowledge base"))
        for item in self._items():
            record = self._records.get(int(item.data(NAME, ID_ROLE)))
            if record is not None:
                self._fill(item, record)

    def changeEvent(self, event: QEvent) -> None:
        if event.type() in (QEvent.Type.LanguageChange, QEvent.Type.PaletteChange):  # texts, failure colour
            self.retranslate_ui()
        super().changeEvent(event)

    def show_documents(self, records: Sequence[DocumentRecord]) -> None:
        """Show ``records`` (rows are updated in place, so selection and scrolling stay)."""
        wanted = {record.id: record for record in records}
        for old in self._items():
            if int(old.data(NAME, ID_ROLE)) not in wanted:
                self.takeTopLevelItem(self.indexOfTopLevelItem(old))
        items = {int(item.data(NAME, ID_ROLE)): item for item in self._items()}
        for position, record in enumerate(records):
            shown = items.get(record.id)
            if shown is None:
                shown = QTreeWidgetItem()
                shown.setData(NAME, ID_ROLE, record.id)
                self.insertTopLevelItem(position, shown)
            elif self._records.get(record.id) == record:
                continue  # unchanged: large lists refresh cheaply while indexing
            self._fill(shown, record)
        self._records = wanted

    def _items(self) -> list[QTreeWidgetItem]:
        return [item for row in range(self.topLevelItemCount()) if (item := self.topLevelItem(row)) is not None]

    def _fill(self, item: QTreeWidgetItem, record: DocumentRecord) -> None:
        path = Path(record.path)
        item.setText(NAME, path.name)
        item.setToolTip(NAME, record.path)
        item.setText(STATUS, document_status_text(record))
        indexed = record.status is DocumentStatus.INDEXED
        item.setText(PAGES, str(record.pages) if indexed and record.pages else "")
        item.setText(CHUNKS, str(record.chunk_count) if indexed else "")
        for column in (PAGES, CHUNKS):
            item.setTextAlignment(column, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        failed = record.status is DocumentStatus.FAILED
        detail = "\n".join(part for part in (stage_detail(record), notes_text(record)) if part)
        item.setToolTip(STATUS, failure_detail(record) if failed else detail)
        item.setForeground(STATUS, QBrush(QColor(status_colors(self.palette()).bad)) if failed else QBrush())

    def record(self, document_id: int) -> DocumentRecord | None:
        return self._records.get(document_id)

    def records(self) -> list[DocumentRecord]:
        """What is shown, in row order."""
        ids = [int(item.data(NAME, ID_ROLE)) for item in self._items()]
        return [self._records[document_id] for document_id in ids]

    def selected_records(self) -> list[DocumentRecord]:
        ids = [int(item.data(NAME, ID_ROLE)) for item in self.selectedItems()]
        return [self._records[document_id] for document_id in ids if document_id in self._records]

    def select_path(self, path: str) -> bool:
        """Select the row of the document at ``path``; False when there is none."""
        for item in self._items():
            record = self._records.get(int(item.data(NAME, ID_ROLE)))
            if record is not None and record.path == path:
                self.setCurrentItem(item)
                return True
        return False

    def status_of(self, path: str) -> str:
        """The status text shown for the document at ``path`` ("" when it is not shown)."""
        for item in self._items():
            record = self._records.get(int(item.data(NAME, ID_ROLE)))
            if record is not None and record.path == path:
                return item.text(STATUS)
        return ""
