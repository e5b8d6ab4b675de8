"""KnowledgeDock: the dock that holds the knowledge-base panel beside the gauges (its title follows the language)."""

from __future__ import annotations

from PySide6.QtWidgets import QDockWidget, QWidget

from app.ui.i18n import follow_language
from app.ui.icons import themed_icon
from app.ui.knowledge.knowledge_base_panel import KnowledgeBasePanel
from app.ui.window_menus import name_dock

DOCK_OBJECT_NAME = "knowledgeDock"


class KnowledgeDock(QDockWidget):
    """A dock named ``knowledgeDock`` (the window's saved layout finds it by that name)."""

    def __init__(self, panel: KnowledgeBasePanel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName(DOCK_OBJECT_NAME)
        self.panel = panel
        self.setWidget(panel)
        self.setWindowIcon(themed_icon("knowledge-base"))  # shown on its tab beside the gauges
        self.toggleViewAction().setIcon(themed_icon("knowledge-base"))
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        """The title, and the View menu's item with its mnemonic, in the current language."""
        name_dock(self, self.tr("Knowledge base"), self.tr("&Knowledge base"))

    def show_and_focus(self) -> None:
        """Show the dock in front of its tab group and put the focus on the documents."""
        self.show()
        self.raise_()
        self.panel.focus_documents()
