"""Language switches at runtime (issue #8 follow-ups): special values of number settings, dialog buttons, and the
window's menu items keep their mnemonics, in Chinese and back in English."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox

from app.context import AppContext
from app.core.chat.records import KnowledgeScope
from app.core.config import spec_for
from app.ui.chat.knowledge_scope_dialog import KnowledgeScopeDialog
from app.ui.dialog_buttons import ButtonRole, DialogButtons
from app.ui.i18n import LanguageSwitcher, translate
from app.ui.settings.setting_double_spin_box import SettingDoubleSpinBox
from app.ui.settings.setting_editor import SettingEditor
from app.ui.settings.setting_spin_box import SettingSpinBox
from tests.ui.chat_support import ChatWindows
from tests.ui.i18n_support import visible_texts
from tests.ui.models_support import make_library

pytestmark = pytest.mark.gui
WAIT_MS = 20_000  # Qt's posted LanguageChange events: generous for a slow, loaded machine
SETTLE_MS = 50  # after the new texts are shown: any event still posted has arrived too


def test_special_values_are_relabelled_after_a_switch_keeping_the_values(
    qtbot: Any, switcher: LanguageSwitcher
) -> None:
    context = SettingEditor(spec_for("engine.context_length"), 0)
    utilisation = SettingEditor(spec_for("engine.memory_utilization"), 0.0)
    threads = SettingEditor(spec_for("engine.threads"), 4)
    edits: list[str] = []
    for editor in (context, utilisation, threads):
        qtbot.addWidget(editor)
        editor.edited.connect(edits.append)
    assert isinstance(context.control, SettingSpinBox) and isinstance(utilisation.control, SettingDoubleSpinBox)
    assert context.control.text() == "Automatic" and utilisation.control.text() == "Automatic"

    switcher.apply("zh_CN")

    qtbot.waitUntil(lambda: context.control.text() != "Automatic", timeout=WAIT_MS)
    assert context.control.text() == "自动" and utilisation.control.text() == "自动"
    assert "Automatic" not in visible_texts(context) and "自动" in visible_texts(utilisation)
    assert threads.control.text() == "4"  # a number is shown as it was
    assert (context.value(), utilisation.value(), threads.value()) == (0, 0.0, 4) and edits == []
    context.control.lineEdit().selectAll()
    qtbot.keyClicks(context.control.lineEdit(), "4096")
    assert context.value() == 4096
    context.control.lineEdit().selectAll()
    context.control.lineEdit().insert("自动")  # typed (an input method's text): the box understands the new label
    assert context.value() == 0 and context.error() is None

    switcher.apply("en")

    qtbot.waitUntil(lambda: context.control.text() == "Automatic", timeout=WAIT_MS)
    assert utilisation.control.text() == "Automatic" and context.value() == 0


def test_text_being_typed_stays_through_a_switch(qtbot: Any, switcher: LanguageSwitcher) -> None:
    editor = SettingEditor(spec_for("engine.gpu_layers"), -1)
    qtbot.addWidget(editor)
    box = editor.control
    assert isinstance(box, SettingSpinBox) and box.text() == "Automatic"
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), "Auto")  # halfway through the label: not a value yet

    switcher.apply("zh_CN")

    # the editor has switched
    qtbot.waitUntil(lambda: editor.help_label.text() != editor.spec.description, timeout=WAIT_MS)
    assert box.text() == "Auto" and box.value() == -1


class TwoButtons(QDialog):
    """A dialog naming its buttons itself, as the app's dialogs do."""

    def __init__(self) -> None:
        super().__init__()
        self.buttons = DialogButtons(self)
        self.save_button = self.buttons.add(ButtonRole.AcceptRole, lambda: translate("KnowledgeScopeDialog", "Save"))
        self.reset_button = self.buttons.add(ButtonRole.ResetRole,
                                             lambda: translate("SettingsDialog", "Restore defaults"))


