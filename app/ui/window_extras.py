"""Puts the knowledge-base panel, the model manager, the language switcher and the shortcuts into the main window."""

from __future__ import annotations

import contextlib
import logging
import warnings
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMenu

from app.core.config import Settings
from app.core.config.paths import AppPaths
from app.core.kb.database import DATABASE_FILE_NAME
from app.core.kb.knowledge_base import KB_FOLDER_NAME, KnowledgeBase
from app.core.models.library import ModelLibrary
from app.core.services.indexing import IndexingService
from app.ui.i18n import LanguageSwitcher, follow_language
from app.ui.icons import themed_icon
from app.ui.knowledge.file_drops import install_file_drop
from app.ui.knowledge.knowledge_access import KnowledgeAccess
from app.ui.knowledge.knowledge_base_panel import KnowledgeBasePanel
from app.ui.knowledge.knowledge_dock import KnowledgeDock
from app.ui.main_window import MainWindow
from app.ui.models.model_manager_dialog import ModelManagerDialog
from app.ui.shortcuts import InstalledShortcuts, install_shortcuts
from app.ui.state.gui_services import GuiServices

log = logging.getLogger(__name__)


def install_language(app: QApplication, settings: Settings) -> LanguageSwitcher:
    """Install the translators ``ui.language`` asks for. Call it before the main window is built, so
    every widget starts in that language (widgets with ``retranslate_ui`` also follow later switches)."""
    switcher = LanguageSwitcher(app)
    switcher.apply(settings.str_value("ui.language"))
    return switcher


class KnowledgeAndModels:
    """What :func:`install_knowledge_and_models` added to the window; ``shutdown()`` ends its work."""

    def __init__(self, access: KnowledgeAccess, panel: KnowledgeBasePanel, dock: KnowledgeDock,
                 library: ModelLibrary, manager: ModelManagerDialog, language: LanguageSwitcher,
                 shortcuts: InstalledShortcuts, models_action: QAction) -> None:
        self.access, self.panel, self.dock = access, panel, dock
        self.library, self.manager, self.language = library, manager, language
        self.shortcuts, self.models_action = shortcuts, models_action
        self._shut_down = False

    def settings_applied(self, settings: Settings) -> None:
        """Follow settings the user just applied (the language switches in place)."""
        self.language.apply(settings.str_value("ui.language"))

    def shutdown(self) -> None:
        """Stop polling, cancel indexing, keep partial downloads for next time (later calls do nothing).
        Call it before the chat services close the knowledge base."""
        if self._shut_down:
            return
        self._shut_down = True
        app = QApplication.instance()
        if app is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                with contextlib.suppress(RuntimeError, TypeError):
                    app.aboutToQuit.disconnect(self.shutdown)
        self.panel.shutdown()
        self.manager.shutdown()
        self.access.close()
        self.library.close()


