"""Start the Qt application and the main window."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from app.context import AppContext
from app.ui.state.gui_services import GuiServices

if TYPE_CHECKING:
    from PySide6.QtWidgets import QApplication

log = logging.getLogger(__name__)

DESKTOP_FILE_ID = "io.github.unidesk.UniDesk"
"""The desktop entry's name (packaging/linux) without ``.desktop``; also the app id on Wayland."""


def run_gui(context: AppContext, services: GuiServices, *, startup_time: bool = False,
            open_files: Sequence[Path] = ()) -> int:
    """Open the main window and run the event loop until it closes; returns the exit code.

    ``startup_time``: print the time from process start to the window's first paint, then quit
    (``unidesk --startup-time``, for measuring a cold start). ``open_files`` (``unidesk FILE...``, "Open with
    UniDesk") are added to the knowledge base once the window is up.
    """
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError as error:
        print(f"unidesk: error: the window needs PySide6, which failed to load: {error}", file=sys.stderr)
        return 1
    from app.ui.error_dialog import install_error_dialogs
    from app.ui.gui_thread_gc import GuiThreadGarbageCollector
    from app.ui.i18n import LanguageSwitcher
    from app.ui.icons import app_icon
    from app.ui.local_api_switch import install_local_api_switch
    from app.ui.main_window import MainWindow
    from app.ui.pyside_workarounds import protect_none_from_pyside
    from app.ui.theme import ThemeController
    from app.ui.window_channel import install_window_channel

    protect_none_from_pyside()

    # argv[0] names the X11 window instance (WM_CLASS "unidesk", "UniDesk"); under `python -m app` it was "__main__.py".
    app = QApplication.instance() or QApplication(["unidesk"])
    assert isinstance(app, QApplication)
    garbage = GuiThreadGarbageCollector(app)  # Qt objects in Python cycles are freed on this thread, never a worker's
    garbage.start()
    app.setApplicationName("UniDesk")
    app.setOrganizationName("UniDesk")
    app.setDesktopFileName(DESKTOP_FILE_ID)  # the Wayland app id: the desktop matches the window to its menu entry
    app.setWindowIcon(app_icon())
    # The look lives in one object owned by the app: it follows the system's light/dark switch while
    # "system" is chosen; the window's Apply re-themes through it (apply_theme finds the same controller).
    ThemeController.of(app).set_theme(context.settings.str_value("ui.theme"))
    language = LanguageSwitcher(app)  # before any widget, so all start translated
    language.apply(context.settings.str_value("ui.language"))
    window = MainWindow(context, services, language=language)  # the whole window, composed in one place
    errors = install_error_dialogs(window, context.log_file)  # uncaught errors are logged and shown
    install_window_channel(window, context.paths, window.add_documents)  # a second launch: front, and its files
    api_switch = install_local_api_switch(window, services.engine_manager, services.live_settings, context.paths)
    window.settings_applied_hooks.append(api_switch.follow)
    if open_files:
        window.after_first_paint(lambda: window.add_documents([Path(path) for path in open_files]))
    if startup_time:
        window.after_first_paint(lambda: report_startup_time(app))
    window.show()
    log.info("window shown")
    code = app.exec()
    api_switch.shutdown()
    errors.uninstall()
    window.shutdown()
    services.engine_manager.unload()
    garbage.stop()
    return int(code)


def report_startup_time(app: QApplication) -> None:
    """Print how long ago this process started (the first paint has just happened), then quit."""
    import time

    import psutil

    elapsed = time.time() - psutil.Process().create_time()
    print(f"first paint after {elapsed:.2f} s", flush=True)
    log.info("first paint %.2f s after the process started", elapsed)
    app.quit()
