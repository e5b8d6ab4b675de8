"""The settings panel: an editor for every declared setting, refusal of bad input with the reason,
arrows that stay on allowed values, and Apply that saves and reloads the model when needed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QWidget

from app.context import AppContext
from app.core.config import SETTINGS, Settings, TextFormat, ValueKind
from app.core.engines.manager import ManagerState
from app.ui.main_window import MainWindow
from app.ui.settings.path_field import PathField
from app.ui.settings.setting_double_spin_box import SettingDoubleSpinBox
from app.ui.settings.setting_editor import SettingEditor
from app.ui.settings.setting_spin_box import SettingSpinBox
from app.ui.settings.settings_dialog import SettingsDialog
from tests.ui.conftest import fake_machine, make_services

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
WAIT_MS = 20_000  # the memory verdict is planned on a worker thread: generous for a slow, loaded machine
LOAD_MS = 60_000  # loading a model


@pytest.fixture
def dialog(qtbot: Any, app_context: AppContext) -> SettingsDialog:
    services = make_services(app_context, fake_machine())
    applied: list[Settings] = []

    def apply(settings: Settings) -> str:
        applied.append(settings)
        app_context.settings_store.save(settings)
        services.live_settings.replace(settings)
        return "Saved."

    opened = SettingsDialog(services, apply)
    opened.applied = applied  # type: ignore[attr-defined]
    qtbot.addWidget(opened)
    opened.show()
    qtbot.waitExposed(opened)
    yield opened
    opened.calculator.wait(WAIT_MS)


def _type(qtbot: Any, editor: SettingEditor, text: str) -> None:
    """Replace the editor's text the way a user does: select all, type."""
    control = editor.control
    field = control.lineEdit() if isinstance(control, (SettingSpinBox, SettingDoubleSpinBox)) else (
        control.line_edit if isinstance(control, PathField) else control
    )
    assert isinstance(field, QLineEdit)
    field.selectAll()
    qtbot.keyClick(field, Qt.Key.Key_Backspace)
    qtbot.keyClicks(field, text)


def test_every_declared_setting_has_a_matching_editor(dialog: SettingsDialog) -> None:
    panel = dialog.panel
    defaults = Settings.defaults()
    assert set(panel.editors) == {spec.key for spec in SETTINGS}
    for spec in SETTINGS:
        editor = panel.editor(spec.key)
        control = editor.control
        if spec.kind is ValueKind.BOOL:
            assert isinstance(control, QCheckBox), spec.key
        elif spec.choices:
            assert isinstance(control, QComboBox), spec.key
            assert control.count() == len(spec.special_values) + len(spec.choices)
        elif spec.kind is ValueKind.INT:
            assert isinstance(control, SettingSpinBox), spec.key
        elif spec.kind is ValueKind.FLOAT:
            assert isinstance(control, SettingDoubleSpinBox), spec.key
        elif spec.text_format is TextFormat.PATH:
            assert isinstance(control, PathField), spec.key
        else:
            assert isinstance(control, QLineEdit), spec.key
            expected = QLineEdit.EchoMode.Password if spec.secret else QLineEdit.EchoMode.Normal
            assert control.echoMode() == expected, spec.key
        assert editor.value() == defaults[spec.key], spec.key
        assert spec.description in control.toolTip(), spec.key
        assert control.accessibleName(), spec.key
        assert editor.isVisibleTo(panel) == (not spec.advanced), spec.key
    panel.show_advanced(True)
    assert all(editor.isVisibleTo(panel) for editor in panel.editors.values())
    context = panel.editor("engine.context_length").control
    assert isinstance(context, SettingSpinBox) and context.text() == "Automatic"  # special value by its label


def test_bad_input_is_refused_in_the_field_with_the_reason(
    qtbot: Any, dialog: SettingsDialog, screenshot: Shot
) -> None:
    panel = dialog.panel
    panel.show_advanced(True)
    chats = panel.editor("engine.parallel_chats")
    _type(qtbot, chats, "70")
    assert chats.value() is None
    assert "above the maximum 64" in chats.error_label.text()
    assert chats.error_label.isVisibleTo(panel)
    assert not dialog.apply_button.isEnabled() and not dialog.ok_button.isEnabled()
    assert panel.settings_for_planning().int_value("engine.parallel_chats") == 0  # the last valid value: automatic
    context = panel.editor("engine.context_length")
    _type(qtbot, context, "300")
    assert "below the minimum 512" in (context.error() or "")
    url = panel.editor("engine.remote_url")
    _type(qtbot, url, "ftp://server")
    assert "http:// or https://" in (url.error() or "")
    dialog.panel.section_list.setCurrentRow(1)
    screenshot(dialog, "03-settings-refused-input")
    assert dialog.apply() is False
    assert "not valid" in dialog.apply_result.text()
    _type(qtbot, chats, "8")
    _type(qtbot, context, "Automatic")
    _type(qtbot, url, "http://192.168.1.20:8000/v1")
    assert chats.error() is None and context.error() is None and url.error() is None
    assert context.value() == 0
    assert dialog.apply_button.isEnabled()


