"""The main window, composed in one place: conversations, chat, docks, model status, model manager, menus."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QShowEvent
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QMainWindow,
    QSplitter,
    QStackedWidget,
)

from app.context import AppContext
from app.core.chat.export import ExportFormat
from app.core.config import Settings, spec_for
from app.core.config.schema import same_value
from app.core.engines.base import LoadedModel
from app.core.engines.manager import MIN_RETRY_CONTEXT, ManagerState
from app.core.hardware import HardwareReport, format_report
from app.core.models.library import ModelLibrary
from app.core.services.gauge_readings import GaugeSnapshot
from app.core.services.memory_guardian import guard_engine_manager
from app.core.util.errors import UserFacingError
from app.core.util.translatable import join_sentences, listed
from app.ui.bridge import Bridge
from app.ui.chat.chat_view import ChatView
from app.ui.chat.running_answers import FinishedAnswer
from app.ui.conversations.conversation_files import ConversationFiles
from app.ui.conversations.conversation_sidebar import ConversationSidebar
from app.ui.conversations.selection_memory import SelectionMemory
from app.ui.conversations.store_calls import StoreCalls
from app.ui.first_paint import AfterFirstPaint
from app.ui.gauges.gauge_sampler import GaugeSampler
from app.ui.gauges.gauges_panel import GaugesPanel
from app.ui.help_menu import HelpMenu
from app.ui.i18n import LanguageSwitcher, follow_language, render, retranslate_qt_parts
from app.ui.icons import themed_icon
from app.ui.knowledge.file_drops import install_file_drop
from app.ui.knowledge.knowledge_access import KnowledgeAccess, knowledge_access_for
from app.ui.knowledge.knowledge_base_panel import KnowledgeBasePanel
from app.ui.knowledge.knowledge_dock import KnowledgeDock
from app.ui.model_loader import ModelLoader
from app.ui.models.model_manager_dialog import ModelManagerDialog
from app.ui.settings.declaration_text import declared
from app.ui.settings.settings_dialog import SettingsDialog
from app.ui.shortcuts import install_shortcuts
from app.ui.state.engine_state import EngineSnapshot, EngineState
from app.ui.state.gui_services import ChatServices, GuiServices
from app.ui.status.memory_notice_bar import MemoryNoticeBar
from app.ui.status.model_status import ModelStatus
from app.ui.theme import apply_theme
from app.ui.welcome.welcome_page import WelcomePage
from app.ui.window_layout import WindowLayout
from app.ui.window_menus import WindowMenus, name_dock

log = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    """The whole window, composed here top-down: the conversations sidebar and the chat (or the welcome page),
    the gauges and knowledge-base docks, the model status, the model manager, the menus and the shortcuts.

    It appears at once; the probe, model loading, gauge readings, the store and the knowledge base work on
    workers (:class:`Bridge` for short calls, :class:`JobWatcher` for core jobs). ``language`` (the app's
    switcher) follows the ``ui.language`` setting on Apply. Tests may pass their own ``library`` and
    ``knowledge`` access and turn the first-run guide off.
    """

    def __init__(self, context: AppContext, services: GuiServices, *, language: LanguageSwitcher | None = None,
                 library: ModelLibrary | None = None, knowledge: KnowledgeAccess | None = None,
                 first_run_guide: bool = True) -> None:
        super().__init__()
        self._context = context
        self.services = services
        self.language = language
        self._bridge = Bridge(self)
        self._shut_down = False
        self.first_shown_at: float | None = None
        self._after_first_paint = AfterFirstPaint(self)
        self.hardware_report: HardwareReport | None = None
        self.settings_dialog: SettingsDialog | None = None
        self.settings_applied_hooks: list[Callable[[Settings], None]] = []
        """Called with the new settings after Apply, for parts added from outside (the local API switch)."""
        self.setObjectName("mainWindow")
        self.resize(1180, 760)

        # The centre: conversations on the left, the chat (the welcome page until there is one) on the right.
        self.chat_slot = QStackedWidget(self)
        self.chat_slot.setObjectName("chatSlot")
        self.welcome = WelcomePage(self.chat_slot)
        self.chat_slot.addWidget(self.welcome)
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)
        self.chat_view: ChatView | None = None
        self.sidebar: ConversationSidebar | None = None
        self.conversation_files: ConversationFiles | None = None
        if services.chat is not None:
            self._build_chat(services.chat)
        self.splitter.addWidget(self.chat_slot)
        self.splitter.setStretchFactor(self.splitter.indexOf(self.chat_slot), 1)

        # The docks on the right: the gauges, and the knowledge base tabbed with them.
        self.gauges = GaugesPanel(self)
        self.gauges_dock = QDockWidget(self)
        self.gauges_dock.setObjectName("gaugesDock")
        self.gauges_dock.setWidget(self.gauges)
        self.gauges_dock.setWindowIcon(themed_icon("gauges"))  # shown on its tab beside other docks
        self.gauges_dock.toggleViewAction().setIcon(themed_icon("gauges"))
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.gauges_dock)
        self.sampler = GaugeSampler(services, self)
        self.sampler.snapshot_ready.connect(self._show_snapshot)
        self.gauges_dock.visibilityChanged.connect(self._gauges_visibility_changed)
        self.knowledge = knowledge or knowledge_access_for(services, context.paths)
        self.knowledge_panel = KnowledgeBasePanel(self.knowledge, self)
        self.knowledge_dock = KnowledgeDock(self.knowledge_panel, self)
        self.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.knowledge_dock)
        self.tabifyDockWidget(self.gauges_dock, self.knowledge_dock)
        install_file_drop(self.chat_slot, self._drop_on_chat)

        # The model: its status below, loading in the background, the model manager.
        # One EngineState says what the engine is doing; the status bar, the chat input, the welcome page, the
        # model manager and the model actions all show it (the loader and unloading write it).
        self.engine_state = EngineState(self)
        self.model_status = ModelStatus(self)
        self.model_status.follow(self.engine_state)
        self.statusBar().addWidget(self.model_status, 1)
        self.loader = ModelLoader(services.engine_manager, self._bridge, self.engine_state, self)
        self.loader.loaded.connect(self._load_finished)
        self.loader.failed.connect(lambda _reason: self.sampler.sample_now())
        self._last_loaded: LoadedModel | None = None
        self._engine_shown: tuple[object, ...] | None = None

        # The memory guardian pauses new requests, then unloads, before memory runs out; a bar on top says so.
        self.memory_notice = MemoryNoticeBar(self)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, self.memory_notice)
        self.memory_notice.unload_requested.connect(self.unload_model)
        self.memory_notice.reload_smaller_requested.connect(self._reload_smaller)
        self.memory_notice.engine_unloaded.connect(self._unloaded)
        self.guardian = guard_engine_manager(services.engine_manager, services.live_settings.get)
        self.guardian.add_listener(self.memory_notice.deliver)
        self.after_first_paint(self.guardian.start)
        self.library = library or ModelLibrary.open(context.paths, services.live_settings.get())
        self.model_manager = ModelManagerDialog(self.library, services.machine.current, services.live_settings.get,
                                                self.load_model, self, loaded_model=self._loaded_model_path,
                                                engine_state=self.engine_state)
        self.welcome.load_requested.connect(self.open_models)
        self.welcome.settings_requested.connect(self.open_settings)

        # Menus, then the shortcuts (which leave keys the menus and buttons already use to them).
        self.menus = WindowMenus(
            self, models=self.open_models, load_file=self.choose_model_file, load_folder=self.choose_model_folder,
            unload=self.unload_model, settings=self.open_settings,
            export_conversation=self.export_conversation if self.conversation_files is not None else None,
            import_conversation=self.import_conversation if self.conversation_files is not None else None)
        self.models_action, self.load_action = self.menus.models_action, self.menus.load_action
        self.load_folder_action, self.unload_action = self.menus.load_folder_action, self.menus.unload_action
        self.settings_action, self.quit_action = self.menus.settings_action, self.menus.quit_action
        self.file_menu, self.view_menu = self.menus.file_menu, self.menus.view_menu
        self.menus.add_dock(self.gauges_dock)
        self.menus.add_dock(self.knowledge_dock)
        # The first-run guide's download fetches the documents' embedding model too.
        self.model_manager.first_run.download_box.download_requested.connect(self.knowledge_panel.fetch_embedding_model)
        self.help_menu = HelpMenu(self, log_file=context.log_file, hardware=services.machine.report,
                                  settings=services.live_settings.get)
        self.file_menu.aboutToShow.connect(self._enable_conversation_actions)
        self._enable_conversation_actions()
        self.shortcuts = install_shortcuts(self, self._shortcut_handlers())
        self.engine_state.changed.connect(self._show_engine_state)
        self._start_engine_state()

        # The saved layout (every dock exists now), the language, and what waits for the first frame.
        self.layout_store = WindowLayout(context.paths.config_dir)
        self.layout_store.restore(self, self.splitter)
        follow_language(self, self.retranslate_ui)
        self.after_first_paint(self.knowledge_panel.start)
        settings = services.live_settings.get()
        if first_run_guide and not settings.str_value("model.path").strip() and not self.library.local.models():
            self.after_first_paint(lambda: self.model_manager.open_manager(first_run=True))

    def retranslate_ui(self) -> None:
        """Title, menus, actions, the docks' titles and the settings problems in the current language (the
        widgets inside rewrite their own texts)."""
        self.setWindowTitle(self.tr("UniDesk"))
        name_dock(self.gauges_dock, self.tr("Gauges"), self.tr("&Gauges"))
        self.menus.retranslate_ui()
        self.shortcuts.retranslate_ui()
        retranslate_qt_parts(self)
        self._show_settings_problems()

    def _build_chat(self, chat: ChatServices) -> None:
        """The conversations sidebar and the chat view, wired to each other and to the model state."""
        calls = StoreCalls(chat.store, self)  # one worker for the store: the GUI thread never waits on SQLite
        sidebar = ConversationSidebar(calls, SelectionMemory(self._context.paths.config_dir), self)
        sidebar.setObjectName("conversationSidebar")
        view = ChatView(calls, chat.session, self)
        self.splitter.addWidget(sidebar)
        self.chat_slot.addWidget(view)
        self.chat_slot.setCurrentWidget(view)
        self.sidebar, self.chat_view = sidebar, view
        sidebar.conversation_selected.connect(view.show_conversation)
        sidebar.delete_requested.connect(view.delete_conversation)
        sidebar.conversation_changed.connect(view.conversation_updated)
        view.conversation_created.connect(sidebar.select)
        view.conversations_changed.connect(sidebar.refresh)
        view.running_changed.connect(sidebar.set_running)
        view.load_model_requested.connect(self.open_models)
        view.settings_requested.connect(self.open_settings)
        view.answer_finished.connect(self._answer_finished)
        files = ConversationFiles(chat.store, Bridge(self, serial=True), self)
        files.exported.connect(lambda path: view.notice.show_notice(
            "conversation-file", lambda: self.tr("The conversation was exported to {0}").format(path), level="info"))
        files.imported.connect(self._conversation_imported)
        files.failed.connect(lambda message: view.notice.show_notice("conversation-file", message))
        self.conversation_files = files
        sidebar.restore_selection()
        problems = self._context.settings_load.problems
        if problems:  # the welcome page that lists them is covered by the chat view
            view.notice.show_notice(
                "settings", lambda: self.tr("Some settings were not valid and use their defaults: {0}").format(
                    "; ".join(render(problem.message) for problem in problems)),
                level="warning", action="settings", action_text=lambda: self.tr("Settings…"))

    def _shortcut_handlers(self) -> dict[str, Callable[[], object]]:
        handlers: dict[str, Callable[[], object]] = {"focus_knowledge_base": self.knowledge_dock.show_and_focus}
        view, sidebar = self.chat_view, self.sidebar
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

    def _answer_finished(self, outcome: FinishedAnswer) -> None:
        """A finished answer's own figures go to the speed gauge (more exact than the engine's window)."""
        metrics = outcome.metrics
        if metrics is not None and metrics.generated_tokens:
            self.sampler.record_answer(metrics)
            self.sampler.sample_now()

    def _show_settings_problems(self) -> None:
        load = self._context.settings_load
        if not load.problems:
            return
        lines = [self.tr("Some settings were not valid and use their defaults:")]
        lines += [f"• {render(problem.message)}" for problem in load.problems]
        if load.backup_path is not None:
            lines.append(self.tr("The original file was kept as {0}").format(Path(load.backup_path).name))
        self.welcome.show_settings_problems(lines)

    def _drop_on_chat(self, dropped: list[Path]) -> None:
        """Files dropped on the chat go to the knowledge base (its dock comes to the front)."""
        self.add_documents(dropped)

    def add_documents(self, paths: list[Path]) -> None:
        """Add files or folders to the knowledge base, its dock to the front (a drop, or "Open with UniDesk")."""
        self.knowledge_dock.show()
        self.knowledge_dock.raise_()
        self.knowledge_panel.add_paths(paths)

    # ---- conversations as files -----------------------------------------------------------
    def export_conversation(self, export_format: ExportFormat) -> None:
        """File > Export conversation: the one on show, as Markdown (to read) or JSON (to import again)."""
        view, files = self.chat_view, self.conversation_files
        if view is None or files is None or view.conversation_id is None:
            return
        files.export_conversation(view.conversation_id, export_format)

    def import_conversation(self) -> None:
        """File > Import conversation: a JSON export becomes a new conversation, shown at once."""
        if self.conversation_files is not None:
            self.conversation_files.import_conversation()

    def _conversation_imported(self, conversation_id: str) -> None:
        if self.sidebar is not None:
            self.sidebar.select(conversation_id)

    def _enable_conversation_actions(self) -> None:
        shown = self.chat_view is not None and self.chat_view.conversation_id is not None
        for action in (self.menus.export_markdown_action, self.menus.export_json_action):
            if action is not None:
                action.setEnabled(shown)

    # ---- start-up ----------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.first_shown_at is None:
            self.first_shown_at = time.monotonic()
            self._after_first_paint.add(self._start_background_work)
            self._after_first_paint.window_shown()

    def after_first_paint(self, callback: Callable[[], object]) -> None:
        """Run ``callback`` once the window has painted its first frame (start-up work waits for this)."""
        self._after_first_paint.add(callback)

    def _start_background_work(self) -> None:
        """After the window is on screen: probe the machine, then (re)load the chosen model."""
        if self._shut_down:
            return
        self._bridge.run_in_background(self.services.machine.probe, self._probe_done, self._probe_failed)
        chat = self.services.chat
        if chat is not None:
            self._bridge.run_in_background(
                chat.attach_existing_knowledge_base, lambda _attached: None,
                lambda error: log.warning("the knowledge base could not be opened: %s", error))
        if self.gauges_dock.isVisible():
            self.sampler.start()
        # The remembered model loads now: its worker waits for the probe (the plan needs it) in the engine manager.
        model_path = self.services.live_settings.get().str_value("model.path").strip()
        if model_path and not self.loader.busy and self.services.engine_manager.status().loaded is None:
            self.load_model(Path(model_path).expanduser())

    def _probe_done(self, report: HardwareReport) -> None:
        self.hardware_report = report
        self.welcome.set_machine_summary(format_report(report))

    def _probe_failed(self, error: Exception) -> None:
        self.welcome.set_machine_summary(lambda: self.tr("Could not look at this machine: {0}").format(error))

    # ---- models ------------------------------------------------------------------------
    def open_models(self) -> None:
        """The model manager: download a model that fits, add your own, switch."""
        self.model_manager.open_manager()

    def choose_model_file(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, self.tr("Load a model"), self._model_folder(), self.tr("GGUF models (*.gguf);;All files (*)")
        )
        if path:
            self.load_model(Path(path))

    def choose_model_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.tr("Load a Hugging Face model folder"), self._model_folder())
        if path:
            self.load_model(Path(path))

    def _model_folder(self) -> str:
        current = self.services.live_settings.get().str_value("model.path")
        return str(Path(current).expanduser().parent) if current else str(Path.home())

    def load_model(self, path: Path) -> bool:
        """Load ``path`` in the background (False while another load runs)."""
        return self.loader.load(path)

    def _reload_smaller(self) -> None:
        """The memory notice's offer: load the last model again with half its context."""
        loaded = self._last_loaded
        if loaded is not None and self.loader.load(
                loaded.config.model_path,
                context_length=max(MIN_RETRY_CONTEXT, loaded.config.context_length // 2)):
            self.memory_notice.hide()

    def unload_model(self) -> None:
        manager = self.services.engine_manager
        self._bridge.run_in_background(manager.unload, lambda _result: self._unloaded())

    def _unloaded(self) -> None:
        self.engine_state.set_empty()
        self.sampler.reset_speed()
        self.sampler.sample_now()

    def _start_engine_state(self) -> None:
        """The engine state the window opens with: the model already loaded, the remembered model (it loads once
        the window has painted, so it is shown loading from the first frame), or none."""
        status = self.services.engine_manager.status()
        if status.loaded is not None:
            self.engine_state.set_ready(status.loaded, status.selection)
        else:
            model_path = self.services.live_settings.get().str_value("model.path").strip()
            if model_path:
                self.loader.announce(Path(model_path).expanduser())
        self._show_engine_state(self.engine_state.snapshot)

    def _show_engine_state(self, snapshot: EngineSnapshot) -> None:
        """Everything in the window that follows the engine's state (the status bar follows it by itself)."""
        shown = (snapshot.state, snapshot.model_name, snapshot.error)
        if shown == self._engine_shown:
            return  # only the load's progress moved
        opening, self._engine_shown = self._engine_shown is None, shown
        state, name, error = shown
        if self.chat_view is not None:
            self.chat_view.set_model_state(state, error if state is ManagerState.FAILED else name)
        loading = state is ManagerState.LOADING
        for action in (self.load_action, self.load_folder_action):
            action.setEnabled(not loading)
        self.welcome.load_button.setEnabled(not loading)
        self.unload_action.setEnabled(state is ManagerState.READY)
        if state is ManagerState.LOADING:
            self.welcome.set_message(lambda: self.tr("Loading {0}…").format(name))
        elif state is ManagerState.READY:
            self.welcome.set_message(lambda: self.tr("{0} is ready.").format(name))
        elif state is ManagerState.FAILED:
            self.welcome.set_message(lambda: self.tr("The model could not be loaded: {0}").format(render(error)))
        elif not opening:  # a window that opens with no model keeps the welcome's own words
            self.welcome.set_message(lambda: self.tr("No model is loaded."))

    def _load_finished(self, loaded: LoadedModel) -> None:
        self._last_loaded = loaded
        self._remember_model(loaded.config.model_path)
        self.sampler.reset_speed()
        self.sampler.sample_now()

    def _loaded_model_path(self) -> Path | None:
        """The file or folder of the model in use (the model manager marks it)."""
        loaded = self.services.engine_manager.status().loaded
        return loaded.config.model_path if loaded is not None else None

    def _remember_model(self, path: Path) -> None:
        """Make a model loaded from the menu the one loaded next time (saved like any setting)."""
        current = self.services.live_settings.get()
        if same_value(current["model.path"], str(path)):
            return
        try:
            updated = current.with_changes({"model.path": str(path)})
            self._context.settings_store.save(updated)
        except UserFacingError as error:
            log.warning("could not remember the model: %s", error)
            return
        self.services.live_settings.replace(updated)
        if self.settings_dialog is not None:
            self.settings_dialog.panel.set_settings(updated)

    # ---- settings ----------------------------------------------------------------------
    def open_settings(self) -> None:
        if self.settings_dialog is None:
            self.settings_dialog = SettingsDialog(self.services, self.apply_settings, self)
        self.settings_dialog.show()
        self.settings_dialog.raise_()
        self.settings_dialog.activateWindow()

    def apply_settings(self, settings: Settings) -> str:
        """Save ``settings``, put them in force and reload the model if a changed setting needs it."""
        previous = self.services.live_settings.get()
        changed = [key for key in settings if not same_value(settings[key], previous[key])]
        self._context.settings_store.save(settings)  # raises UserFacingError with the reason
        self.services.live_settings.replace(settings)
        if self.language is not None:
            self.language.apply(settings.str_value("ui.language"))
        for hook in self.settings_applied_hooks:
            hook(settings)
        app = QApplication.instance()
        if "ui.theme" in changed and isinstance(app, QApplication):
            apply_theme(app, settings.str_value("ui.theme"))
        return self._reload_if_needed(settings, changed)

    def _reload_if_needed(self, settings: Settings, changed: list[str]) -> str:
        saved = self.tr("Saved.")
        reload_keys = [key for key in changed if spec_for(key).applies_on_reload]
        status = self.services.engine_manager.status()
        new_path = settings.str_value("model.path").strip()
        if "model.path" in changed and new_path:
            target: Path | None = Path(new_path).expanduser()
        elif reload_keys and status.loaded is not None:
            target = status.loaded.config.model_path
        else:
            target = None
        if target is None:
            if reload_keys:
                return join_sentences((saved, self.tr("The changes take effect when a model is loaded.")))
            return saved
        names = render(listed(declared(spec_for(key).title) for key in reload_keys))
        if not self.load_model(target):
            return join_sentences((saved, self.tr("A model is loading; load it again to apply: {0}.").format(names)))
        return join_sentences((saved, self.tr("Reloading the model to apply: {0}.").format(names)))

    # ---- gauges ------------------------------------------------------------------------
    def _show_snapshot(self, snapshot: GaugeSnapshot) -> None:
        self.gauges.show_snapshot(snapshot)

    def _gauges_visibility_changed(self, visible: bool) -> None:
        if self.first_shown_at is None or self._shut_down:
            return
        if visible:
            self.sampler.start()
        else:
            self.sampler.stop()

    # ---- shutdown ----------------------------------------------------------------------
    def shutdown(self) -> None:
        """Stop timers, answers, indexing (it resumes next time) and downloads (their partial files are kept),
        and wait briefly for background work so none outlives the window; the chat services close after this."""
        if self._shut_down:
            return
        self._shut_down = True
        self.guardian.stop()
        self.sampler.stop()
        self.knowledge_panel.shutdown()
        self.model_manager.shutdown()
        if self.chat_view is not None:
            self.chat_view.shutdown()
        self.knowledge.close()
        self.library.close()
        if self.sidebar is not None:
            self.sidebar.wait(3000)
        if self.settings_dialog is not None:
            self.settings_dialog.calculator.wait(3000)
        self.sampler.wait(3000)
        self._bridge.wait_for_all(3000)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.layout_store.save(self, self.splitter)
        self.shutdown()
        super().closeEvent(event)
