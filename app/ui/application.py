"""Start the Qt application and the main window."""

from __future__ import annotations

import logging
import sys

from app.context import AppContext

log = logging.getLogger(__name__)


def run_gui(context: AppContext) -> int:
    """Open the main window and run the event loop until it closes; returns the exit code."""
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError as error:
        print(f"unidesk: error: the window needs PySide6, which failed to load: {error}", file=sys.stderr)
        return 1
    from app.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("UniDesk")
    app.setOrganizationName("UniDesk")
    window = MainWindow(context)
    window.show()
    log.info("window shown")
    code = app.exec()
    window.shutdown()
    return int(code)
