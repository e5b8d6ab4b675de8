"""WindowMenus: the main window's File and View menus and their actions (texts, icons, shortcuts)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow

from app.core.chat.export import ExportFormat
from app.ui.i18n import translate
from app.ui.icons import themed_icon

Shortcut = QKeySequence | QKeySequence.StandardKey | str
Slot = Callable[[], object]


class WindowMenus:
    """File (models, load a model file or folder, unload, export or import a conversation, settings, quit) and
    View (one item per dock) on ``window``.

    ``retranslate_ui()`` names them in the current language; the window calls it from its own ``retranslate_ui``.
    The conversation items are there only when the window has conversations (``export_conversation`` given).
    """

    def __init__(self, window: QMainWindow, *, models: Slot, load_file: Slot, load_folder: Slot, unload: Slot,
                 settings: Slot, export_conversation: Callable[[ExportFormat], object] | None = None,
                 import_conversation: Slot | None = None) -> None:
        self._window = window
        self.models_action = self._action(models)
        self.models_action.setObjectName("modelsAction")
        self.load_action = self._action(load_file, QKeySequence.StandardKey.Open)
        self.load_folder_action = self._action(load_folder)
        self.unload_action = self._action(unload)
        self.unload_action.setEnabled(False)
        self.settings_action = self._action(settings, QKeySequence.StandardKey.Preferences)
        if self.settings_action.shortcut().isEmpty():
            self.settings_action.setShortcut(QKeySequence("Ctrl+,"))
        self.quit_action = self._action(window.close, QKeySequence.StandardKey.Quit)
        self.file_menu = window.menuBar().addMenu("")
        for action in (self.models_action, self.load_action, self.load_folder_action, self.unload_action):
            self.file_menu.addAction(action)
        self.export_markdown_action: QAction | None = None
        self.export_json_action: QAction | None = None
        self.import_action: QAction | None = None
        if export_conversation is not None and import_conversation is not None:
            self.file_menu.addSeparator()
            self.export_markdown_action = self._action(lambda: export_conversation("markdown"))
            self.export_markdown_action.setObjectName("exportMarkdownAction")
            self.export_json_action = self._action(lambda: export_conversation("json"))
            self.export_json_action.setObjectName("exportJsonAction")
            self.import_action = self._action(import_conversation)
            self.import_action.setObjectName("importConversationAction")
            for action in (self.export_markdown_action, self.export_json_action, self.import_action):
                self.file_menu.addAction(action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.settings_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        self.view_menu = window.menuBar().addMenu("")
        for action, icon_name in ((self.models_action, "models"), (self.load_action, "add-files"),
                                  (self.load_folder_action, "folder"), (self.settings_action, "settings")):
            action.setIcon(themed_icon(icon_name))

    def _action(self, slot: Slot, shortcut: Shortcut | None = None) -> QAction:
        action = QAction(self._window)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        return action

    def add_dock(self, dock: QDockWidget) -> None:
        """List ``dock`` in View by its toggle action (name both with :func:`name_dock`)."""
        self.view_menu.addAction(dock.toggleViewAction())

    def retranslate_ui(self) -> None:
        """Menu titles, the actions' texts and the docks' titles and menu items in the current language."""
        self.models_action.setToolTip(translate("MainWindow", "Download, add, delete and switch models"))
        named = (
            (self.models_action, translate("MainWindow", "&Models…")),
            (self.export_markdown_action, translate("MainWindow", "&Export conversation as Markdown…")),
            (self.export_json_action, translate("MainWindow", "Export conversation as &JSON…")),
            (self.import_action, translate("MainWindow", "&Import conversation…")),
            (self.load_action, translate("MainWindow", "&Load model…")),
            (self.load_folder_action, translate("MainWindow", "Load model &folder…")),
            (self.unload_action, translate("MainWindow", "&Unload model")),
            (self.settings_action, translate("MainWindow", "&Settings…")),
            (self.quit_action, translate("MainWindow", "&Quit")),
        )
        for action, text in named:
            if action is not None:
                action.setText(text)
        self.file_menu.setTitle(translate("MainWindow", "&File"))
        self.view_menu.setTitle(translate("MainWindow", "&View"))


def name_dock(dock: QDockWidget, title: str, menu_text: str) -> None:
    """Title ``dock`` and name its toggle action (the View menu's item) ``menu_text``, with its mnemonic (``&Gauges``).

    The title goes first: a new title renames the toggle action too (Qt copies it, without a mnemonic).
    """
    dock.setWindowTitle(title)
    dock.toggleViewAction().setText(menu_text)
