"""KnowledgeScopeDialog: turn the knowledge base on or off for a conversation and choose which documents it may use."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.chat.records import KnowledgeScope
from app.core.kb.catalog import DocumentRecord
from app.ui.chat.knowledge_scope_tree import KnowledgeScopeTree
from app.ui.dialog_buttons import ButtonRole, DialogButtons

LOADING, LOADED, FAILED = "loading", "loaded", "failed"


class KnowledgeScopeDialog(QDialog):
    """Shows a conversation's choice (:meth:`edit`) at once; the documents arrive later (:meth:`show_documents`,
    read on a worker, so an indexing knowledge base never holds it up). Saving before they arrive keeps the
    documents chosen before. ``saved(enabled, KnowledgeScope)`` when the user saves."""

    saved = Signal(bool, object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("knowledgeScopeDialog")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.resize(560, 440)
        self.new_chat = False
        self.state = LOADING
        self._error = ""
        self._original = KnowledgeScope()
        self.enabled_box = QCheckBox(self)
        self.enabled_box.setObjectName("useKnowledgeBaseBox")
        self.enabled_box.toggled.connect(self._update)
        self.summary = QLabel(self)
        self.summary.setObjectName("knowledgeScopeSummary")
        self.summary.setWordWrap(True)
        self.status = QLabel(self)
        self.status.setObjectName("knowledgeScopeStatus")
        self.status.setWordWrap(True)
        self.tree = KnowledgeScopeTree(self)
        self.tree.scope_changed.connect(self._update)
        self.all_button = QPushButton(self)
        self.all_button.setObjectName("useAllDocumentsButton")
        self.all_button.clicked.connect(self.tree.clear_checks)
        self.buttons = DialogButtons(self)
        self.save_button = self.buttons.add(ButtonRole.AcceptRole, lambda: self.tr("Save"))
        self.cancel_button = self.buttons.add(ButtonRole.RejectRole, lambda: self.tr("Cancel"))
        self.buttons.accepted.connect(self._save)
        self.buttons.rejected.connect(self.reject)
        below = QHBoxLayout()
        below.addWidget(self.all_button)
        below.addStretch(1)
        below.addWidget(self.buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(self.enabled_box)
        layout.addWidget(self.summary)
        layout.addWidget(self.status)
        layout.addWidget(self.tree, 1)
        layout.addLayout(below)
        self.retranslate_ui()

    # ---- language --------------------------------------------------------------------------
    def retranslate_ui(self) -> None:
        self.setWindowTitle(self.tr("Knowledge base for a new chat") if self.new_chat
                            else self.tr("Knowledge base for this conversation"))
        self.setAccessibleName(self.windowTitle())
        self.enabled_box.setText(self.tr("Use the knowledge base in this conversation"))
        self.enabled_box.setAccessibleName(self.enabled_box.text())
        self.enabled_box.setToolTip(self.tr("Off: answers come from the model alone, without sources"))
        self.all_button.setText(self.tr("Use all documents"))
        self.all_button.setAccessibleName(self.all_button.text())
        self.all_button.setToolTip(self.tr("Uncheck everything: the conversation may use every document"))
        self._update()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.LanguageChange:
            self.retranslate_ui()
        super().changeEvent(event)

    # ---- what it shows ---------------------------------------------------------------------
    def edit(self, enabled: bool, scope: KnowledgeScope, *, new_chat: bool = False) -> None:
        """Start over with a conversation's choice (or the next new chat's); the documents are being read."""
        self.new_chat = new_chat
        self._original = scope
        self.state, self._error = LOADING, ""
        self.tree.show_documents([], [], KnowledgeScope())
        self.enabled_box.setChecked(enabled)
        self.retranslate_ui()

    def show_documents(self, records: Sequence[DocumentRecord], folders: Sequence[str]) -> None:
        """The knowledge base's documents and added folders, checked as the conversation's scope says."""
        self.state = LOADED
        self.tree.show_documents(records, folders, self._original)
        self._update()

    def show_error(self, message: str) -> None:
        """The documents could not be read: the on/off choice still works, the scope stays as it was."""
        self.state, self._error = FAILED, message
        self._update()

    def chosen(self) -> tuple[bool, KnowledgeScope]:
        """On or off, and the documents (those chosen before while the list is not shown)."""
        scope = self.tree.scope() if self.state == LOADED else self._original
        return self.enabled_box.isChecked(), scope

    def _update(self) -> None:
        enabled = self.enabled_box.isChecked()
        loaded = self.state == LOADED
        self.tree.setEnabled(enabled and loaded)
        self.all_button.setEnabled(enabled and loaded)
        if self.state == LOADING:
            self.status.setText(self.tr("Reading the documents…"))
        elif self.state == FAILED:
            self.status.setText(self.tr("The documents could not be read: {0}").format(self._error))
        elif self.tree.document_count() == 0 and self.tree.topLevelItemCount() == 0:
            self.status.setText(self.tr("The knowledge base has no documents yet. Add some in the Knowledge base "
                                        "panel."))
        self.status.setVisible(self.state != LOADED or self.tree.topLevelItemCount() == 0)
        _enabled, scope = self.chosen()
        if not enabled:
            text = self.tr("Answers come from the model alone; no documents are searched.")
        elif scope.everything:
            text = self.tr("Nothing is checked, so answers may use every document. Check folders or documents "
                           "to use only those.")
        else:
            text = self.tr("Answers use only the checked folders and documents.")
        self.summary.setText(text)

    def _save(self) -> None:
        enabled, scope = self.chosen()
        self.saved.emit(enabled, scope)
        self.accept()
