"""Editing settings in the real window: Cancel drops the edits, text that is not a number is refused as typed
and stays refused when the user leaves the field."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QLineEdit, QWidget

from app.context import AppContext
from app.ui.main_window import MainWindow
from app.ui.settings.setting_editor import SettingEditor
from app.ui.settings.setting_spin_box import SettingSpinBox
from app.ui.settings.settings_dialog import SettingsDialog
from tests.ui.conftest import fake_machine, make_services

pytestmark = pytest.mark.gui

Shot = Callable[[QWidget, str], Path]
WAIT_MS = 20_000  # the verdict is planned on a worker thread: generous for a loaded machine


def _opened_settings(qtbot: Any, window: MainWindow) -> SettingsDialog:
    window.open_settings()
    dialog = window.settings_dialog
    assert dialog is not None
    qtbot.waitExposed(dialog)
    dialog.panel.show_advanced(True)
    return dialog


def _field(editor: SettingEditor) -> QLineEdit:
    control = editor.control
    assert isinstance(control, SettingSpinBox)
    return control.lineEdit()


def _type(qtbot: Any, editor: SettingEditor, text: str) -> None:
    field = _field(editor)
    field.setFocus()
    field.selectAll()
    qtbot.keyClick(field, Qt.Key.Key_Backspace)
    qtbot.keyClicks(field, text)


def test_cancel_drops_the_edits_so_the_dialog_reopens_with_the_settings_in_force(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow]
) -> None:
    window = open_window(app_context, make_services(app_context, fake_machine()))
    in_force = window.services.live_settings.get()
    settings_file = app_context.settings_store.path
    saved_before = settings_file.read_bytes() if settings_file.exists() else None
    dialog = _opened_settings(qtbot, window)
    context, chats = dialog.panel.editor("engine.context_length"), dialog.panel.editor("engine.parallel_chats")
    _type(qtbot, context, "2048")
    _type(qtbot, chats, "64")
    assert dialog.panel.settings_for_planning().int_value("engine.parallel_chats") == 64
    qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=WAIT_MS)

    reopened = _opened_settings(qtbot, window)
    assert reopened is dialog  # the same dialog, shown again
    for editor in (context, chats):
        value = in_force[editor.spec.key]
        assert isinstance(editor.control, SettingSpinBox) and isinstance(value, int)
        assert editor.value() == value and _field(editor).text() == editor.control.textFromValue(value)
    assert dialog.panel.settings_for_planning() == in_force  # the verdict plans what is in force
    assert dialog.panel.changed_keys() == [] and not dialog.apply_button.isEnabled()
    qtbot.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)  # OK now has nothing of the cancelled edits
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=WAIT_MS)
    assert (settings_file.read_bytes() if settings_file.exists() else None) == saved_before


def test_text_that_is_not_a_number_is_refused_as_typed_and_leaving_the_field_keeps_it(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], screenshot: Shot
) -> None:
    window = open_window(app_context, make_services(app_context, fake_machine()))
    dialog = _opened_settings(qtbot, window)
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow, timeout=WAIT_MS)
    chats = dialog.panel.editor("engine.parallel_chats")
    _type(qtbot, chats, "abc")
    assert _field(chats).text() == "abc"  # not cut to "a" because "a" starts a special value's label
    assert chats.value() is None and "abc" in (chats.error() or "")
    assert chats.error_label.isVisibleTo(dialog)
    assert not dialog.ok_button.isEnabled() and not dialog.apply_button.isEnabled()
    screenshot(dialog, "settings-not-a-number")

    _type(qtbot, chats, "70")  # a number the setting refuses...
    assert chats.value() is None and "above the maximum" in (chats.error() or "")
    _type(qtbot, chats, "")  # ...then emptied: Tab must not bring the 70 back
    qtbot.keyClick(_field(chats), Qt.Key.Key_Tab)
    qtbot.waitUntil(lambda: not _field(chats).hasFocus(), timeout=WAIT_MS)
    assert _field(chats).text() == ""
    assert chats.value() is None and "70" not in (chats.error() or "70")
    assert not dialog.ok_button.isEnabled()

    _type(qtbot, chats, "4")
    qtbot.keyClick(_field(chats), Qt.Key.Key_Tab)
    assert _field(chats).text() == "4" and chats.value() == 4 and chats.error() is None
    assert dialog.ok_button.isEnabled() and dialog.apply_button.isEnabled()


def test_the_verdict_gives_every_size_its_unit_and_small_models_in_mib(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], tiny_gguf: Path
) -> None:
    window = open_window(app_context, make_services(app_context, fake_machine()))
    dialog = _opened_settings(qtbot, window)
    model = dialog.panel.editor("model.path")
    field = model.control.line_edit  # type: ignore[union-attr]
    field.setFocus()
    qtbot.keyClicks(field, str(tiny_gguf))
    qtbot.waitUntil(lambda: dialog.verdict_view.fits is True, timeout=WAIT_MS)
    headline = dialog.verdict_view.headline.text()
    # a model of a few MB: "Fits: 5 MiB of 16.0 GiB free", not "Fits: 0.00 of 16.0 GiB free"
    assert re.fullmatch(r"Fits: \d+ (KiB|MiB) of \d+\.\d GiB free", headline), headline


def test_fields_line_up_from_one_section_to_the_next(
    qtbot: Any, app_context: AppContext, open_window: Callable[..., MainWindow], screenshot: Shot
) -> None:
    window = open_window(app_context, make_services(app_context, fake_machine()))
    dialog = _opened_settings(qtbot, window)
    body = dialog.panel.scroll_area.widget()
    lefts = {editor.spec.section: editor.mapTo(body, QPoint(0, 0)).x()
             for editor in dialog.panel.editors.values() if editor.isVisibleTo(dialog)}
    assert len(lefts) >= 4 and len(set(lefts.values())) == 1, {key: lefts[key] for key in sorted(lefts)}
    screenshot(dialog, "settings-aligned")
