"""Shows uncaught errors (from any thread, and from Qt slots) in a dialog; they are logged as well."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from app.core.util.translatable import join_sentences
from app.core.util.uncaught import UncaughtError, UncaughtErrorHooks


class UncaughtErrorDialogs(QObject):
    """Receives :class:`UncaughtError` on any thread and shows it on the GUI thread, one dialog at a time
    (errors arriving while one is open are counted in it, so a loop of failures cannot bury the window)."""

    reported = Signal(object)

    def __init__(self, parent: QWidget, log_file: Path) -> None:
        super().__init__(parent)
        self._parent = parent
        self._log_file = log_file
        self.box: QMessageBox | None = None
        self.shown: list[UncaughtError] = []
        self._more = 0
        self.reported.connect(self._show, Qt.ConnectionType.QueuedConnection)
        self.hooks = UncaughtErrorHooks(self.reported.emit)

    def install(self) -> UncaughtErrorDialogs:
        self.hooks.install()
        return self

    def uninstall(self) -> None:
        self.hooks.uninstall()

    def _show(self, error: UncaughtError) -> None:
        self.shown.append(error)
        if self.box is not None and self.box.isVisible():
            self._more += 1
            self.box.setInformativeText(self._informative())
            return
        self._more = 0
        box = QMessageBox(QMessageBox.Icon.Critical, self.tr("Unexpected error"),
                          self.tr("Something went wrong: {0}").format(error.summary),
                          QMessageBox.StandardButton.Ok, self._parent)
        box.setDetailedText(error.details)
        self.box = box
        box.setInformativeText(self._informative())
        box.setWindowModality(Qt.WindowModality.NonModal)
        box.show()

    def _informative(self) -> str:
        text = self.tr("UniDesk keeps running; the details were written to {0}.").format(str(self._log_file))
        if self._more:
            text = join_sentences((text, self.tr("{0} more errors happened since.").format(self._more)))
        return text


def install_error_dialogs(parent: QWidget, log_file: Path) -> UncaughtErrorDialogs:
    return UncaughtErrorDialogs(parent, log_file).install()