class _WindowTexts(QObject):
    """Writes the texts this module put on the window, now and after every language switch."""

    def __init__(self, window: MainWindow, models_action: QAction, shortcuts: InstalledShortcuts) -> None:
        super().__init__(window)
        self._models_action = models_action
        self._shortcuts = shortcuts
        follow_language(window, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self._models_action.setText(self.tr("&Models…"))
        self._models_action.setToolTip(self.tr("Download, add, delete and switch models"))
        self._shortcuts.retranslate_ui()


def knowledge_access_for(services: GuiServices, paths: AppPaths) -> KnowledgeAccess:
    """Access to the user's knowledge base that also hands it to the chat's answerer when opened."""
    exists = (paths.data_dir / KB_FOLDER_NAME / DATABASE_FILE_NAME).is_file
    generating = services.engine_manager.generating

    def make_service(knowledge_base: KnowledgeBase) -> IndexingService:
        return IndexingService.from_settings(knowledge_base, foreground_busy=generating)

    chat = services.chat
    if chat is None:
        return KnowledgeAccess(lambda: KnowledgeBase.open(paths, services.live_settings.get()),
                               exists=exists, make_service=make_service, owns_knowledge_base=True)

    def open_shared() -> KnowledgeBase:
        chat.attach_existing_knowledge_base(create=True)
        knowledge_base = chat.answerer.knowledge_base
        assert knowledge_base is not None
        return knowledge_base

    return KnowledgeAccess(open_shared, exists=exists, make_service=make_service)


def _file_menu(window: MainWindow) -> QMenu | None:
    menus = [menu for menu in window.load_action.associatedObjects() if isinstance(menu, QMenu)]
    return menus[0] if menus else None


def _reroute(signal: object, old_slot: Callable[[], object], new_slot: Callable[[], object]) -> None:
    """Point ``signal`` at ``new_slot`` instead of ``old_slot``."""
    with warnings.catch_warnings():  # PySide6 warns instead of raising when it was not connected
        warnings.simplefilter("ignore", RuntimeWarning)
        with contextlib.suppress(RuntimeError, TypeError):
            signal.disconnect(old_slot)  # type: ignore[attr-defined]
    signal.connect(new_slot)  # type: ignore[attr-defined]


def install_knowledge_and_models(
    window: MainWindow,
    services: GuiServices,
    paths: AppPaths,
    *,
    language: LanguageSwitcher | None = None,
    library: ModelLibrary | None = None,
    access: KnowledgeAccess | None = None,
) -> KnowledgeAndModels:
    """Add the knowledge base dock (and file drops on the chat), the model manager (File > Models…, the
    first-run guide, the Load buttons), the language switcher and the shortcuts to ``window``."""
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    settings = services.live_settings.get()
    language = language or install_language(app, settings)
    access = access or knowledge_access_for(services, paths)
    panel = KnowledgeBasePanel(access, window)
    dock = KnowledgeDock(panel, window)
    window.add_side_dock(dock)

    def drop_on_chat(dropped: list[Path]) -> None:
        dock.show()
        dock.raise_()
        panel.add_paths(dropped)

    install_file_drop(window.chat_slot, drop_on_chat)

    library = library or ModelLibrary.open(paths, settings)
    manager = ModelManagerDialog(library, services.machine.current, services.live_settings.get,
                                 lambda path: window.load_model(path), window)
    models_action = QAction(window)
    models_action.setObjectName("modelsAction")
    models_action.setIcon(themed_icon("models"))
    models_action.triggered.connect(lambda: manager.open_manager())
    file_menu = _file_menu(window)
    if file_menu is not None:
        file_menu.insertAction(window.load_action, models_action)
    _reroute(window.welcome.load_requested, window.choose_model_file, manager.open_manager)
    if window.chat_view is not None:
        _reroute(window.chat_view.load_model_requested, window.choose_model_file, manager.open_manager)

    shortcuts = install_shortcuts(window, _shortcut_handlers(window, dock))
    _WindowTexts(window, models_action, shortcuts)
    result = KnowledgeAndModels(access, panel, dock, library, manager, language, shortcuts, models_action)
    app.aboutToQuit.connect(result.shutdown)
    window.after_first_paint(panel.start)
    if not settings.str_value("model.path").strip() and not library.local.models():
        window.after_first_paint(lambda: manager.open_manager(first_run=True))
    return result


def _shortcut_handlers(window: MainWindow, dock: KnowledgeDock) -> dict[str, Callable[[], object]]:
    handlers: dict[str, Callable[[], object]] = {"focus_knowledge_base": dock.show_and_focus}
    view, sidebar = window.chat_view, window.sidebar
    if view is not None:
        handlers["send"] = view.send
        handlers["stop"] = view.stop
    if sidebar is not None:
        handlers["new_chat"] = sidebar.new_conversation

        def search() -> None:
            sidebar.search.setFocus()
            sidebar.search.selectAll()

        handlers["search"] = search
    return handlers
