"""The main window: for now, what this machine can run and how the settings loaded."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent, QFontDatabase
from PySide6.QtWidgets import QLabel, QMainWindow, QVBoxLayout, QWidget

from app.context import AppContext
from app.core.hardware import HardwareReport, format_report, probe_hardware
from app.ui.bridge import Bridge


class MainWindow(QMainWindow):
    """Top-level window. The probe runs on a worker so the window appears at once."""

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self._context = context
        self._bridge = Bridge(self)
        self.setWindowTitle("UniDesk")
        self.resize(900, 640)

        central = QWidget(self)
        layout = QVBoxLayout(central)
        self.settings_banner = QLabel(central)
        self.settings_banner.setObjectName("settingsBanner")
        self.settings_banner.setWordWrap(True)
        self.settings_banner.setVisible(False)
        self.machine_summary = QLabel(self.tr("Looking at this machine…"), central)
        self.machine_summary.setObjectName("machineSummary")
        self.machine_summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.machine_summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.machine_summary.setAccessibleName(self.tr("This machine"))
        self.machine_summary.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        layout.addWidget(self.settings_banner)
        layout.addWidget(self.machine_summary, stretch=1)
        self.setCentralWidget(central)

        self._show_settings_problems()
        self.hardware_report: HardwareReport | None = None
        self._bridge.run_in_background(probe_hardware, self._on_probe_done, self._on_probe_failed)

    def _show_settings_problems(self) -> None:
        load = self._context.settings_load
        if not load.problems:
            return
        lines = [self.tr("Some settings were not valid and use their defaults:")]
        lines += [f"• {problem.message}" for problem in load.problems]
        if load.backup_path is not None:
            lines.append(self.tr("The original file was kept as {0}").format(Path(load.backup_path).name))
        self.settings_banner.setText("\n".join(lines))
        self.settings_banner.setVisible(True)

    def _on_probe_done(self, report: HardwareReport) -> None:
        self.hardware_report = report
        self.machine_summary.setText(format_report(report))

    def _on_probe_failed(self, error: Exception) -> None:
        self.machine_summary.setText(self.tr("Could not look at this machine: {0}").format(error))

    def shutdown(self) -> None:
        """Wait briefly for background jobs so none outlives the window."""
        self._bridge.wait_for_all(3000)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.shutdown()
        super().closeEvent(event)
