"""Start the Qt application and the main window."""

from __future__ import annotations

import logging
import sys

from app.context import AppContext
from app.ui.state.gui_services import GuiServices

log = logging.getLogger(__name__)


def run_gui(context: AppContext, services: GuiServices) -> int:
    """Open the main window and run the event loop until it closes; returns the exit code."""
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError as error:
        print(f"unidesk: error: the window needs PySide6, which failed to load: {error}", file=sys.stderr)
        return 1
    from app.ui.error_dialog import install_error_dialogs
    from app.ui.icons import app_icon
    from app.ui.local_api_switch import install_local_api_switch
    from app.ui.main_window import MainWindow
    from app.ui.pyside_workarounds import protect_none_from_pyside
    from app.ui.theme import ThemeController
    from app.ui.window_channel import install_window_channel
    from app.ui.window_extras import install_knowledge_and_models, install_language

    protect_none_from_pyside()

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("UniDesk")
    app.setOrganizationName("UniDesk")
    app.setWindowIcon(app_icon())
    # The look lives in one object owned by the app: it follows the system's light/dark switch while
    # "system" is chosen; the window's Apply re-themes through it (apply_theme finds the same controller).
    ThemeController.of(app).set_theme(context.settings.str_value("ui.theme"))
    language = install_language(app, context.settings)  # before any widget, so all start translated
    window = MainWindow(context, services)
    extras = install_knowledge_and_models(window, services, context.paths, language=language)
    window.settings_applied_hooks.append(extras.settings_applied)
    errors = install_error_dialogs(window, context.log_file)  # uncaught errors are logged and shown
    install_window_channel(window, context.paths)  # a second launch brings this window to the front
    api_switch = install_local_api_switch(window, services.engine_manager, services.live_settings, context.paths)
    window.settings_applied_hooks.append(api_switch.follow)
    window.show()
    log.info("window shown")
    code = app.exec()
    api_switch.shutdown()
    errors.uninstall()
    extras.shutdown()
    window.shutdown()
    services.engine_manager.unload()
    return int(code)
