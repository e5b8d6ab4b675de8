"""SettingsDialog: the settings panel, the live memory verdict under it, and Apply / OK / Cancel."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout, QWidget

from app.core.config import Settings
from app.core.util.errors import UserFacingError
from app.ui.dialog_buttons import ButtonRole, DialogButtons
from app.ui.i18n import TextSource, follow_language, render, rendered
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
        self._apply_result: TextSource = ""
        self.buttons = DialogButtons(self)
        self.ok_button = self.buttons.add(ButtonRole.AcceptRole, lambda: self.tr("OK"))
        self.apply_button = self.buttons.add(ButtonRole.ApplyRole, lambda: self.tr("Apply"))
        self.cancel_button = self.buttons.add(ButtonRole.RejectRole, lambda: self.tr("Cancel"))
        self.defaults_button = self.buttons.add(ButtonRole.ResetRole, lambda: self.tr("Restore defaults"))
        self.apply_button.clicked.connect(self.apply)
        self.ok_button.clicked.connect(self._apply_and_close)
        self.buttons.rejected.connect(self.reject)
        self.defaults_button.clicked.connect(self._restore_defaults)
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
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        """Texts in the current language; edited values, the verdict and the last Apply result stay."""
        self.setWindowTitle(self.tr("Settings"))
        self.setAccessibleName(self.tr("Settings"))
        self.apply_result.setText(rendered(self._apply_result))
        verdict = self.verdict_view.verdict
        if verdict is not None:
            self.panel.editor("engine.backend").set_note(self._backend_note(verdict))

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
                return self.tr("Automatic picks {0}: {1}").format(name, render(selection.reason))
            return self.tr("Runs on {0}: {1}").format(name, render(selection.reason))
        if verdict.model_path is not None and verdict.problem is not None:
            return self.tr("Cannot run this model: {0}").format(render(verdict.problem))
        hardware = verdict.hardware
        if hardware is not None and automatic:
            recommendation = hardware.recommended_backend
            return self.tr("Automatic picks {0} on this machine: {1}").format(
                BACKEND_NAMES.get(recommendation.backend, recommendation.backend), render(recommendation.reason)
            )
        return None

    def apply(self) -> bool:
        """Put the edited settings in force; False (with the reason shown) when they are not valid."""
        candidate = self.panel.candidate()
        if candidate is None:
            self._show_result(lambda: self.tr("Some settings are not valid; fix the fields marked in red first."),
                              False)
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

    def _show_result(self, text: TextSource, succeeded: bool) -> None:
        self._apply_result = text
        self.apply_result.setText(rendered(text))
        self.apply_result.setProperty("succeeded", succeeded)
        self.apply_result.setVisible(bool(rendered(text)))
        self.apply_result.setStyleSheet(f"color: {'#43a047' if succeeded else '#e53935'};")

    def reject(self) -> None:
        """Cancel, Escape or the window's close button: the edits are dropped, so the dialog shows the settings
        in force when it opens again (and its verdict plans those)."""
        self.panel.set_settings(self._services.live_settings.get())
        self._show_result("", True)
        super().reject()

    def done(self, result: int) -> None:
        self.calculator.wait(3000)
        super().done(result)

    def closeEvent(self, event: QCloseEvent) -> None:
        self.calculator.wait(3000)
        super().closeEvent(event)
