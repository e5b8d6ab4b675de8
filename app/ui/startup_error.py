"""A reason the window cannot open, shown in a dialog: a window started from a desktop icon has no console."""

from __future__ import annotations

import os
import stat
import sys

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QMessageBox


def show_startup_error(message: str) -> None:
    """Show ``message`` (already printed on stderr by the caller) and wait until the user closes it."""
    QApplication.instance() or QApplication(sys.argv[:1])
    QMessageBox.critical(None, QCoreApplication.translate("StartupError", "UniDesk cannot start"), message)


def stderr_is_read() -> bool:
    """Whether someone sees what is printed on stderr: a terminal, a pipe or a file. A window started from a
    desktop icon has stderr on /dev/null or the session's journal socket, where nobody looks."""
    try:
        mode = os.fstat(sys.stderr.fileno()).st_mode
    except (AttributeError, OSError, ValueError):  # no stderr at all (pythonw on Windows)
        return False
    return os.isatty(sys.stderr.fileno()) or stat.S_ISFIFO(mode) or stat.S_ISREG(mode)
