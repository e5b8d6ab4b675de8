"""Switching the main views to Chinese at runtime (issue #8): the window with its menus, the conversations, a cited
answer, the gauges, the status bar and the open settings leave no English but names (the core's own words are
translated too: tooltips, plan, backend reason, source labels), and switching back keeps the
draft, the selected conversation, the unapplied settings and the scroll position."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel, QWidget

from app.ui.i18n import LanguageSwitcher, follow_language, rendered, translate
from app.ui.settings.setting_spin_box import SettingSpinBox
from tests.ui.core_texts_support import data_in, english_words_left
from tests.ui.i18n_support import (
    CODE_NAMES,
    MainViews,
    has_cjk_font,
    visible_texts,
)

pytestmark = [pytest.mark.gui, pytest.mark.integration]
Shot = Callable[[QWidget, str], Path]
DRAFT = "half-written question about the cable"
WAIT_MS = 20_000  # the verdict's worker thread and retranslating every widget: generous for a slow, loaded machine
TECHNICAL_NAMES = ["Flash Attention", "N-gram", "bf16", "fp8", "models/", ".gguf", "Linux", "DGX Spark", "Grace-Hopper",
                   "Jetson"]
"""Names the settings' descriptions keep in Chinese too: a kernel, a method, number types, a folder, a file type,
an operating system and machines."""


def names_in(views: MainViews, folder: Path) -> list[str]:
    """What stays as it is in any language: file and model names, paths, code, and the data inside the core's
    texts (sizes, KV types; its words are translated: backend reasons, plan explanations, what a setting allows;
    the values a settings file holds, which tooltips list, are let through by english_words_left). The test
    machine's backend reason is a plain string the test wrote, so it counts as a name too."""
    window = views.window
    status = window.services.engine_manager.status()
    loaded = status.loaded
    assert loaded is not None and status.selection is not None
    names = [loaded.model_name, str(loaded.config.model_path), loaded.config.model_path.name, "tiny-model",
             str(folder), *CODE_NAMES, *TECHNICAL_NAMES]
    names += [data for note in loaded.notes for data in data_in(note)]
    names += data_in(status.selection.reason)
    names += [text for path in views.sources for text in (str(path), path.name)]
    verdict = views.settings.verdict_view.verdict
    assert verdict is not None
    if verdict.plan is not None:
        names += data_in(verdict.plan.explanation)
    if verdict.selection is not None:
        names += data_in(verdict.selection.reason)
    if verdict.hardware is not None:
        names += data_in(verdict.hardware.recommended_backend.reason)
    return names