def test_dialog_buttons_keep_their_own_texts_and_roles_through_switches(
    qtbot: Any, switcher: LanguageSwitcher
) -> None:
    dialog = TwoButtons()
    qtbot.addWidget(dialog)
    standard = QDialogButtonBox(QDialogButtonBox.StandardButton.RestoreDefaults, dialog)
    own_text_on_standard = standard.button(QDialogButtonBox.StandardButton.RestoreDefaults)
    own_text_on_standard.setText("Save")
    assert dialog.save_button.text() == "Save" and dialog.reset_button.accessibleName() == "Restore defaults"

    switcher.apply("zh_CN")

    qtbot.waitUntil(lambda: dialog.save_button.text() != "Save", timeout=WAIT_MS)
    assert dialog.save_button.text() == "保存" and dialog.save_button.accessibleName() == "保存"
    assert dialog.reset_button.text() == "恢复默认值" and dialog.reset_button.accessibleName() == "恢复默认值"
    assert own_text_on_standard.text() != "保存"  # why the helper exists: Qt put its own text on the standard button
    assert dialog.buttons.buttonRole(dialog.save_button) is ButtonRole.AcceptRole
    assert dialog.buttons.buttonRole(dialog.reset_button) is ButtonRole.ResetRole
    with qtbot.waitSignal(dialog.buttons.accepted, timeout=WAIT_MS):
        dialog.save_button.click()

    switcher.apply("en")

    qtbot.waitUntil(lambda: dialog.save_button.text() == "Save", timeout=WAIT_MS)
    assert dialog.reset_button.text() == "Restore defaults"


def test_the_knowledge_scope_dialog_names_its_buttons_in_the_language_shown(
    qtbot: Any, switcher: LanguageSwitcher
) -> None:
    dialog = KnowledgeScopeDialog()
    qtbot.addWidget(dialog)
    assert (dialog.save_button.text(), dialog.cancel_button.text()) == ("Save", "Cancel")
    saved: list[object] = []
    dialog.saved.connect(lambda enabled, scope: saved.append((enabled, scope)))

    switcher.apply("zh_CN")

    qtbot.waitUntil(lambda: dialog.save_button.text() != "Save", timeout=WAIT_MS)
    assert (dialog.save_button.text(), dialog.cancel_button.text()) == ("保存", "取消")
    assert dialog.save_button.accessibleName() == "保存"
    dialog.edit(False, KnowledgeScope())
    dialog.show()
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert saved == [(False, KnowledgeScope())] and not dialog.isVisible()


def test_menu_items_keep_their_mnemonics_in_both_languages(
    qtbot: Any, switcher: LanguageSwitcher, chat_windows: ChatWindows, app_context: AppContext, tmp_path: Path
) -> None:
    window = chat_windows.open(language=switcher, library=make_library(tmp_path / "library"))
    dock = window.knowledge_dock
    knowledge_toggle = dock.toggleViewAction()
    gauges_toggle = window.gauges_dock.toggleViewAction()
    assert knowledge_toggle in window.view_menu.actions()
    assert (knowledge_toggle.text(), gauges_toggle.text()) == ("&Knowledge base", "&Gauges")
    assert window.models_action.text() == "&Models…"

    switcher.apply("zh_CN")

    qtbot.waitUntil(lambda: window.view_menu.title() != "&View" and dock.windowTitle() == "知识库",
                    timeout=WAIT_MS)
    qtbot.wait(SETTLE_MS)  # a late title change would rename the action: it must keep its mnemonic after it
    assert dock.windowTitle() == "知识库" and knowledge_toggle.text() == "知识库(&K)"
    assert gauges_toggle.text() == "仪表(&G)" and window.models_action.text() == "模型(&M)…"
    assert window.models_action.toolTip() == "下载、添加、删除和切换模型"

    switcher.apply("en")

    qtbot.waitUntil(lambda: window.view_menu.title() == "&View"
                    and dock.windowTitle() == "Knowledge base", timeout=WAIT_MS)
    qtbot.wait(SETTLE_MS)
    assert dock.windowTitle() == "Knowledge base" and knowledge_toggle.text() == "&Knowledge base"
    assert gauges_toggle.text() == "&Gauges" and window.models_action.text() == "&Models…"