def test_a_rule_between_settings_is_shown_on_the_setting_it_blames(qtbot: Any, dialog: SettingsDialog) -> None:
    panel = dialog.panel
    panel.show_advanced(True)
    overlap = panel.editor("kb.chunk_overlap_tokens")
    _type(qtbot, overlap, "600")  # above the default chunk size of 512
    assert overlap.value() == 600  # fine on its own...
    assert "not smaller than kb.chunk_tokens" in (overlap.error() or "")  # ...but not with the chunk size
    assert panel.candidate() is None
    _type(qtbot, panel.editor("kb.chunk_tokens"), "1024")
    assert overlap.error() is None and panel.candidate() is not None


def test_arrows_step_through_allowed_values_only(dialog: SettingsDialog) -> None:
    context = dialog.panel.editor("engine.context_length").control
    assert isinstance(context, SettingSpinBox)
    context.stepBy(1)
    assert context.value() == 512
    context.stepBy(2)
    assert context.value() == 2048  # long ranges double
    context.stepBy(-3)
    assert context.text() == "Automatic"
    layers = dialog.panel.editor("engine.gpu_layers").control
    assert isinstance(layers, SettingSpinBox) and layers.value() == -1
    layers.stepBy(1)
    assert layers.value() == 0
    chats = dialog.panel.editor("engine.parallel_chats").control
    assert isinstance(chats, SettingSpinBox)
    chats.setValue(64)
    assert not (chats.stepEnabled() & chats.StepEnabledFlag.StepUpEnabled)
    utilisation = dialog.panel.editor("engine.memory_utilization").control
    assert isinstance(utilisation, SettingDoubleSpinBox)
    utilisation.stepBy(1)
    assert utilisation.value() == pytest.approx(0.05)
    assert dialog.panel.editor("engine.memory_utilization").error() is None


def test_secret_field_is_masked_until_asked(qtbot: Any, dialog: SettingsDialog) -> None:
    editor = dialog.panel.editor("engine.remote_api_key")
    assert isinstance(editor.control, QLineEdit) and editor.reveal_button is not None
    _type(qtbot, editor, "sk-secret")
    assert editor.control.echoMode() == QLineEdit.EchoMode.Password
    editor.reveal_button.click()
    assert editor.control.echoMode() == QLineEdit.EchoMode.Normal
    assert editor.value() == "sk-secret"


def test_backend_field_says_why_automatic_picks_a_backend(
    qtbot: Any, dialog: SettingsDialog, tiny_gguf: Path
) -> None:
    note = dialog.panel.editor("engine.backend").note_label
    qtbot.waitUntil(lambda: "on this machine" in note.text(), timeout=WAIT_MS)
    assert "llama.cpp" in note.text()
    _type(qtbot, dialog.panel.editor("model.path"), str(tiny_gguf))
    qtbot.waitUntil(lambda: "GGUF files run on llama.cpp" in note.text(), timeout=WAIT_MS)
    assert note.text().startswith("Automatic picks llama.cpp")


def test_apply_saves_and_reloads_the_model_for_reload_settings(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tiny_gguf: Path, screenshot: Shot
) -> None:
    window = open_window(app_context, make_services(app_context, fake_machine()))
    window.load_model(tiny_gguf)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=LOAD_MS)
    loads_before = window.loader.loads_started
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    _type(qtbot, dialog.panel.editor("sampling.temperature"), "0.2")
    assert dialog.apply()
    assert dialog.apply_result.text() == "Saved."
    assert window.loader.loads_started == loads_before  # answers' temperature needs no reload
    _type(qtbot, dialog.panel.editor("engine.parallel_chats"), "2")
    assert dialog.apply()
    assert "Reloading the model to apply: Parallel chats" in dialog.apply_result.text()
    assert window.loader.loads_started == loads_before + 1
    saved = app_context.settings_store.load().settings
    assert saved.int_value("engine.parallel_chats") == 2
    assert saved.float_value("sampling.temperature") == pytest.approx(0.2)
    qtbot.waitUntil(lambda: window.model_status.state is ManagerState.READY, timeout=LOAD_MS)
    loaded = window.services.engine_manager.status().loaded
    assert loaded is not None and loaded.config.parallel_chats == 2
    assert "2 chats" in window.model_status.text.text()
    assert not dialog.apply_button.isEnabled()  # nothing left to apply
    screenshot(dialog, "04-settings-applied-reload")