def test_the_main_views_speak_chinese_and_switch_back_keeping_their_state(
    qtbot: Any, views: MainViews, switcher: LanguageSwitcher, tmp_path: Path, screenshot: Shot
) -> None:
    window, view, sidebar, settings = views.window, views.view, views.sidebar, views.settings
    qtbot.keyClicks(view.composer.editor, DRAFT)
    settings.panel.show_advanced(True)
    verdict_before = settings.verdict_view.verdict
    chats = settings.panel.editor("engine.parallel_chats")
    assert isinstance(chats.control, SettingSpinBox)
    chats.control.setValue(3)
    theme = settings.panel.editor("ui.theme")
    assert isinstance(theme.control, QComboBox)
    theme.control.setCurrentIndex(theme.control.findData("dark"))
    theme.control.activated.emit(theme.control.currentIndex())
    edited = {key: settings.panel.editor(key).value() for key in settings.panel.changed_keys()}
    assert edited == {"engine.parallel_chats": 3, "ui.theme": "dark"}
    qtbot.waitUntil(lambda: settings.verdict_view.verdict is not verdict_before, timeout=WAIT_MS)  # for 3 chats
    view.messages.verticalScrollBar().setValue(view.messages.verticalScrollBar().maximum() // 2)
    scrolled_to = view.messages.verticalScrollBar().value()
    english_before = english_words_left(visible_texts(window), names_in(views, tmp_path))
    assert "Send" in english_before and "Regenerate" in english_before  # the check sees the English UI

    assert switcher.apply("zh_CN") == "zh_CN"

    # Qt posts the LanguageChange events, one to each window (the main window and the settings dialog)
    qtbot.waitUntil(lambda: view.composer.send_button.text() != "Send" and settings.windowTitle() != "Settings",
                    timeout=WAIT_MS)
    assert view.composer.send_button.text() == "发送" and sidebar.new_button.text() == "新对话"
    assert window.file_menu.title() == "文件(&F)" and window.gauges_dock.windowTitle() == "仪表"
    assert window.gauges_dock.toggleViewAction().text() == "仪表(&G)"
    assert window.model_status.text.text().startswith("就绪：")
    assert view.meter.toolTip().startswith("下一条消息")
    assert settings.windowTitle() == "设置" and settings.panel.advanced_toggle.text() == "显示高级设置"
    answer = view.messages.widget_for(views.answer_id)
    assert answer is not None and answer.author.text() == "助手 · tiny-model"
    assert "复制代码" in answer.body.plain_text()
    assert "(第 3 页)" in answer.chips[0].toolTip() and answer.chips[0].open_action.text() == "打开文件"
    assert answer.chips[0].text() == "[1] report.pdf，第 3 页"  # the core's source label, translated
    answer.chips[0].passage_action.trigger()
    popup = view.passage_popup
    assert popup is not None and popup.isVisible() and popup.open_button.text() == "打开文件"
    names = names_in(views, tmp_path)
    for root in (window, settings, popup):
        assert english_words_left(visible_texts(root), names) == [], root.objectName()
    popup.close()
    if has_cjk_font():
        screenshot(window, "zh-05-main-window")
        screenshot(settings, "zh-06-settings")

    assert switcher.apply("en") == "en"

    qtbot.waitUntil(lambda: view.composer.send_button.text() == "Send" and settings.windowTitle() == "Settings",
                    timeout=WAIT_MS)
    assert view.composer.text() == DRAFT
    assert sidebar.new_button.shortcut() == QKeySequence(QKeySequence.StandardKey.New)  # texts rewritten, keys kept
    assert sidebar.selected_id == views.conversation_id and view.conversation_id == views.conversation_id
    assert {key: settings.panel.editor(key).value() for key in settings.panel.changed_keys()} == edited
    assert chats.control.value() == 3 and theme.control.currentData() == "dark"
    assert settings.panel.advanced_toggle.isChecked() and settings.isVisible()
    assert view.messages.verticalScrollBar().value() == scrolled_to
    assert window.file_menu.title() == "&File" and window.model_status.text.text().startswith("Ready: ")
    assert sorted(english_words_left(visible_texts(window), names)) == sorted(english_before)



class Greeting(QLabel):
    """A label that writes its text in the current language, the way the main views do."""

    def __init__(self) -> None:
        super().__init__()
        self.rewrites = 0
        follow_language(self, self.retranslate_ui)

    def retranslate_ui(self) -> None:
        self.rewrites += 1
        self.setText(translate("ConversationSidebar", "New chat"))


def test_follow_language_writes_texts_at_once_and_after_every_switch(qtbot: Any, switcher: LanguageSwitcher) -> None:
    greeting = Greeting()
    qtbot.addWidget(greeting)
    assert greeting.rewrites == 1 and greeting.text() == "New chat"
    calls: list[str] = []
    follow_language(greeting, lambda: calls.append(translate("ConversationSidebar", "New chat")))

    switcher.apply("zh_CN")
    qtbot.waitUntil(lambda: greeting.rewrites == 2, timeout=WAIT_MS)
    assert greeting.text() == "新对话" and calls == ["New chat", "新对话"]
    switcher.apply("en")
    qtbot.waitUntil(lambda: greeting.rewrites == 3, timeout=WAIT_MS)
    assert greeting.text() == "New chat" and calls[-1] == "New chat"
    assert rendered("fixed") == "fixed" and rendered(lambda: translate("ConversationSidebar", "New chat")) == "New chat"

