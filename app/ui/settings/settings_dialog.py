"""SettingsDialog: the settings panel, the live memory verdict under it, and Apply / OK / Cancel."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

from app.core.config import Settings
from app.core.util.errors import UserFacingError
from app.ui.settings.memory_verdict_view import BACKEND_NAMES, MemoryVerdictView
from app.ui.settings.settings_panel import SettingsPanel
from app.ui.settings.verdict_calculator import VerdictCalculator
from app.ui.settings.verdict_planning import Verdict
from app.ui.state.gui_services import GuiServices

SettingsApplier = Callable[[Settings], str]
"""Puts settings in force (saves them, reloads if needed); returns what happened, one line for the user."""


class SettingsDialog(QDialog):
    """Non-modal settings window. The verdict follows every edit; Apply hands valid settings to ``apply``."""

    def __init__(self, services: GuiServices, apply: SettingsApplier, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settingsDialog")
        self.setWindowTitle(self.tr("Settings"))
        self.setAccessibleName(self.tr("Settings"))
        self.resize(820, 640)
        self._services = services
        self._apply = apply
        self.panel = SettingsPanel(services.live_settings.get(), self)
        self.verdict_view = MemoryVerdictView(self)
        self.apply_result = QLabel(self)
        self.apply_result.setObjectName("applyResult")
        self.apply_result.setWordWrap(True)
        self.apply_result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.apply_result.setVisible(False)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok
            | QDialogButtonBox.StandardButton.Apply
            | QDialogButtonBox.StandardButton.Cancel
            | QDialogButtonBox.StandardButton.RestoreDefaults,
            self,
        )
        self.apply_button = self._button(QDialogButtonBox.StandardButton.Apply, self.tr("Apply"))
        self.ok_button = self._button(QDialogButtonBox.StandardButton.Ok, self.tr("OK"))
        self._button(QDialogButtonBox.StandardButton.Cancel, self.tr("Cancel"))
        defaults = self._button(QDialogButtonBox.StandardButton.RestoreDefaults, self.tr("Restore defaults"))
        self.apply_button.clicked.connect(self.apply)
        self.ok_button.clicked.connect(self._apply_and_close)
        self.buttons.rejected.connect(self.reject)
        defaults.clicked.connect(self._restore_defaults)
        layout = QVBoxLayout(self)
        layout.addWidget(self.panel, stretch=1)
        layout.addWidget(self.verdict_view)
        layout.addWidget(self.apply_result)
        layout.addWidget(self.buttons)
        self.calculator = VerdictCalculator(services, self)
        self.calculator.verdict_ready.connect(self._show_verdict)
        self.calculator.failed.connect(self.verdict_view.show_failure)
        self.panel.edited.connect(self._on_edited)
        self._on_edited()

    def _button(self, which: QDialogButtonBox.StandardButton, text: str) -> QPushButton:
        button = self.buttons.button(which)
        button.setText(text)
        button.setAccessibleName(text)
        return button

    def _on_edited(self) -> None:
        candidate = self.panel.candidate()
        can_apply = candidate is not None and bool(self.panel.changed_keys())
        self.apply_button.setEnabled(can_apply)
        self.ok_button.setEnabled(candidate is not None)
        self.calculator.request(self.panel.settings_for_planning())

    def _show_verdict(self, verdict: Verdict) -> None:
        self.verdict_view.show_verdict(verdict)
        self.panel.editor("engine.backend").set_note(self._backend_note(verdict))

    def _backend_note(self, verdict: Verdict) -> str | None:
        automatic = self.panel.settings_for_planning().str_value("engine.backend") == "auto"
        selection = verdict.selection
        if selection is not None:
            name = BACKEND_NAMES.get(selection.backend) or self.tr("a remote server")
            if automatic:
                return self.tr("Automatic picks {0}: {1}").format(name, selection.reason)
            return self.tr("Runs on {0}: {1}").format(name, selection.reason)
        if verdict.model_path is not None and verdict.problem is not None:
            return self.tr("Cannot run this model: {0}").format(verdict.problem)
        hardware = verdict.hardware
        if hardware is not None and automatic:
            recommendation = hardware.recommended_backend
            return self.tr("Automatic picks {0} on this machine: {1}").format(
                BACKEND_NAMES.get(recommendation.backend, recommendation.backend), recommendation.reason
            )
        return None

    def apply(self) -> bool:
        """Put the edited settings in force; False (with the reason shown) when they are not valid."""
        candidate = self.panel.candidate()
        if candidate is None:
            self._show_result(self.tr("Some settings are not valid; fix the fields marked in red first."), False)
            return False
        if not self.panel.changed_keys():
            return True
        try:
            message = self._apply(candidate)
        except UserFacingError as error:
            self._show_result(str(error), False)
            return False
        self.panel.set_settings(candidate)
        self._show_result(message, True)
        return True

    def _apply_and_close(self) -> None:
        if self.apply():
            self.accept()

    def _restore_defaults(self) -> None:
        defaults = Settings.defaults()
        for key, editor in self.panel.editors.items():
            editor.set_value(defaults[key])
        self.panel.edited.emit()

    def _show_result(self, text: str, succeeded: bool) -> None:
        self.apply_result.setText(text)
        self.apply_result.setProperty("succeeded", succeeded)
        self.apply_result.setVisible(bool(text))
        self.apply_result.setStyleSheet(f"color: {'#43a047' if succeeded else '#e53935'};")

    def done(self, result: int) -> None:
        self.calculator.wait(3000)
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.calculator.wait(3000)
        super().closeEvent(event)
