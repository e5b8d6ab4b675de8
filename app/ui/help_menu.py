"""The Help menu: About (version, the parts UniDesk is built from and their licences), open the log
folder, and copy a diagnostic report for a bug report."""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QMainWindow, QMessageBox

from app import __version__
from app.core.config.settings import Settings
from app.core.hardware.report import HardwareReport
from app.core.services.diagnostics import diagnostic_report, installed_components
from app.ui.i18n import follow_language, translate


class HelpMenu:
    """Help on ``window``'s menu bar. ``hardware`` and ``settings`` give the report's current facts."""

    def __init__(
        self,
        window: QMainWindow,
        *,
        log_file: Path,
        hardware: Callable[[], HardwareReport | None],
        settings: Callable[[], Settings],
    ) -> None:
        self._window = window
        self._log_file = log_file
        self._hardware = hardware
        self._settings = settings
        self.menu = window.menuBar().addMenu("")
        self.menu.setObjectName("helpMenu")
        self.about_action = self._action("aboutAction", self.show_about)
        self.log_folder_action = self._action("openLogFolderAction", self.open_log_folder)
        self.report_action = self._action("copyReportAction", self.copy_report)
        self._language = follow_language(window, self.retranslate_ui)

    def _action(self, name: str, slot: Callable[[], object]) -> QAction:
        action = QAction(self._window)
        action.setObjectName(name)
        action.triggered.connect(slot)
        self.menu.addAction(action)
        return action

    def retranslate_ui(self) -> None:
        self.menu.setTitle(translate("HelpMenu", "&Help"))
        self.about_action.setText(translate("HelpMenu", "&About UniDesk"))
        self.log_folder_action.setText(translate("HelpMenu", "Open the &log folder"))
        self.report_action.setText(translate("HelpMenu", "&Copy a diagnostic report"))
        self.report_action.setToolTip(translate(
            "HelpMenu", "Machine, settings without secrets and the last log lines, for a bug report"))

    def about_text(self) -> str:
        """The About box's rich text: version, privacy promise, and each bundled part with its licence."""
        rows = "".join(
            f"<tr><td>{html.escape(component.name)}</td><td>{html.escape(component.version)}</td>"
            f"<td>{html.escape(component.licence)}</td></tr>"
            for component in installed_components()
        )
        promise = translate("HelpMenu", "A private AI assistant: models and documents stay on this machine.")
        built_from = translate("HelpMenu", "UniDesk is licensed under Apache-2.0. It is built from:")
        return (
            f"<h3>UniDesk {__version__}</h3><p>{html.escape(promise)}</p><p>{html.escape(built_from)}</p>"
            f"<table cellspacing='6'>{rows}</table>"
        )

    def show_about(self) -> None:
        QMessageBox.about(self._window, translate("HelpMenu", "About UniDesk"), self.about_text())

    def open_log_folder(self) -> bool:
        """Open the log folder in the file manager; say where it is when the system cannot."""
        folder = self._log_file.parent
        if QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            return True
        QMessageBox.information(
            self._window,
            translate("HelpMenu", "Log folder"),
            translate("HelpMenu", "This system has no file manager to open it. The log is in:\n{0}").format(folder),
        )
        return False

    def report_text(self) -> str:
        return diagnostic_report(self._hardware(), self._settings(), self._log_file)

    def copy_report(self) -> None:
        """Put the diagnostic report on the clipboard and say so in the status bar."""
        QGuiApplication.clipboard().setText(self.report_text())
        self._window.statusBar().showMessage(
            translate("HelpMenu", "A diagnostic report is on the clipboard: paste it into your bug report."), 8000)
